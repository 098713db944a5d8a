#!/bin/sh
# Configures and builds the project with CMake presets (default: release).
#   scripts/build.sh [release|debug|asan|fuzz] [TARGET...]
# With targets, builds only those (scripts/demo.sh builds just the tools the
# demo runs); without, everything (tools, tests, benchmarks).
set -eu
cd "$(dirname "$0")/.."
preset=${1:-release}
[ $# -gt 0 ] && shift
if [ ! -f "build/$preset/build.ninja" ]; then
  cmake --preset "$preset" >/dev/null
fi
jobs=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)
if [ $# -gt 0 ]; then
  cmake --build --preset "$preset" -j "$jobs" --target "$@"
else
  cmake --build --preset "$preset" -j "$jobs"
fi
