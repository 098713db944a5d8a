#!/usr/bin/env bash
# The benchmark suite in one command: builds the benchmark programs, makes
# the inputs once (synthetic Intel PT traces, a software recording of
# testdata/programs/hot.c), then prints per case MiB/s, M instructions/s,
# instructions per trace byte, peak memory and the ratio against the
# baseline run in the same process on the same data (bare libipt block
# decoder for PT, the bare OpenCSD library decode for CoreSight, with
# OpenCSD's trc_pkt_lister as a process beside it), and the SPE and
# symbolizer benchmarks. The machine may be shared: every case is repeated
# and runs under nice; compare best and median. --batch adds hwt-batch
# (bench/batch_bench: run over 200 tiny and 8 large recordings, jobs 1 and
# 2, and merge of 1 to 1,000 profiles; 2-4 minutes), --batch-only
# runs just that.
#
#   scripts/bench.sh [--quick] [--reps N] [--mib N] [--jobs N]
#                    [--batch | --batch-only]
#   HWT_BENCH_DATA=DIR keeps the generated inputs elsewhere (default
#   build/release/bench-data); HWT_CORPUS_DIR as for the tests.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
reps=3
mib=32
jobs=0
quick=0
batch=0
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) quick=1; reps=1; mib=4 ;;
    --reps) reps=$2; shift ;;
    --mib) mib=$2; shift ;;
    --jobs) jobs=$2; shift ;;
    --batch) batch=1 ;;
    --batch-only) batch=2 ;;
    *) echo "usage: scripts/bench.sh [--quick] [--reps N] [--mib N] [--jobs N]" \
         "[--batch | --batch-only]" >&2
       exit 2 ;;
  esac
  shift
done

build=$root/build/release
data=${HWT_BENCH_DATA:-$build/bench-data}
corpus=${HWT_CORPUS_DIR:-$root/../shared/corpus}
mkdir -p "$data"

cmake --preset release >/dev/null
targets=(hwt-emulate hot_static)
if [ "$batch" != 2 ]; then
  targets+=(hwt_bench spe_bench symbolizer_bench recorder_bench)
fi
if [ "$batch" != 0 ]; then
  targets+=(batch_bench hwt-batch fib_static)
fi
nice cmake --build --preset release --target "${targets[@]}" >/dev/null

echo "machine: $(uname -srm), $(getconf _NPROCESSORS_ONLN) cores," \
  "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')," \
  "load $(cut -d' ' -f1-3 /proc/loadavg); $(date -u '+%Y-%m-%d %H:%M UTC')"

# hwt-batch: a tiny recording (hot.c, sieve of 1,000: 62 k instructions,
# 3 KiB of PT) copied 200 times, and a large one (fib.c 32: 102 M
# instructions, 2.3 MiB of PT) copied 8 times.
run_batch_bench() {
  if ! command -v valgrind >/dev/null; then
    echo "no valgrind: skipping hwt-batch (its inputs are recordings)"
    return 0
  fi
  local tiny=$data/batch-tiny.hwt large=$data/batch-large.hwt
  [ -d "$tiny" ] || nice "$build/tools/hwt-emulate" --recorder valgrind \
    -o "$tiny" -- "$build/testdata/programs/hot_static" 1000 >/dev/null
  [ -d "$large" ] || nice "$build/tools/hwt-emulate" --recorder valgrind \
    -o "$large" -- "$build/testdata/programs/fib_static" 32 >/dev/null
  echo
  echo "Batch analysis (hwt-batch run and merge):"
  nice "$build/bench/batch_bench" --data "$data/batch" --reps "$reps" \
    --tiny "$tiny" --large "$large"
}
if [ "$batch" = 2 ]; then
  run_batch_bench
  exit
fi

args=(--data "$data" --reps "$reps" --jobs "$jobs" --synthetic-mib "$mib")

# A real program recorded in software (valgrind), encoded as genuine PT.
hot=$data/hot.hwt
if [ ! -d "$hot" ] && command -v valgrind >/dev/null; then
  echo "recording testdata/programs/hot.c (valgrind) into $hot ..."
  nice "$build/tools/hwt-emulate" --recorder valgrind -o "$hot" \
    -- "$build/testdata/programs/hot_static" 1000000 >/dev/null ||
    echo "recording failed: skipping the recorded trace"
fi
[ -d "$hot" ] && args+=(--capture "$hot")

snapshot=$corpus/opencsd/snapshots/bugfix-exact-match
if [ -d "$snapshot" ]; then
  args+=(--coresight "$snapshot")
else
  echo "no corpus at $corpus: skipping CoreSight"
fi

nice "$build/bench/hwt_bench" "${args[@]}"

if [ "$quick" = 1 ]; then
  gb=(--benchmark_min_time=0.1)
else
  gb=(--benchmark_repetitions="$reps" --benchmark_report_aggregates_only=true)
fi
echo
echo "SPE decode (records/s, MiB/s):"
nice "$build/bench/spe_bench" "${gb[@]}"
echo
echo "Symbolization per unique address (function only, inline + line):"
nice "$build/bench/symbolizer_bench" "${gb[@]}"
echo
echo "Recording (hwt-emulate: valgrind and ptrace, fib 31, static and dynamic):"
nice "$build/bench/recorder_bench" 31
if [ "$batch" = 1 ]; then
  run_batch_bench
fi
