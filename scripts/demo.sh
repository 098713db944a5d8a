#!/bin/sh
# Quick start, command one: install what is missing, build, and make an
# interactive flame graph and the HTML report of the demo capture shipped in
# testdata/demo.hwt (a software-recorded run of testdata/programs/demo.c, a
# tiny interpreter). The report is written next to the flame graph.
#   scripts/demo.sh [OUTPUT.svg]     (default: out/demo-flame.svg,
#                                     out/demo-flame.report.html)
set -eu
cd "$(dirname "$0")/.."
out=${1:-out/demo-flame.svg}
scripts/setup.sh
scripts/build.sh release hwt-report hwt-decode
report=${out%.svg}.report.html
mkdir -p "$(dirname "$out")"
build/release/tools/hwt-report --flame="$out" --html="$report" testdata/demo.hwt
build/release/tools/hwt-decode --stats testdata/demo.hwt
echo
echo "demo: flame graph written to $(cd "$(dirname "$out")" && pwd)/$(basename "$out")"
echo "demo: open it in a browser (click to zoom, Ctrl-F or 'Search' to highlight functions)"
echo "demo: HTML report written to $(cd "$(dirname "$report")" && pwd)/$(basename "$report")"
echo "demo: overview, flame graph, functions with their disassembly, hot spots ('/' searches)"
