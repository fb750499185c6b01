#!/usr/bin/python3
"""Times a `poslab predict` command line as a whole process and samples its anonymous memory.

    /usr/bin/python3 bench/predict_timed.py [--repeat 5] [--warmup 1] [--out LAST.json] -- CMD ...

Runs CMD warm-up + repeat times, one after the other. For each run: the wall time from the start
of the process to its exit, the forward pass's own time (the "attention on …, N ms" line that
poslab writes to stderr: ForwardResult::milliseconds, the layers and the logits' loss and top-k),
(or, for bench's model_bench --sentence, its last "forward N: S s" line), and RssAnon from
/proc/PID/status every 5 ms (anonymous memory only: the memory-mapped weights are
file pages and not counted), as model_bench's sampler does. The first run warms the page cache.

Prints one JSON object: wall_s_min / median / all, forward_s_min / median / all (the timed runs),
rss_anon_peak_mb (the largest sample over every run, warm-up included), and the last run's stdout
written to --out when given (poslab predict's JSON: ids, tokens, loss, top).
"""
import argparse
import json
import re
import statistics
import subprocess
import sys
import tempfile
import time


def rss_anon_mb(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("RssAnon:"):
                    return int(line.split()[1]) / 1024.0
    except (FileNotFoundError, ProcessLookupError):
        pass
    return 0.0


def run_once(cmd):
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        peak = 0.0
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out, stderr=err)
        while proc.poll() is None:
            peak = max(peak, rss_anon_mb(proc.pid))
            time.sleep(0.005)
        wall = time.perf_counter() - start
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read().decode(), err.read().decode(errors="replace")
    if proc.returncode != 0:
        sys.exit(f"predict_timed: {' '.join(cmd[:2])} … exited with {proc.returncode}:\n{stderr}")
    m = re.search(r"attention on .*, (\d+(?:\.\d+)?) ms", stderr)  # poslab predict
    if m:
        return wall, float(m.group(1)) / 1000.0, peak, stdout, stderr
    m = re.findall(r"model_bench: forward \d+: (\d+(?:\.\d+)?) s", stderr)  # model_bench --sentence: the last run
    if not m:
        sys.exit(f"predict_timed: no forward time on stderr:\n{stderr}")
    return wall, float(m[-1]), peak, stdout, stderr


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--out", help="write the last run's stdout here")
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    args = ap.parse_args()
    cmd = args.cmd[1:] if args.cmd[:1] == ["--"] else args.cmd
    if not cmd or args.repeat < 1:
        sys.exit("usage: predict_timed.py [--repeat N] [--warmup N] [--out F] -- CMD ...")
    walls, forwards, peak, stdout, stderr = [], [], 0.0, "", ""
    for r in range(args.warmup + args.repeat):
        wall, fwd, rss, stdout, stderr = run_once(cmd)
        peak = max(peak, rss)
        print(f"predict {'warm-up' if r < args.warmup else 'run'}: {wall:.3f} s (forward {fwd:.3f} s), "
              f"RssAnon peak {rss:.0f} MB", file=sys.stderr, flush=True)
        if r >= args.warmup:
            walls.append(wall)
            forwards.append(fwd)
    if args.out:
        with open(args.out, "w") as f:
            f.write(stdout)
    print(json.dumps({
        "wall_s_min": min(walls), "wall_s_median": statistics.median(walls), "wall_s_all": walls,
        "forward_s_min": min(forwards), "forward_s_median": statistics.median(forwards), "forward_s_all": forwards,
        "rss_anon_peak_mb": peak, "stderr_last": stderr.strip().splitlines(),
    }))


if __name__ == "__main__":
    main()
