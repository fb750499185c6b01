#!/usr/bin/python3
"""Exports bench/model_forward_torch.py's Llama forward to ONNX (float32), for ONNX Runtime in
bench/runtimes_run.sh.

    /usr/bin/python3 bench/runtimes_onnx.py DIR OUTDIR [--trace-tokens 5] [--opset 17]

DIR is a folder from make_llama1b.py. OUTDIR gets model.onnx (the graph) and model.onnx.data (every
weight, float32, 64-byte aligned), and nothing else. Input "ids": int64 [1, T]; output "logits":
float32 [1, T, vocab], every position; T is a dynamic axis. The forward is model_forward_torch's
own (imported, not copied): its weights are registered as buffers of a module whose forward calls
mft.model_forward, and torch.onnx.export (PyTorch 1.13, the tracer) records it at T =
--trace-tokens. Pick a T that the benchmark does not use, so that a size baked into the graph by
mistake shows as wrong logits there.

Large models: protobuf cannot serialize a message over 2 GB, so PyTorch 1.13 decides by itself
(there is no switch: use_external_data_format is ignored) to write each initializer to its own
file beside the .onnx when the weights exceed that, named after the initializer. The 16-layer
model has ~5 GB of float32 weights (the tied embedding twice: once for the lookup, once
transposed by constant folding for the logits), so that happens there but not for a 2-layer model.
This script exports into a scratch folder and then rewrites every initializer, external or inline,
into the one data file with python3-onnx (1.12), so ONNX Runtime sees the same layout either way.

Prints one JSON object (sizes, seconds) on stdout; progress on stderr.
"""
import argparse
import json
import os
import shutil
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # no __pycache__ beside the bench scripts
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
ap.add_argument("dir")
ap.add_argument("outdir")
ap.add_argument("--trace-tokens", type=int, default=5)
ap.add_argument("--opset", type=int, default=17)
ap.add_argument("--threads", type=int, default=2)
ARGS = ap.parse_args()

# model_forward_torch parses the command line when it is imported (its other importers share its
# options) and sets the thread variables before torch starts: give it the folder and threads only.
_argv, sys.argv = sys.argv, [os.path.join(HERE, "model_forward_torch.py"), ARGS.dir, "--threads", str(ARGS.threads)]
import model_forward_torch as mft  # noqa: E402
sys.argv = _argv

import onnx  # noqa: E402
import torch  # noqa: E402
from torch.onnx import symbolic_helper as sym_help  # noqa: E402

ALIGN = 64  # ONNX Runtime memory-maps aligned external data where it can


def log(*a):
    print(*a, file=sys.stderr, flush=True)


def repeat_interleave_symbolic(g, self, repeats, dim=None, output_size=None):
    """aten::repeat_interleave for a constant int repeat count along a given dim, as
    unsqueeze(dim + 1) -> expand r times -> merge the two axes. PyTorch 1.13's own symbolic makes a
    Loop whose output ONNX Runtime rejects ("left operand cannot broadcast" at the q @ k^T after
    model_forward_torch's grouped-query repeat_interleave), so this one replaces it for the export."""
    r = sym_help._maybe_get_const(repeats, "i")
    d = sym_help._maybe_get_const(dim, "i")
    rank = sym_help._get_tensor_rank(self)
    if not isinstance(r, int) or not isinstance(d, int) or rank is None:
        raise RuntimeError("repeat_interleave: only a constant int count along a given dim is exported here")
    d = d + rank if d < 0 else d

    def const(values):
        return g.op("Constant", value_t=torch.tensor(values, dtype=torch.int64))

    shape = g.op("Shape", self)
    before = g.op("Slice", shape, const([0]), const([d]))
    axis = g.op("Slice", shape, const([d]), const([d + 1]))
    after = g.op("Slice", shape, const([d + 1]), const([rank]))
    x = g.op("Unsqueeze", self, const([d + 1]))
    x = g.op("Expand", x, g.op("Concat", before, axis, const([r]), after, axis_i=0))
    return g.op("Reshape", x, g.op("Concat", before, const([-1]), after, axis_i=0))


class Forward(torch.nn.Module):
    """model_forward_torch's forward on a batch of one: ids [1, T] -> logits [1, T, vocab]."""

    def __init__(self, cfg, W):
        super().__init__()
        self.cfg = cfg
        embed = W["model.embed_tokens.weight"]
        self.tied = W.get("lm_head.weight") is embed
        self.names = [n for n in W if not (self.tied and n == "lm_head.weight")]
        for n in self.names:
            # Buffers, so the tracer makes them initializers named after the checkpoint's tensors.
            self.register_buffer(n.replace(".", "_"), W[n])

    def forward(self, ids):
        W = {n: getattr(self, n.replace(".", "_")) for n in self.names}
        if self.tied:
            W["lm_head.weight"] = W["model.embed_tokens.weight"]
        return mft.model_forward(self.cfg, W, ids[0])[None]


def consolidate(src_path, out_dir):
    """src_path's model with every initializer moved into out_dir/model.onnx.data."""
    src_dir = os.path.dirname(src_path)
    model = onnx.load(src_path, load_external_data=False)
    data_name = "model.onnx.data"
    moved = 0
    with open(os.path.join(out_dir, data_name), "wb") as data:
        for t in model.graph.initializer:
            data.write(b"\0" * (-data.tell() % ALIGN))
            offset = data.tell()
            if t.data_location == onnx.TensorProto.EXTERNAL:
                info = {e.key: e.value for e in t.external_data}
                start, length = int(info.get("offset", 0)), info.get("length")
                with open(os.path.join(src_dir, info["location"]), "rb") as f:
                    f.seek(start)
                    remaining = int(length) if length is not None else None
                    while remaining is None or remaining > 0:
                        chunk = f.read(1 << 24 if remaining is None else min(1 << 24, remaining))
                        if not chunk:
                            break
                        data.write(chunk)
                        if remaining is not None:
                            remaining -= len(chunk)
            elif t.HasField("raw_data"):
                data.write(t.raw_data)
                t.ClearField("raw_data")
            else:
                continue  # typed fields (small constants PyTorch wrote as such): left inline
            length = data.tell() - offset
            del t.external_data[:]
            for k, v in (("location", data_name), ("offset", str(offset)), ("length", str(length))):
                e = t.external_data.add()
                e.key, e.value = k, v
            t.data_location = onnx.TensorProto.EXTERNAL
            moved += 1
    onnx.save(model, os.path.join(out_dir, "model.onnx"))
    return moved


def main():
    t0 = time.perf_counter()
    cfg, W = mft.load_model(ARGS.dir)
    if cfg.get("model_type", "llama") != "llama":
        raise SystemExit(f"{ARGS.dir}: model_type {cfg.get('model_type')}; this export is for the Llama folder")
    log(f"loaded {ARGS.dir} as float32 in {time.perf_counter() - t0:.1f} s")
    module = Forward(cfg, W).eval()
    del W
    ids = ((torch.arange(ARGS.trace_tokens) * 7919) % cfg["vocab_size"])[None]
    os.makedirs(ARGS.outdir, exist_ok=True)
    torch.onnx.register_custom_op_symbolic("aten::repeat_interleave", repeat_interleave_symbolic, ARGS.opset)
    scratch = tempfile.mkdtemp(prefix="onnx-export-", dir=ARGS.outdir)
    try:
        t1 = time.perf_counter()
        with torch.no_grad():
            torch.onnx.export(module, (ids,), os.path.join(scratch, "model.onnx"), input_names=["ids"],
                              output_names=["logits"], dynamic_axes={"ids": {1: "T"}, "logits": {1: "T"}},
                              opset_version=ARGS.opset, do_constant_folding=True)
        export_s = time.perf_counter() - t1
        files = len(os.listdir(scratch))
        log(f"torch.onnx.export: {export_s:.1f} s, {files} file(s)")
        del module
        for stale in ("model.onnx", "model.onnx.data"):
            if os.path.exists(os.path.join(ARGS.outdir, stale)):
                os.remove(os.path.join(ARGS.outdir, stale))
        moved = consolidate(os.path.join(scratch, "model.onnx"), ARGS.outdir)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    onnx.checker.check_model(os.path.join(ARGS.outdir, "model.onnx"))  # by path: external data allowed
    print(json.dumps({
        "onnx": os.path.join(ARGS.outdir, "model.onnx"),
        "torch": torch.__version__, "onnx_version": onnx.__version__, "opset": ARGS.opset,
        "files_written_by_torch": files, "initializers_in_data_file": moved,
        "data_bytes": os.path.getsize(os.path.join(ARGS.outdir, "model.onnx.data")),
        "graph_bytes": os.path.getsize(os.path.join(ARGS.outdir, "model.onnx")),
        "export_s": round(export_s, 1), "total_s": round(time.perf_counter() - t0, 1)}))


if __name__ == "__main__":
    main()
