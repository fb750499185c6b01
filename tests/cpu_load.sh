#!/usr/bin/env bash
# A CPU load beside the GUI tests (the ctest fixture cpu_load, which every Gui.* test requires):
# with POSLAB_TEST_LOAD=N in ctest's environment, `start` runs N stress-ng CPU workers until
# `stop`, so that the GUI tests run on a busy machine, as they do while others compile, and a wait
# for a fixed time instead of a condition shows up as a failure. Without it both do nothing.
#   tests/cpu_load.sh start|stop PIDFILE
set -euo pipefail
pidfile=$2
workers=${POSLAB_TEST_LOAD:-0}
percent=${POSLAB_TEST_LOAD_PERCENT:-100}
case "$1" in
  start)
    [ "$workers" -gt 0 ] || { echo "no CPU load (POSLAB_TEST_LOAD is ${POSLAB_TEST_LOAD:-unset})"; exit 0; }
    command -v stress-ng >/dev/null || { echo "FAIL: POSLAB_TEST_LOAD=$workers needs stress-ng"; exit 1; }
    # Its own session and no pipe to ctest (which would wait for the pipe to close); the time-out
    # ends it should `stop` never run (an interrupted ctest).
    setsid stress-ng --cpu "$workers" --cpu-load "$percent" --timeout 3600s >/dev/null 2>&1 </dev/null &
    echo $! >"$pidfile"
    echo "CPU load: $workers stress-ng workers at $percent % (pid $!) beside the GUI tests"
    ;;
  stop)
    [ -s "$pidfile" ] || exit 0
    kill -TERM "$(cat "$pidfile")" 2>/dev/null || true
    rm -f "$pidfile"
    echo "CPU load stopped"
    ;;
  *) echo "usage: tests/cpu_load.sh start|stop PIDFILE" >&2; exit 2 ;;
esac
