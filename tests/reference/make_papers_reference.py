#!/usr/bin/python3
"""Independent reference values for "Papers, checked" (tests/core_papers_test.cpp), written from the
papers' formulas, not from PosLab's C++:
  - RoFormer §3.4.3: (1/(d/2))·Σ_{j=1}^{d/2} |S_j|, S_j = Σ_{k<j} e^{i m θ_k}, θ_k = base^(−2k/d);
  - ALiBi: get_slopes from ofirpress/attention_with_linear_biases, copied verbatim;
  - YaRN: the paper's γ(r) (§3.2) and the authors' _yarn_find_correction_range /
    _yarn_linear_ramp_mask; the temperature 0.1·ln(s) + 1 (§3.4);
  - Liu et al. 2023: d_extra = 2·ceil((d/2)·log_base(T/2π));
  - Men et al. 2024: the smallest base on the grid 2·1.001^k (each length's search starting at the
    previous length's answer) with Σ_i cos(m θ_i) ≥ 0 for m = 0 … L, refined by bisection on log(base).
Run with Debian's python3-numpy:
  /usr/bin/python3 make_papers_reference.py > papers_reference.txt
Format: `name rows cols values…` per line; every name starts with pap_.
"""
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_encodings_reference as enc  # noqa: E402

D, BASE = 128, 10000.0


def emit(name, m):
    m = np.atleast_2d(np.asarray(m, dtype=np.float64))
    print(f"{name} {m.shape[0]} {m.shape[1]} " + " ".join(repr(float(v)) for v in m.ravel()))


def thetas(d, base):
    return base ** (-2.0 * np.arange(d // 2, dtype=np.float64) / d)


def roformer_bound(m, d=D, base=BASE):
    S = np.cumsum(np.exp(1j * m * thetas(d, base)))
    return np.abs(S).sum() / (d // 2)


# ALiBi's slopes as the authors' code computes them: make_encodings_reference.get_slopes.
get_slopes = enc.get_slopes


def yarn_paper_share(d, base, L, beta_fast, beta_slow):
    r = L * thetas(d, base) / (2 * math.pi)
    gamma = np.clip((r - beta_slow) / (beta_fast - beta_slow), 0.0, 1.0)
    return 1.0 - gamma


def yarn_code_share(d, base, L, beta_fast, beta_slow):
    def find_correction_dim(num_rotations):
        return (d * math.log(L / (num_rotations * 2 * math.pi))) / (2 * math.log(base))
    low = max(math.floor(find_correction_dim(beta_fast)), 0)
    high = min(math.ceil(find_correction_dim(beta_slow)), d - 1)
    if low == high:
        high += 0.001
    return np.clip((np.arange(d // 2, dtype=np.float64) - low) / (high - low), 0, 1)


def stays_nonnegative(base, L, d=D):
    th = thetas(d, base)
    for start in range(0, L + 1, 512):
        m = np.arange(start, min(L + 1, start + 512), dtype=np.float64)
        if np.cos(np.outer(m, th)).sum(axis=1).min() < 0:
            return False
    return True


def smallest_base(L, start, ratio=1.001):
    k = 0
    while True:
        base = start * ratio**k
        if stays_nonnegative(base, L):
            if k == 0:
                return base
            failing, passing = start * ratio**(k - 1), base
            for _ in range(40):
                if passing / failing <= 1 + 1e-6:
                    break
                mid = math.sqrt(failing * passing)
                if stays_nonnegative(mid, L):
                    passing = mid
                else:
                    failing = mid
            return passing
        k += 1


emit("pap_roformer_m", [0, 1, 2, 5, 10, 20, 50, 100, 150, 200, 250, 1000])
emit("pap_roformer_bound", [roformer_bound(m) for m in [0, 1, 2, 5, 10, 20, 50, 100, 150, 200, 250, 1000]])
for n in (8, 12, 16):
    emit(f"pap_alibi_{n}", get_slopes(n))
emit("pap_yarn_paper_share", yarn_paper_share(D, BASE, 4096, 32.0, 1.0))
emit("pap_yarn_code_share", yarn_code_share(D, BASE, 4096, 32.0, 1.0))
emit("pap_yarn_temperature", [0.1 * math.log(16) + 1, 0.1 * math.log(32) + 1])
emit("pap_critical_dimension", [2 * math.ceil(D / 2 * math.log(4096 / (2 * math.pi)) / math.log(BASE))])
emit("pap_same_vector_score", [2 * np.cos(m * thetas(D, BASE)).sum() for m in (1, 10, 100, 1000)])
bases, start = [], 2.0
for L in (1024, 2048, 4096):
    start = smallest_base(L, start)
    bases.append(start)
emit("pap_min_base_1k_2k_4k", bases)
