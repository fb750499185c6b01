#!/usr/bin/env bash
# Issue 35: which GEMM library multiplies the forward pass's activations by its weights fastest on
# this machine. Installs Debian's -dev packages of oneDNN, OpenBLAS, BLIS and libxsmm (what is
# missing), builds build/gemm_choice with whichever were found, and runs it on $THREADS (2) threads:
# each library's GFLOP/s on the Llama-3.2-1B-shaped products at T = 1 … 4096, as Markdown tables
# (progress on stderr). Not a test. Takes 3–5 minutes on 2 cores.
# OPENBLAS=openmp runs the same binary on OpenBLAS's OpenMP build (libopenblas0-openmp: the same
# soname, found first through LD_LIBRARY_PATH), which shares OpenMP's threads with PosLab instead
# of keeping a pool of its own; the system's choice of OpenBLAS is left as it is.
# Usage: [OPENBLAS=pthread|openmp] bench/gemm_choice_run.sh [gemm_choice options: --t 1,16 --shapes q/o,lm
#        --libs … (see bench/gemm_choice.cpp)]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
build=${BUILD:-build}
threads=${THREADS:-2}
# OpenBLAS's pthreads build (libopenblas-dev's first choice, and the libopenblas0-pthread the other
# bench scripts' PyTorch runs on), so OpenBLAS keeps its own thread pool; BLIS's OpenMP build
# (libblis-dev's first choice), which shares OpenMP's threads with PosLab, oneDNN and libxsmm.
variant=${OPENBLAS:-pthread}
packages=(libdnnl-dev libopenblas-pthread-dev libopenblas-dev libblis-openmp-dev libblis-dev libxsmm-dev)
case "$variant" in
  pthread) ;;
  openmp) packages+=(libopenblas0-openmp) ;;
  *) echo "OPENBLAS=$variant: pthread or openmp" >&2; exit 2 ;;
esac
source bench/install_missing.sh "${packages[@]}"
if [ "$variant" = openmp ]; then
  openmp_dir=$(dirname "$(dpkg -L libopenblas0-openmp | grep '/libopenblas\.so\.0$')")
  export LD_LIBRARY_PATH=$openmp_dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fi
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j "$(nproc)" --target gemm_choice >/dev/null
# Every library on the same number of threads: OpenMP's (PosLab, oneDNN, BLIS, libxsmm) and
# OpenBLAS's own.
export OMP_NUM_THREADS=$threads OPENBLAS_NUM_THREADS=$threads BLIS_NUM_THREADS=$threads
exec "$build/gemm_choice" "$@"
