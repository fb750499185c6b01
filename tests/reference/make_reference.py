#!/usr/bin/python3
"""Independent reference values for PosLab's core tests.

Written from the papers' definitions (Vaswani et al. 2017; Su et al. 2021 for interleaved
RoPE; the GPT-NeoX / Hugging Face rotate_half form; scaled dot-product attention), not from
PosLab's C++. Run with Debian's python3-numpy:  /usr/bin/python3 make_reference.py > reference.txt
Format: one matrix per line: `name rows cols v11 v12 … v_rc` (row-major).
"""
import numpy as np


def emit(name, m):
    m = np.atleast_2d(np.asarray(m, dtype=np.float64))
    vals = " ".join(repr(float(v)) for v in m.ravel())
    print(f"{name} {m.shape[0]} {m.shape[1]} {vals}")


def sinusoidal(T, d, base):
    pe = np.zeros((T, d))
    for p in range(T):
        for j in range(d):
            i = j // 2
            angle = p / base ** (2 * i / d)
            pe[p, j] = np.sin(angle) if j % 2 == 0 else np.cos(angle)
    return pe


def rope_interleaved(x, positions, base):
    """RoFormer eq. (34): pairs (x_2i, x_2i+1) rotated by p * base^(-2i/d)."""
    T, d = x.shape
    out = x.copy()
    for t in range(T):
        for i in range(d // 2):
            phi = positions[t] * base ** (-2 * i / d)
            a, b = x[t, 2 * i], x[t, 2 * i + 1]
            out[t, 2 * i] = a * np.cos(phi) - b * np.sin(phi)
            out[t, 2 * i + 1] = a * np.sin(phi) + b * np.cos(phi)
    return out


def rope_half(x, positions, base):
    """Hugging Face Llama: q*cos + rotate_half(q)*sin with cos/sin from cat(freqs, freqs)."""
    T, d = x.shape
    inv_freq = 1.0 / base ** (np.arange(0, d, 2) / d)
    freqs = np.outer(np.asarray(positions, dtype=np.float64), inv_freq)
    emb = np.concatenate([freqs, freqs], axis=-1)
    x1, x2 = x[:, : d // 2], x[:, d // 2 :]
    rotated = np.concatenate([-x2, x1], axis=-1)
    return x * np.cos(emb) + rotated * np.sin(emb)


def attention(Q, K, V, heads, causal, key_valid):
    T, d = Q.shape
    dh = d // heads
    weights, scores = [], []
    context = np.zeros((T, d))
    for h in range(heads):
        q, k, v = (M[:, h * dh : (h + 1) * dh] for M in (Q, K, V))
        s = q @ k.T / np.sqrt(dh)
        mask = np.zeros((T, T), dtype=bool)
        if causal:
            mask |= np.triu(np.ones((T, T), dtype=bool), 1)
        mask |= ~np.asarray(key_valid, dtype=bool)[None, :]
        s = np.where(mask, -np.inf, s)
        e = np.exp(s - s.max(axis=1, keepdims=True))
        a = e / e.sum(axis=1, keepdims=True)
        weights.append(a)
        context[:, h * dh : (h + 1) * dh] = a @ v
    return np.vstack(weights), context


emit("sinusoidal_T6_d8_base10000", sinusoidal(6, 8, 10000.0))
emit("sinusoidal_T4_d5_base100", sinusoidal(4, 5, 100.0))
X = np.arange(40, dtype=np.float64).reshape(5, 8) / 10.0 - 1.5
positions = [0, 1, 2, 7, 1000]
emit("rope_input", X)
emit("rope_interleaved_base10000", rope_interleaved(X, positions, 10000.0))
emit("rope_half_base10000", rope_half(X, positions, 10000.0))
emit("rope_interleaved_base500000", rope_interleaved(X, positions, 500000.0))

T, d, heads = 4, 6, 2
grid = np.arange(T)[:, None] * 7 + np.arange(d)[None, :]
Q, K, V = np.sin(grid), np.cos(grid * 0.5), np.sin(grid * 0.3 + 1.0)
emit("attn_Q", Q)
emit("attn_K", K)
emit("attn_V", V)
for name, causal, valid in [("plain", False, [1, 1, 1, 1]), ("causal", True, [1, 1, 1, 1]),
                            ("padded", False, [1, 1, 1, 0])]:
    w, c = attention(Q, K, V, heads, causal, valid)
    emit(f"attn_{name}_weights", w)
    emit(f"attn_{name}_context", c)
