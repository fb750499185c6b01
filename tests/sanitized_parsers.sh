#!/usr/bin/env bash
# The parser tests (parser_tests in tests/CMakeLists.txt: embeddings text and binary, .npy,
# safetensors, model folders, tokenizers, sessions, config.json, loading) built with
# AddressSanitizer and UndefinedBehaviorSanitizer in
# the sanitized build folder (build-san, tests/sanitized_build.sh), and run: any out-of-bounds
# read, leak or undefined behaviour fails.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
tests/sanitized_build.sh parser_tests
/usr/bin/python3 tests/reference/make_model_reference.py build-san/model_reference >/dev/null
/usr/bin/python3 tests/reference/make_family_reference.py build-san/model_reference >/dev/null
/usr/bin/python3 tests/reference/make_encoder_reference.py build-san/model_reference >/dev/null
/usr/bin/python3 tests/reference/make_wrapper_reference.py build-san/model_reference >/dev/null
/usr/bin/python3 tests/reference/make_design_reference.py build-san/model_reference >/dev/null
/usr/bin/python3 tests/reference/make_deepseek_reference.py build-san/model_reference >/dev/null
/usr/bin/python3 tests/reference/make_gemma4_reference.py build-san/model_reference >/dev/null
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  build-san/tests/parser_tests --gtest_brief=1
