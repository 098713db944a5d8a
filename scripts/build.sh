#!/bin/sh
# Configures and builds the project with CMake presets (default: release).
#   scripts/build.sh [release|debug|asan|fuzz]
set -eu
cd "$(dirname "$0")/.."
preset=${1:-release}
if [ ! -f "build/$preset/build.ninja" ]; then
  cmake --preset "$preset" >/dev/null
fi
jobs=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)
cmake --build --preset "$preset" -j "$jobs"
