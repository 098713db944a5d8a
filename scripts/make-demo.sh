#!/bin/sh
# Regenerates testdata/demo.hwt, the demo capture: testdata/programs/demo.c
# (a tiny interpreter: lexer, parser, hash table, tree-walking evaluator,
# merge sort) built statically, so that the capture does not depend on this
# machine's libc, recorded with hwt-emulate (ptrace single-stepping, timing
# packets on: TSC, MTC and cycle counts) into a bundle with its image and
# truth/, packed as one zstd-compressed tar file.
#   scripts/make-demo.sh [BUILD_DIR]     (default: build/release)
# The run is deterministic on one machine: a fixed program path (its length
# moves the stack, which glibc's string functions notice), a fixed minimal
# environment, no address randomization (the recorder's default), a fixed
# creation time (SOURCE_DATE_EPOCH) and a normalized tar. The manifest still
# names this machine's host name and kernel, and the bundle holds its vDSO.
# tests/e2e/demo_e2e_test.cc decodes the committed file and checks it
# against its truth/ exactly; run it after regenerating.
set -eu
cd "$(dirname "$0")/.."
build=${1:-build/release}
if [ ! -f "$build/build.ninja" ]; then
  cmake --preset release >/dev/null
fi
cmake --build "$build" --target demo_static hwt-emulate >/dev/null

# The recorded path is the program's: keep it short, neutral and fixed.
work=/tmp/hwt-demo
rm -rf "$work"
mkdir "$work"
trap 'rm -rf "$work"' EXIT
cp "$build/testdata/programs/demo_static" "$work/demo"
env -i PATH=/usr/bin:/bin LANG=C SOURCE_DATE_EPOCH=1795996800 \
  "$build/tools/hwt-emulate" --timing tsc,mtc,cyc \
  --program-output "$work/demo.out" -o "$work/demo.hwt" -- "$work/demo"
tar -C "$work" -cf - --owner=0 --group=0 --numeric-owner --sort=name \
  --mtime=@1795996800 demo.hwt | zstd -q -19 >"$work/demo.tar.zst"
mv "$work/demo.tar.zst" testdata/demo.hwt
ls -l testdata/demo.hwt
