#!/usr/bin/python3
"""Independent reference values for PosLab's additive encodings, RoPE scaling, attention biases
and 2-D RoPE (tests/core_{additive,rope_scaling,bias,rope_nd}_test.cpp).

Written from the papers and their reference code, not from PosLab's C++:
  - additive codes: docs/FORMULAS.md (integer, normalized, binary);
  - RoPE scaling: Hugging Face transformers' modeling_rope_utils (_compute_linear_scaling_…,
    _compute_dynamic_ntk_…, _compute_yarn_parameters, _compute_llama3_parameters) transcribed to
    NumPy in float64 (HF forms base**(arange/dim) in float32; PosLab keeps double), and the
    NTK-aware base change base·s^(d/(d−2)) (bloc97);
  - ALiBi: get_slopes from ofirpress/attention_with_linear_biases, copied verbatim;
  - T5: T5Attention._relative_position_bucket (HF) with torch's float32 as np.float32;
  - Shaw et al. 2018, eq. (3)–(5): e_ij ∝ q_i·(k_j + a^K_ij), z_i = Σ_j α_ij (v_j + a^V_ij);
  - 2-D RoPE: naver-ai/rope-vit compute_axial_cis / init_random_2d_freqs / apply_rotary_emb
    (complex multiplication of interleaved pairs).
Run with Debian's python3-numpy:
  /usr/bin/python3 make_encodings_reference.py > encodings_reference.txt
Format: one matrix per line: `name rows cols v11 v12 … v_rc` (row-major); every name starts
with enc_ so that it cannot clash with reference.txt.
"""
import math

import numpy as np


def emit(name, m):
    m = np.atleast_2d(np.asarray(m, dtype=np.float64))
    vals = " ".join(repr(float(v)) for v in m.ravel())
    print(f"{name} {m.shape[0]} {m.shape[1]} {vals}")


# --- additive encodings ------------------------------------------------------------------------

def integer_pe(T, d):
    return np.repeat(np.arange(T, dtype=np.float64)[:, None], d, axis=1)


def normalized_pe(T, d, N):
    return integer_pe(T, d) / N


def binary_pe(T, d, plus_minus):
    pe = np.array([[(p >> j) & 1 for j in range(d)] for p in range(T)], dtype=np.float64)
    return 2 * pe - 1 if plus_minus else pe


# --- RoPE scaling (Hugging Face modeling_rope_utils, in float64) -----------------------------

def default_inv_freq(base, dim):
    return 1.0 / (base ** (np.arange(0, dim, 2, dtype=np.float64) / dim))


def linear_inv_freq(base, dim, factor):
    return default_inv_freq(base, dim) / factor


def ntk_inv_freq(base, dim, factor):
    return default_inv_freq(base * factor ** (dim / (dim - 2)), dim)


def dynamic_inv_freq(base, dim, factor, max_position_embeddings, seq_len):
    seq_len = max(seq_len, max_position_embeddings)
    base = base * ((factor * seq_len / max_position_embeddings) - (factor - 1)) ** (dim / (dim - 2))
    return default_inv_freq(base, dim)


def yarn_inv_freq(base, dim, factor, original_max_position_embeddings, beta_fast=32, beta_slow=1):
    def get_mscale(scale, mscale=1):
        if scale <= 1:
            return 1.0
        return 0.1 * mscale * math.log(scale) + 1.0

    def find_correction_dim(num_rotations, dim, base, max_position_embeddings):
        return (dim * math.log(max_position_embeddings / (num_rotations * 2 * math.pi))) / (2 * math.log(base))

    def find_correction_range(low_rot, high_rot, dim, base, max_position_embeddings):
        low = math.floor(find_correction_dim(low_rot, dim, base, max_position_embeddings))
        high = math.ceil(find_correction_dim(high_rot, dim, base, max_position_embeddings))
        return max(low, 0), min(high, dim - 1)

    def linear_ramp_factor(min, max, dim):
        if min == max:
            max += 0.001
        linear_func = (np.arange(dim, dtype=np.float64) - min) / (max - min)
        return np.clip(linear_func, 0, 1)

    pos_freqs = base ** (np.arange(0, dim, 2, dtype=np.float64) / dim)
    inv_freq_extrapolation = 1.0 / pos_freqs
    inv_freq_interpolation = 1.0 / (factor * pos_freqs)
    low, high = find_correction_range(beta_fast, beta_slow, dim, base, original_max_position_embeddings)
    inv_freq_extrapolation_factor = 1 - linear_ramp_factor(low, high, dim // 2)
    inv_freq = (inv_freq_interpolation * (1 - inv_freq_extrapolation_factor)
                + inv_freq_extrapolation * inv_freq_extrapolation_factor)
    return inv_freq, get_mscale(factor)


def llama3_inv_freq(base, dim, factor, low_freq_factor, high_freq_factor, old_context_len):
    inv_freq = default_inv_freq(base, dim)
    low_freq_wavelen = old_context_len / low_freq_factor
    high_freq_wavelen = old_context_len / high_freq_factor
    wavelen = 2 * math.pi / inv_freq
    inv_freq_llama = np.where(wavelen > low_freq_wavelen, inv_freq / factor, inv_freq)
    smooth_factor = (old_context_len / wavelen - low_freq_factor) / (high_freq_factor - low_freq_factor)
    smoothed_inv_freq = (1 - smooth_factor) * inv_freq_llama / factor + smooth_factor * inv_freq_llama
    is_medium_freq = ~(wavelen < high_freq_wavelen) * ~(wavelen > low_freq_wavelen)
    return np.where(is_medium_freq, smoothed_inv_freq, inv_freq_llama)


# --- ALiBi (ofirpress/attention_with_linear_biases, verbatim) ---------------------------------

def get_slopes(n):
    def get_slopes_power_of_2(n):
        start = (2**(-2**-(math.log2(n)-3)))
        ratio = start
        return [start*ratio**i for i in range(n)]

    if math.log2(n).is_integer():
        return get_slopes_power_of_2(n)
    else:
        closest_power_of_2 = 2**math.floor(math.log2(n))
        return get_slopes_power_of_2(closest_power_of_2) + get_slopes(2*closest_power_of_2)[0::2][:n-closest_power_of_2]


def alibi(T, m, causal):
    i = np.arange(T)[:, None]
    j = np.arange(T)[None, :]
    if causal:
        return np.where(j <= i, -m * (i - j), 0.0)
    return -m * np.abs(i - j)


# --- T5 (HF T5Attention._relative_position_bucket; torch float32 → np.float32) -----------------

def relative_position_bucket(relative_position, bidirectional=True, num_buckets=32, max_distance=128):
    relative_position = np.asarray(relative_position, dtype=np.int64)
    relative_buckets = np.zeros_like(relative_position)
    if bidirectional:
        num_buckets //= 2
        relative_buckets += (relative_position > 0).astype(np.int64) * num_buckets
        relative_position = np.abs(relative_position)
    else:
        relative_position = -np.minimum(relative_position, np.zeros_like(relative_position))
    max_exact = num_buckets // 2
    is_small = relative_position < max_exact
    with np.errstate(divide="ignore", invalid="ignore"):
        scaled = (np.log(relative_position.astype(np.float32) / np.float32(max_exact))
                  / np.float32(math.log(max_distance / max_exact))
                  * np.float32(num_buckets - max_exact))
        scaled = np.where(np.isfinite(scaled), scaled, 0)  # log(0) only where is_small anyway
        relative_position_if_large = max_exact + scaled.astype(np.int64)
    relative_position_if_large = np.minimum(relative_position_if_large, num_buckets - 1)
    relative_buckets += np.where(is_small, relative_position, relative_position_if_large)
    return relative_buckets


def t5_bucket_map(T, bidirectional, num_buckets, max_distance):
    context_position = np.arange(T)[:, None]
    memory_position = np.arange(T)[None, :]
    return relative_position_bucket(memory_position - context_position, bidirectional, num_buckets, max_distance)


# --- Shaw et al. 2018 ---------------------------------------------------------------------------

def shaw_terms(Q, aK, aV, weights, k):
    T = Q.shape[0]
    score = np.zeros((T, T))
    value = np.zeros((T, aV.shape[1]))
    for i in range(T):
        for j in range(T):
            r = min(max(j - i, -k), k) + k
            score[i, j] = Q[i] @ aK[r]
            value[i] += weights[i, j] * aV[r]
    return score, value


# --- 2-D RoPE (naver-ai/rope-vit, complex form) ------------------------------------------------

def init_t_xy(end_x, end_y):
    t = np.arange(end_x * end_y, dtype=np.float64)
    return t % end_x, np.floor(t / end_x)


def compute_axial_cis(dim, end_x, end_y, theta):
    freqs = 1.0 / (theta ** (np.arange(0, dim, 4)[: (dim // 4)].astype(np.float64) / dim))
    t_x, t_y = init_t_xy(end_x, end_y)
    cis_x = np.exp(1j * np.outer(t_x, freqs))
    cis_y = np.exp(1j * np.outer(t_y, freqs))
    return np.concatenate([cis_x, cis_y], axis=-1)


def compute_mixed_cis(fx, fy, end_x, end_y):
    t_x, t_y = init_t_xy(end_x, end_y)
    return np.exp(1j * (np.outer(t_x, fx) + np.outer(t_y, fy)))


def apply_rotary_emb(x, freqs_cis):
    xc = x[:, 0::2] + 1j * x[:, 1::2]  # view_as_complex(x.reshape(..., -1, 2))
    out = xc * freqs_cis
    return np.stack([out.real, out.imag], axis=-1).reshape(x.shape)


def with_cls(x, freqs_cis):
    """rope-vit rotates x[:, 1:] and leaves the class token x[:, 0] as it is."""
    out = x.copy()
    out[1:] = apply_rotary_emb(x[1:], freqs_cis)
    return out


def main():
    # Additive.
    emit("enc_integer_T5_d3", integer_pe(5, 3))
    emit("enc_normalized_T5_d3_N5", normalized_pe(5, 3, 5))
    emit("enc_normalized_T4_d2_N9", normalized_pe(4, 2, 9))
    emit("enc_binary01_T6_d4", binary_pe(6, 4, False))
    emit("enc_binarypm_T6_d4", binary_pe(6, 4, True))
    emit("enc_binary01_T9_d3", binary_pe(9, 3, False))

    # RoPE scaling: one row of θ' per configuration.
    emit("enc_rs_none_d64_b10000", default_inv_freq(10000.0, 64))
    emit("enc_rs_linear_d64_b10000_s4", linear_inv_freq(10000.0, 64, 4.0))
    emit("enc_rs_ntk_d64_b10000_s4", ntk_inv_freq(10000.0, 64, 4.0))
    emit("enc_rs_ntk_d128_b500000_s32", ntk_inv_freq(500000.0, 128, 32.0))
    emit("enc_rs_dynamic_d64_b10000_s4_L2048_T3000", dynamic_inv_freq(10000.0, 64, 4.0, 2048, 3000))
    emit("enc_rs_dynamic_d64_b10000_s4_L2048_T2048", dynamic_inv_freq(10000.0, 64, 4.0, 2048, 2048))
    for base, s, L in [(10000.0, 4.0, 2048), (500000.0, 32.0, 8192), (100.0, 4.0, 2048)]:
        inv, scale = yarn_inv_freq(base, 64, s, L)
        emit(f"enc_rs_yarn_d64_b{int(base)}_s{int(s)}_L{L}", inv)
        emit(f"enc_rs_yarn_d64_b{int(base)}_s{int(s)}_L{L}_scale", [[scale]])
    emit("enc_rs_llama3_d64_b500000_s32_L8192", llama3_inv_freq(500000.0, 64, 32.0, 1.0, 4.0, 8192))
    emit("enc_rs_llama3_d128_b500000_s8_L8192", llama3_inv_freq(500000.0, 128, 8.0, 1.0, 4.0, 8192))
    emit("enc_rs_llama3_d64_b10000_s4_L2048", llama3_inv_freq(10000.0, 64, 4.0, 1.0, 4.0, 2048))

    # ALiBi.
    for n in (8, 12, 6):
        emit(f"enc_alibi_slopes_{n}", get_slopes(n))
    emit("enc_alibi_causal_T5_m0p5", alibi(5, 0.5, True))
    emit("enc_alibi_symmetric_T5_m0p25", alibi(5, 0.25, False))

    # T5 bucket maps B[i, j] = bucket(j − i), and buckets over a wide range of j − i.
    for nb, md in [(32, 128), (16, 20)]:
        emit(f"enc_t5_bidirectional_T40_nb{nb}_md{md}", t5_bucket_map(40, True, nb, md))
        emit(f"enc_t5_causal_T40_nb{nb}_md{md}", t5_bucket_map(40, False, nb, md))
        rel = np.arange(-400, 401)
        emit(f"enc_t5_bidirectional_range400_nb{nb}_md{md}", relative_position_bucket(rel, True, nb, md))
        emit(f"enc_t5_causal_range400_nb{nb}_md{md}", relative_position_bucket(rel, False, nb, md))

    # Shaw et al.: T = 4, d_h = 3, clip k = 1 on fixed inputs.
    rng = np.random.default_rng(2018)
    Q = np.round(rng.normal(size=(4, 3)), 3)
    aK = np.round(rng.normal(size=(3, 3)), 3)
    aV = np.round(rng.normal(size=(3, 3)), 3)
    logits = rng.normal(size=(4, 4))
    weights = np.round(np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True), 4)
    score, value = shaw_terms(Q, aK, aV, weights, 1)
    for name, m in [("Q", Q), ("keys", aK), ("values", aV), ("weights", weights),
                    ("score", score), ("value", value)]:
        emit(f"enc_shaw_{name}", m)

    # 2-D RoPE on a 3 × 2 grid, head_dim 8, with a class token first.
    x = np.round(np.random.default_rng(2024).normal(size=(7, 8)), 3)
    emit("enc_ropend_input", x)
    emit("enc_ropend_axial_W3_H2_d8_b100", with_cls(x, compute_axial_cis(8, 3, 2, 100.0)))
    mag = 1.0 / (10.0 ** (np.arange(0, 8, 4)[:2].astype(np.float64) / 8))
    phi = 0.7
    fx = np.concatenate([mag * np.cos(phi), mag * np.cos(np.pi / 2 + phi)])
    fy = np.concatenate([mag * np.sin(phi), mag * np.sin(np.pi / 2 + phi)])
    emit("enc_ropend_mixed_fx", fx)
    emit("enc_ropend_mixed_fy", fy)
    emit("enc_ropend_mixed_W3_H2_d8", with_cls(x, compute_mixed_cis(fx, fy, 3, 2)))


if __name__ == "__main__":
    main()
