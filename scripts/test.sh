#!/bin/sh
# Quick start, command two: install what is missing, build, run every test.
#   scripts/test.sh [release|asan|fuzz]   (extra ctest arguments via CTEST_ARGS)
set -eu
cd "$(dirname "$0")/.."
preset=${1:-release}
scripts/setup.sh --test
scripts/build.sh "$preset"
jobs=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)
ctest --preset "$preset" -j "$jobs" ${CTEST_ARGS:-}
