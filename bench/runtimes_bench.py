#!/usr/bin/python3
"""The interleaved part of bench/runtimes_run.sh: PosLab's forward pass against PyTorch, ONNX
Runtime and llama.cpp, each contender in its own process, round robin, on one machine at a time.

    /usr/bin/python3 bench/runtimes_bench.py --dir DIR --art ART --reference REF.json [--tokens "64 256 1024"] [--rounds 3]
        [--threads 2] [--out /tmp/runtimes_result] [--bf16-max-s 60]

DIR is the make_llama1b.py folder, ART the folder that runtimes_run.sh fills (onnx/model.onnx,
gguf/model-{F32,BF16,Q8_0}.gguf), REF.json runtimes_reference.py's summary of PyTorch's logits. For each T, ROUNDS
rounds; in each round every contender runs once, as a fresh process that loads its model, does one
warm-up forward and one timed forward of ids = (arange(T) * 7919) % vocab with THREADS threads
(the contenders' order rotates from round to round). The processes run one at a time: they would
not all fit in memory at once (PyTorch and ONNX Runtime each hold ~5 GB of float32 weights), and
one at a time they do not compete with each other; interleaving puts the machine's other load on
all of them alike. Loading is never timed.

Contenders (the process that times them):
- PosLab: build/model_bench DIR --tokens T --repeat 1 (OMP_NUM_THREADS=THREADS); also with
  --precision bf16 when model_bench's usage names that option.
- PyTorch f32 and BF16: bench/model_forward_torch.py --repeat 1, float32 (forward_s_min), then in
  the same process bfloat16 (forward_bf16_s: one forward after a one-layer probe). The probe alone
  takes minutes on a CPU without AVX-512 BF16, so once one process skips bfloat16 (its projected
  time over --bf16-max-s), later ones pass --bf16-max-s 0 and the row says why.
- ONNX Runtime f32: bench/node/ort_forward.mjs.
- llama.cpp F32, BF16, Q8_0: bench/node/llama_forward.mjs (logits of all T positions).

Writes OUT.md (the tables) and OUT.json (every time, the checks, the machine) and prints the
tables. Ratio = contender's time / PosLab's (float32) time: above 1, PosLab is faster.
"""
import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PY = "/usr/bin/python3"


def log(*a):
    print(*a, file=sys.stderr, flush=True)


def cpu_info():
    model, flags = "?", set()
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name") and model == "?":
                model = line.split(":", 1)[1].strip()
            elif line.startswith("flags") and not flags:
                flags = set(line.split(":", 1)[1].split())
    isa = [f for f in ("avx2", "fma", "f16c", "avx512f", "avx512_bf16", "avx512_vnni", "amx_bf16") if f in flags]
    return {"model": model, "cores": os.cpu_count(), "isa": isa}


def poslab_has_bf16(binary):
    """model_bench's usage (printed with no arguments) names --precision once it has that option."""
    r = subprocess.run([binary], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return "--precision" in r.stdout


class Contender:
    """One process kind; rows are the table rows it fills: (row name, time key, checksum key)."""

    def __init__(self, name, argv, rows, env=None):
        self.name, self.argv, self.rows, self.env = name, argv, rows, env or {}


def run_json(argv, env, timeout):
    start = time.perf_counter()
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=timeout,
                       env={**os.environ, **env}, cwd=ROOT)
    wall = time.perf_counter() - start
    if p.returncode != 0:
        tail = "\n".join(p.stderr.strip().splitlines()[-6:])
        raise RuntimeError(f"exit {p.returncode}: {tail}")
    return json.loads(p.stdout.strip().splitlines()[-1]), wall


def lm_head_share(cfg, T):
    """The LM head's share of the forward's multiply-adds (2·T·hidden·vocab against the layers'
    projections and the causal attention)."""
    h, it, L = cfg["hidden_size"], cfg["intermediate_size"], cfg["num_hidden_layers"]
    hd = cfg.get("head_dim") or h // cfg["num_attention_heads"]
    q, kv = cfg["num_attention_heads"] * hd, cfg["num_key_value_heads"] * hd
    layer = 2 * T * (2 * h * q + 2 * h * kv + 3 * h * it) + 2 * 2 * T * T / 2 * q
    head = 2 * T * h * cfg["vocab_size"]
    return head / (L * layer + head), (L * layer + head) / 1e9


def fmt_s(x):
    return "—" if x is None else (f"{x:.3f}" if x < 100 else f"{x:.1f}")


def write_report(args, cfg, tokens, rows, results, reference, state, final):
    """OUT.md and OUT.json from the runs so far (rewritten after every process, so an interrupted
    run still leaves its finished rounds); printed at the end."""
    poslab_bf16, torch_bf16, started = state["poslab_bf16"], state["torch_bf16"], state["started"]
    report = {"date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"), "machine": cpu_info(),
              "kernel": platform.release(), "dir": args.dir, "layers": cfg["num_hidden_layers"], "tokens": tokens,
              "rounds": args.rounds, "threads": args.threads, "wall_s": round(time.time() - started, 1),
              "complete": final, "load_average_start": state["load_start"], "load_average_now": list(os.getloadavg()),
              "poslab_bf16_option": poslab_bf16, "pytorch_bf16_skipped": torch_bf16["skip"], "per_T": {}}
    md = [f"# PosLab forward pass against CPU runtimes ({cfg['num_hidden_layers']} layers, {args.threads} threads)", "",
          f"{report['date']}; {report['machine']['model']}, {report['machine']['cores']} cores "
          f"({', '.join(report['machine']['isa'])}); {args.rounds} round(s) per T, each contender a fresh process "
          "per round (load, one warm-up forward, one timed forward), interleaved round robin. "
          "Ratio = contender / PosLab f32 (min and median): above 1, PosLab is faster.", ""]
    for T in [T for T in tokens if any(results[T][n]["outputs"] or results[T][n]["errors"] for n, _, _ in rows)]:
        ref = reference[str(T)]
        share, gflop = lm_head_share(cfg, T)
        per = {}
        base = results[T]["PosLab f32"]["times"]
        base_min = min(base) if base else None
        base_med = statistics.median(base) if base else None
        md += [f"## T = {T} ({gflop:.0f} GFLOP; LM head {100 * share:.0f} % of it; PyTorch reference checksum "
               f"{ref['logits_checksum']:.5f})", "",
               "| contender | min s | median s | min / PosLab | median / PosLab | check |",
               "|---|---:|---:|---:|---:|---|"]
        for name, key, ck in rows:
            e = results[T][name]
            t = e["times"]
            lo = min(t) if t else None
            med = statistics.median(t) if t else None
            check = []
            if ck:
                sums = sorted({round(o[ck], 5) for o in e["outputs"] if o.get(ck) is not None})
                if sums:
                    check.append("checksum " + " / ".join(f"{s:.5f}" for s in sums)
                                 + f" (Δ {max(abs(s - ref['logits_checksum']) for s in sums):.1e})")
            outs = [o for o in e["outputs"] if o.get("last_logp16")]
            lp_err = top1 = None
            if outs:
                o = outs[0]
                lp_err = max(abs(a - b) for a, b in zip(o["last_logp16"], ref["last_logp16"]))
                top1 = sum(a == b for a, b in zip(o["top1_ids"], ref["top1_ids"])) / len(ref["top1_ids"])
                check.append(f"last-position log p[0:16] max Δ {lp_err:.1e}, top-1 = PyTorch's at {100 * top1:.1f} % of positions")
            if name == "PyTorch BF16" and not t and torch_bf16["skip"]:
                check.append("skipped: " + torch_bf16["skip"])
            if e["errors"]:
                check.append(f"{len(e['errors'])} failed run(s): {e['errors'][0][:200]}")
            if name.startswith("llama.cpp") and t:
                check.append("logits for all T positions")
            ratio_min = lo / base_min if lo and base_min else None
            ratio_med = med / base_med if med and base_med else None
            per[name] = {"times": t, "min": lo, "median": med, "ratio_min": ratio_min, "ratio_median": ratio_med,
                         "checksums": [o.get(ck) for o in e["outputs"]] if ck else None,
                         "last_logp16_max_abs_diff": lp_err, "top1_agreement": top1, "errors": e["errors"],
                         "details": [{k: v for k, v in o.items() if k not in ("top1_ids", "last_logp16", "between")}
                                     for o in e["outputs"]]}
            md.append(f"| {name} | {fmt_s(lo)} | {fmt_s(med)} | "
                      f"{'—' if ratio_min is None else f'{ratio_min:.2f}×'} | {'—' if ratio_med is None else f'{ratio_med:.2f}×'} | "
                      f"{'; '.join(check)} |")
        md.append("")
        report["per_T"][str(T)] = {"reference_checksum": ref["logits_checksum"], "lm_head_share": share, "gflop": gflop, "contenders": per}
    llama_out = next((o for T in tokens for o in results[T]["llama.cpp F32"]["outputs"]), None)
    if llama_out:
        report["llama_cpp"] = {k: llama_out.get(k) for k in ("system_info", "logs", "build", "batch_size", "context_size", "flash_attention")}
        md += ["llama.cpp (node-llama-cpp's prebuilt binary): " + "; ".join(
            x for x in llama_out.get("logs", []) if "load_backend" in x or "flash_attn" in x or "type_k" in x)[:600],
               f"system info: {llama_out.get('system_info', '').strip()}", ""]
    if not poslab_bf16:
        md += ["PosLab BF16: not run (build/model_bench has no --precision option yet).", ""]
    md.append(f"{'Whole run' if final else 'Run so far (not finished)'}: {report['wall_s'] / 60:.1f} min; load average "
              f"(1 min) {state['load_start'][0]:.1f} at the start, {report['load_average_now'][0]:.1f} at the end "
              f"(this machine's other work included).")
    text = "\n".join(md) + "\n"
    with open(args.out + ".md", "w") as f:
        f.write(text)
    with open(args.out + ".json", "w") as f:
        json.dump(report, f, indent=1)
        f.write("\n")
    if final:
        print(text)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dir", required=True)
    ap.add_argument("--art", required=True)
    ap.add_argument("--reference", required=True, help="runtimes_reference.py's output for these T")
    ap.add_argument("--tokens", default="64 256 1024")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--out", default="/tmp/runtimes_result")
    ap.add_argument("--bf16-max-s", type=float, default=60.0)
    ap.add_argument("--timeout", type=float, default=3600.0, help="per process")
    args = ap.parse_args()
    tokens = [int(t) for t in args.tokens.split()]
    with open(os.path.join(args.dir, "config.json")) as f:
        cfg = json.load(f)
    V, th = cfg["vocab_size"], str(args.threads)
    with open(args.reference) as f:
        reference = json.load(f)

    bench = os.path.join(ROOT, "build", "model_bench")
    omp = {"OMP_NUM_THREADS": th}
    contenders = [Contender("PosLab", [bench, args.dir, "--tokens", "{T}", "--repeat", "1"],
                            [("PosLab f32", "forward_s_min", "logits_checksum")], omp)]
    poslab_bf16 = poslab_has_bf16(bench)
    if poslab_bf16:
        contenders.append(Contender("PosLab BF16", contenders[0].argv + ["--precision", "bf16"],
                                    [("PosLab BF16", "forward_s_min", "logits_checksum")], omp))
    contenders.append(Contender("PyTorch", [PY, os.path.join(HERE, "model_forward_torch.py"), args.dir, "--tokens", "{T}",
                                            "--threads", th, "--repeat", "1", "--bf16-max-s", "{BF16}"],
                                [("PyTorch f32", "forward_s_min", "logits_checksum"),
                                 ("PyTorch BF16", "forward_bf16_s", "logits_checksum_bf16")]))
    contenders.append(Contender("ONNX Runtime", ["node", os.path.join(HERE, "node", "ort_forward.mjs"),
                                                 os.path.join(args.art, "onnx", "model.onnx"), "--tokens", "{T}", "--vocab", str(V), "--threads", th],
                                [("ONNX Runtime f32", "forward_s_min", "logits_checksum")]))
    for kind in ("F32", "BF16", "Q8_0"):
        contenders.append(Contender(f"llama.cpp {kind}", ["node", os.path.join(HERE, "node", "llama_forward.mjs"),
                                                          os.path.join(args.art, "gguf", f"model-{kind}.gguf"), "--tokens", "{T}", "--vocab", str(V), "--threads", th],
                                    [(f"llama.cpp {kind}", "forward_s_min", None)]))
    rows = [r for c in contenders for r in c.rows]

    results = {T: {name: {"times": [], "outputs": [], "errors": []} for name, _, _ in rows} for T in tokens}
    torch_bf16 = {"skip": None}
    started = time.time()
    state = {"poslab_bf16": poslab_bf16, "torch_bf16": torch_bf16, "started": started, "load_start": list(os.getloadavg())}
    for T in tokens:
        for r in range(args.rounds):
            order = contenders[r % len(contenders):] + contenders[:r % len(contenders)]
            for c in order:
                bf16 = "0" if torch_bf16["skip"] else f"{args.bf16_max_s:g}"
                argv = [a.replace("{T}", str(T)).replace("{BF16}", bf16) for a in c.argv]
                try:
                    out, wall = run_json(argv, c.env, args.timeout)
                except (RuntimeError, subprocess.TimeoutExpired, ValueError) as e:
                    log(f"[T={T} round {r + 1}/{args.rounds}] {c.name}: FAILED {e}")
                    for name, _, _ in c.rows:
                        results[T][name]["errors"].append(str(e))
                    continue
                for name, key, _ in c.rows:
                    entry = results[T][name]
                    if out.get(key) is not None:
                        entry["times"].append(out[key])
                    entry["outputs"].append(out)
                if c.name == "PyTorch" and out.get("bf16_skipped") and not torch_bf16["skip"]:
                    torch_bf16["skip"] = f"{out['bf16_skipped']} at T = {T}"
                    if "bf16_probe_layer_s" in out:
                        torch_bf16["skip"] += f" (one layer took {out['bf16_probe_layer_s']:.1f} s)"
                shown = ", ".join(f"{name} {out[key]:.3f} s" for name, key, _ in c.rows if out.get(key) is not None)
                log(f"[T={T} round {r + 1}/{args.rounds}] {c.name}: {shown or 'no time'} (process {wall:.1f} s)")
                write_report(args, cfg, tokens, rows, results, reference, state, final=False)

    write_report(args, cfg, tokens, rows, results, reference, state, final=True)
    log(f"wrote {args.out}.md and {args.out}.json")


if __name__ == "__main__":
    main()
