#!/usr/bin/python3
"""Prints the benchmark table with the ratios the targets are stated in."""
import json
import sys

bench = json.load(open(sys.argv[1]))
rows = {}
for b in bench["benchmarks"]:
    name, T, causal = b["name"].split("/")[:3]
    rows[(name.replace("BM_", ""), int(T), causal == "1")] = (b["real_time"], b.get("GFLOP/s", 0.0), b.get("max_err", 0.0))
for line in open(sys.argv[2]):
    r = json.loads(line)
    rows[("NumPy", r["T"], r["causal"])] = (r["ms"], r["gflops"], 0.0)

print(f"\n{bench['context'].get('host_name', '')}  {bench['context'].get('num_cpus', '?')} CPUs")
print(f"{'T':>5} {'causal':>6} | {'tiled ms':>9} {'GF/s':>6} | {'naive ms':>9} {'GF/s':>6} {'naive err':>9} | "
      f"{'Eigen ms':>9} {'GF/s':>6} | {'NumPy ms':>9} {'GF/s':>6} | {'tiled/naive':>11} {'Eigen/NumPy':>11}")
for T in (512, 2048, 4096):
    for causal in (False, True):
        t, n, e, p = (rows.get((k, T, causal)) for k in ("TiledShader", "NaiveShader", "EigenCpu", "NumPy"))
        if not all((t, n, e, p)):
            continue
        print(f"{T:>5} {str(causal):>6} | {t[0]:>9.1f} {t[1]:>6.2f} | {n[0]:>9.1f} {n[1]:>6.2f} {n[2]:>9.2g} | "
              f"{e[0]:>9.1f} {e[1]:>6.1f} | {p[0]:>9.1f} {p[1]:>6.1f} | {n[0] / t[0]:>10.2f}x {p[0] / e[0]:>10.2f}x")

print(f"\n{'T':>5} {'causal':>6} | {'register ms':>11} {'GF/s':>6} {'max err':>8} | {'tiled ms':>9} {'GF/s':>6} | {'register/tiled':>14}")
for T in (512, 2048, 4096):
    for causal in (False, True):
        r, t = rows.get(("RegisterShader", T, causal)), rows.get(("TiledShader", T, causal))
        if r and t:
            print(f"{T:>5} {str(causal):>6} | {r[0]:>11.1f} {r[1]:>6.2f} {r[2]:>8.2g} | {t[0]:>9.1f} {t[1]:>6.2f} | {t[0] / r[0]:>13.2f}x")
