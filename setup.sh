#!/usr/bin/env bash
# PosLab's one entry point for a fresh Debian 12 machine:
#   ./setup.sh run    install what is missing, build, start the GUI on the default embeddings
#   ./setup.sh test   install what is missing, build, run every test (GUI tests under Xvfb)
#   ./setup.sh build  install what is missing and build only
# Extra arguments after `run` go to poslab (e.g. ./setup.sh run --sentence "May the force be with you.").
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"

mode=${1:-run}
shift || true

# Debian 12 packages: compiler and build tools, the libraries (PCRE2 and ICU for the tokenizer's
# regexes and Unicode normalization), the GL loader generator, Mesa
# (llvmpipe gives OpenGL 4.5 with compute shaders on machines without a GPU), the fonts (DejaVu;
# Noto CJK for the tour in Japanese), rsvg-convert for the PNG icons, FFmpeg's libraries for
# animations (MP4 through libx264, GIF), and
# for the tests GoogleTest, Xvfb and xdotool; pybind11, Python's headers, NumPy and tqdm for the
# Python module (`import poslab`, src/python).
packages=(
  build-essential cmake pkg-config ccache
  libimgui-dev libglfw3-dev python3-glad libeigen3-dev libstb-dev libegl-dev libgl-dev nlohmann-json3-dev libpcre2-dev libicu-dev
  libgl1-mesa-dri libegl-mesa0 libglx-mesa0 fonts-dejavu-core fonts-noto-cjk librsvg2-bin
  libgtest-dev googletest xvfb xauth xdotool
  libavcodec-dev libavformat-dev libswscale-dev libavutil-dev zlib1g-dev
  libcurl4-openssl-dev libssl-dev
  pybind11-dev python3-dev python3-numpy python3-tqdm
)

install_missing() {
  local missing=()
  for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "setup: installing ${missing[*]}"
  local sudo=()
  [ "$(id -u)" -eq 0 ] || sudo=(sudo)
  "${sudo[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

build() {
  # ccache keeps compiled objects between builds (and between checkouts: paths under the
  # checkout are taken relative to it), so a rebuild after a small change takes seconds. A file
  # compiled with a precompiled header (CMakeLists.txt) is cached only with the sloppiness ccache's
  # manual names for them (no source here uses __DATE__ or __TIME__); it is in the launcher, so
  # that every build of build/ has it, also `cmake --build build` without this script.
  export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$PWD} CCACHE_NOHASHDIR=1
  local launcher="env;CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime;ccache"
  # -g1: line tables and function names, so backtraces and profiles still name every function,
  # file and line, without full -g's types and variables, which cost a fifth of a cold build's CPU.
  cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG" "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG" \
    "-DCMAKE_C_COMPILER_LAUNCHER=$launcher" "-DCMAKE_CXX_COMPILER_LAUNCHER=$launcher" >/dev/null
  cmake --build build -j "$(nproc)"
}

# Each phase's time, printed together at the end of a test run (CI shows the tail of the log).
# A failing phase ends the script (set -e); the trap then says which one, and the times so far.
phase_times=()
current_phase=
timed() {
  local start=$SECONDS
  current_phase=$1
  shift
  "$@"
  phase_times+=("$current_phase $((SECONDS - start)) s")
  current_phase=
}
# A background job of the test run (the sanitized build) stops with the script.
background_job=
phase_report() {
  local status=$?
  [ -z "$background_job" ] || kill -- "-$background_job" 2>/dev/null || true
  [ "$status" -eq 0 ] || [ -z "$current_phase" ] ||
    echo "setup: $current_phase failed (exit $status) after $SECONDS s; before it: $(IFS=,; echo "${phase_times[*]}" | sed 's/,/, /g')" >&2
}
trap phase_report EXIT

timed install install_missing
# What only the tests need is installed, and the package test's fresh Debian root made, in the
# background while the project builds: downloading and unpacking are network and disk time the
# compilers do not need. The tests wait for it (wait_for_test_packages).
test_packages_job=
if [ "$mode" = test ]; then
  # The tokenizer test fetches its reference with npm (Debian's nodejs and npm if none is
  # here); the sanitized build (fuzzers, parser tests, GUI) needs clang, its libFuzzer and
  # sanitizer runtime and its OpenMP (libomp).
  # NumPy writes the tiny model folders and their independent forward passes.
  # The install and package tests: desktop-file-validate, man, xprop (the window's class), xrdb
  # (Xft.dpi for the HiDPI test) and debootstrap (a fresh Debian root to install the .deb into).
  # stress-ng loads the CPU while the GUI tests run (below).
  # nbclient and ipykernel run the notebooks (notebooks/) headless against the Python module.
  # Chromium, its driver and Selenium open the interactive HTML pages in a real browser.
  # QEMU's user mode runs the build as a processor without AVX (tests/portable_test.sh).
  packages=(clang libclang-rt-14-dev libomp-14-dev python3-numpy desktop-file-utils man-db x11-utils x11-xserver-utils debootstrap python3-torch
    stress-ng python3-nbclient python3-ipykernel chromium chromium-driver python3-selenium qemu-user)
  command -v npm >/dev/null 2>&1 || packages+=(nodejs npm)
  mkdir -p build
  (
    install_missing
    # The package test's root (unless one from today is there): made here or, where it cannot be
    # (not root, no mirror), by the test itself, which then says why it skips that part.
    [ -n "$(find build/fresh-root/.complete -mmin -720 2>/dev/null)" ] || tests/fresh_root.sh build/fresh-root || true
  ) >build/test-packages.log 2>&1 &
  test_packages_job=$!
fi
wait_for_test_packages() {
  wait "$test_packages_job" || { cat build/test-packages.log; echo "setup: installing the test packages failed" >&2; return 1; }
  grep -v '^a fresh' build/test-packages.log || true
}
timed build build
case "$mode" in
  run)
    if [ -z "${DISPLAY:-}" ] && [ -z "${WAYLAND_DISPLAY:-}" ]; then
      echo "setup: no display here. Headless, try:"
      echo "  build/poslab export attention --png attention.png --csv attention.csv"
      echo "  xvfb-run -a build/poslab --screenshot poslab.png"
      exit 1
    fi
    exec build/poslab "$@"
    ;;
  test)
    timed "test packages" wait_for_test_packages
    # One stress-ng CPU worker, busy half the time, runs while the Gui.* tests do (the cpu_load
    # fixture, tests/cpu_load.sh), so that a GUI test waiting a fixed time instead of for what
    # the window shows fails here and not only on a busy machine; half a core, beside ctest's two
    # jobs on two, so as not to lengthen the run much. POSLAB_TEST_LOAD=0 turns it off.
    # One build with AddressSanitizer and UBSan (clang, build-san) serves the four phases after
    # ctest: the parsers again, each fuzzer for a bounded time, the GUI under the monkey, the
    # hostile table. It compiles during ctest at the lowest priority, on the CPU time that ctest
    # leaves idle (the GUI tests wait on one display, one after another), so it slows no test;
    # after ctest the script waits for what is left of it.
    mkdir -p build-san
    # In a session of its own, so that a failing run stops it with all its compilers. A new
    # session is a new scheduling group where Linux groups by session (autogroup), and nice counts
    # only inside a group: so the group itself gets nice 19 too.
    setsid bash -c 'echo 19 >/proc/self/autogroup 2>/dev/null; exec nice -n 19 tests/sanitized_build.sh' \
      >build-san/background.log 2>&1 &
    background_job=$!
    # OpenMP's threads sleep when they wait instead of spinning: ctest runs two jobs on two cores,
    # and a job's spinning thread takes the core the other one needs. Two default trainings side
    # by side took 21.5 s spinning, 14–16 s sleeping (the same losses); alone, 10.6 s and 8.1 s.
    export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}
    POSLAB_TEST_LOAD=${POSLAB_TEST_LOAD:-1} POSLAB_TEST_LOAD_PERCENT=${POSLAB_TEST_LOAD_PERCENT:-50} \
      timed ctest ctest --test-dir build --output-on-failure -j 2
    wait_for_sanitized_build() { wait "$background_job" || { cat build-san/background.log; return 1; }; }
    timed "sanitized build (the part after ctest)" wait_for_sanitized_build
    export POSLAB_SANITIZED_BUILT=1
    # Three side by side: the parser tests; each fuzzer for a bounded time (on one core); and the
    # GUI built with the sanitizers under a seeded monkey (random clicks, drags, wheel, keys and
    # text in every tab) for 75 s: no crash, no report, no memory growth after the first minute.
    # The monkey keeps a person's pace and fails only on a freeze, never on a slow frame.
    parsers_and_fuzzers_beside_monkey() {
      local parsers_status=0 fuzz_status=0 monkey_status=0 parsers_pid fuzz_pid
      tests/sanitized_parsers.sh >build-san/parsers.log 2>&1 &
      parsers_pid=$!
      fuzz/run.sh "${POSLAB_FUZZ_SECONDS:-6}" >build-san/fuzzers.log 2>&1 &
      fuzz_pid=$!
      tests/gui_monkey.sh "${POSLAB_MONKEY_SECONDS:-75}" || monkey_status=$?
      wait "$parsers_pid" || parsers_status=$?
      wait "$fuzz_pid" || fuzz_status=$?
      cat build-san/parsers.log build-san/fuzzers.log
      [ "$parsers_status" -eq 0 ] || echo "setup: the sanitized parser tests failed (exit $parsers_status)" >&2
      [ "$fuzz_status" -eq 0 ] || echo "setup: a fuzzer failed (exit $fuzz_status)" >&2
      [ "$monkey_status" -eq 0 ] || echo "setup: the monkey failed (exit $monkey_status)" >&2
      [ "$parsers_status" -eq 0 ] && [ "$fuzz_status" -eq 0 ] && [ "$monkey_status" -eq 0 ]
    }
    timed "sanitized parsers and fuzzers beside the monkey" parsers_and_fuzzers_beside_monkey
    # The hostile-input table again, against that sanitized build: lying files and flag sets end
    # with a message, under AddressSanitizer and UBSan too.
    POSLAB_HOSTILE_BINARY="$PWD/build-san/poslab" POSLAB_HOSTILE_SANITIZED=1 \
      timed "sanitized hostile inputs" build/tests/app_hostile_tests --gtest_brief=1
    echo "setup: every test passed in $SECONDS s: $(IFS=,; echo "${phase_times[*]}" | sed 's/,/, /g')"
    ;;
  build) ;;
  *)
    echo "usage: ./setup.sh run|test|build" >&2
    exit 2
    ;;
esac
