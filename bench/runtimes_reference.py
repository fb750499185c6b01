#!/usr/bin/python3
"""PyTorch's float32 logits, summarized, for the checks in bench/runtimes_bench.py (untimed).

    /usr/bin/python3 bench/runtimes_reference.py DIR --tokens "64 256 1024" [--threads 2]

For each T, model_forward_torch's forward (imported) on ids = (arange(T) * 7919) % vocab, and from
its logits: "logits_checksum" (the sum of the last position's first 16 logits, as PosLab's
model_bench and model_forward_torch.py print it), "last_logp16" (log-softmax of the last
position, tokens 0..15: what llama.cpp's probabilities can be compared with, since
node-llama-cpp gives probabilities, not logits) and "top1_ids" (each position's most likely
token). Prints one JSON object {"T": {...}} on stdout.
"""
import argparse
import json
import os
import sys

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
ap.add_argument("dir")
ap.add_argument("--tokens", default="64")
ap.add_argument("--threads", type=int, default=2)
ARGS = ap.parse_args()

# model_forward_torch reads the command line when imported: it gets the folder and threads only.
_argv, sys.argv = sys.argv, [os.path.join(HERE, "model_forward_torch.py"), ARGS.dir, "--threads", str(ARGS.threads)]
import model_forward_torch as mft  # noqa: E402
sys.argv = _argv

import torch  # noqa: E402


def main():
    torch.set_num_threads(ARGS.threads)
    cfg, W = mft.load_model(ARGS.dir)
    out = {}
    with torch.no_grad():
        for T in (int(t) for t in ARGS.tokens.split()):
            ids = (torch.arange(T, dtype=torch.int64) * 7919) % cfg["vocab_size"]
            logits = mft.model_forward(cfg, W, ids)
            last = logits[-1].double()
            out[str(T)] = {
                "logits_checksum": float(last[:16].sum()),
                "last_logp16": (last[:16] - torch.logsumexp(last, 0)).tolist(),
                "top1_ids": logits.argmax(-1).tolist(),
            }
            print(f"reference T={T}: checksum {out[str(T)]['logits_checksum']:.5f}", file=sys.stderr, flush=True)
            del logits
    print(json.dumps(out))


if __name__ == "__main__":
    main()
