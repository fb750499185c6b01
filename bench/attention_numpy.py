#!/usr/bin/python3
"""The benchmark's attention in NumPy (float32, OpenBLAS when libopenblas0-pthread is installed):
T in {512, 2048, 4096}, d_h = 64, h = 8, causal and not. Prints one JSON object per line:
{"name", "T", "causal", "ms", "gflops"}, the best of several runs."""
import json
import time

import numpy as np

HEADS, HEAD_DIM = 8, 64


def attention(Q, K, V, causal):
    T = Q.shape[0]
    out = np.empty_like(Q)
    mask = np.triu(np.ones((T, T), dtype=bool), 1) if causal else None
    for h in range(HEADS):
        cols = slice(h * HEAD_DIM, (h + 1) * HEAD_DIM)
        S = (Q[:, cols] @ K[:, cols].T) / np.float32(np.sqrt(HEAD_DIM))
        if mask is not None:
            S[mask] = -np.inf
        S -= S.max(axis=1, keepdims=True)
        A = np.exp(S)
        A /= A.sum(axis=1, keepdims=True)
        out[:, cols] = A @ V[:, cols]
    return out


rng = np.random.default_rng(0)
for T in (512, 2048, 4096):
    for causal in (False, True):
        Q, K, V = (rng.standard_normal((T, HEADS * HEAD_DIM), dtype=np.float32) for _ in range(3))
        attention(Q, K, V, causal)  # warm-up
        best = float("inf")
        for _ in range(3 if T > 2048 else 5):
            start = time.perf_counter()
            attention(Q, K, V, causal)
            best = min(best, time.perf_counter() - start)
        flops = 4.0 * T * T * HEAD_DIM * HEADS / (2 if causal else 1)
        print(json.dumps({"name": "NumPy", "T": T, "causal": causal, "ms": best * 1e3, "gflops": flops / best / 1e9}),
              flush=True)
