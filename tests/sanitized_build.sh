#!/usr/bin/env bash
# The one sanitized build, build-san: clang with AddressSanitizer and UBSan, every file with
# libFuzzer's coverage (POSLAB_FUZZ), so that the core is compiled once for the three sanitized
# phases of ./setup.sh test: the parser tests (parser_tests, tests/sanitized_parsers.sh), the fuzzers
# (fuzz/run.sh) and the GUI under the monkey and the hostile table (poslab, tests/gui_monkey.sh).
# The core (and the fuzzers' own files) at -O1, as the fuzzers were before: they spend their time
# in it, and their inputs per second are what a bounded run is worth. Everything else at -O0, which
# compiles in about 55 % of -O1's time. Line tables only: a report's stack still names every
# function (inlined ones too), file and line, without full debug info's cost.
#   tests/sanitized_build.sh [TARGET...]   (default: parser_tests, poslab and the fuzzers)
set -euo pipefail
#   POSLAB_SANITIZED_BUILT=1: the build is known to be complete (./setup.sh test, once it has
#   waited for it): nothing to do, so that two scripts run side by side never build at once.
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
[ "${POSLAB_SANITIZED_BUILT:-0}" != 1 ] || exit 0
CC=clang CXX=clang++ cmake -S . -B build-san -DCMAKE_BUILD_TYPE=Debug -DPOSLAB_SANITIZE=ON -DPOSLAB_FUZZ=ON \
  "-DCMAKE_C_FLAGS_DEBUG=-O0 -gline-tables-only" "-DCMAKE_CXX_FLAGS_DEBUG=-O0 -gline-tables-only" \
  -DPOSLAB_CORE_OPTIONS=-O1 >/dev/null
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(parser_tests poslab fuzzers)
cmake --build build-san -j "$(nproc)" --target "${targets[@]}" >build-san/build.log 2>&1 ||
  { tail -n 40 build-san/build.log; echo "FAIL: the sanitized build (log: build-san/build.log)"; exit 1; }
