#!/bin/sh
# Builds the libFuzzer targets (the `fuzz` preset: clang-19, ASan + UBSan) and
# runs each for a bounded time, two at a time (one per core of a 2-core CI
# machine), then reports executions and coverage per target. Exit status 1 if any target found a crash, a hang or a
# broken invariant (the input is saved under the work directory's
# artifacts/TARGET/; reproduce with build/fuzz/fuzz/TARGET_fuzzer FILE).
#   scripts/fuzz.sh [SECONDS] [TARGET...]     (default: 60 s, every target)
# Environment:
#   HWT_FUZZ_WORK   work directory (default build/fuzz-work): grown corpora
#                   (corpus/TARGET, kept between runs), crash artifacts,
#                   logs, and history.tsv (one line per run and target)
#   HWT_CORPUS_DIR  the shared corpus (default ../shared/corpus); inputs from
#                   it are copied into a temporary directory, never the repo
#   HWT_FUZZ_ARGS   extra libFuzzer flags (e.g. -jobs=1 -workers=1)
#   HWT_FUZZ_PARALLEL  targets run at the same time (default 2)
set -eu
cd "$(dirname "$0")/.."
root=$(pwd)

seconds=60
case "${1:-}" in
  -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
  ''|*[!0-9]*) ;;
  *) seconds=$1; shift ;;
esac

if [ ! -f build/fuzz/build.ninja ]; then
  cmake --preset fuzz >/dev/null
fi
jobs=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)
cmake --build --preset fuzz -j "$jobs" --target hwt_fuzzers

# Every target is what the build made (fuzz/CMakeLists.txt's hwt_fuzzer
# calls), so a new fuzzer runs here without being listed twice.
all=$(cd build/fuzz/fuzz && ls -- *_fuzzer 2>/dev/null | sed 's/_fuzzer$//' | tr '\n' ' ')
[ -n "$all" ] || { echo "fuzz.sh: the build made no fuzzer" >&2; exit 1; }
targets=${*:-$all}
for t in $targets; do
  case " $all " in
    *" $t "*) ;;
    *) echo "fuzz.sh: unknown target '$t' (targets: $all)" >&2; exit 2 ;;
  esac
done

work=${HWT_FUZZ_WORK:-build/fuzz-work}
mkdir -p "$work"
work=$(cd "$work" && pwd)
shared=${HWT_CORPUS_DIR:-$root/../shared/corpus}
testdata=$root/testdata
dicts=$root/fuzz/dict
parallel=${HWT_FUZZ_PARALLEL:-2}
results=$(mktemp -d "${TMPDIR:-/tmp}/hwt-fuzz-results.XXXXXX")
trap 'rm -rf "$results"' EXIT

# Copies up to `limit` bytes of each shared-corpus file matching the patterns
# into $seeds (the corpus stays read-only and outside the repository).
copy_shared() {
  [ -d "$shared" ] || return 0
  limit=$1
  shift
  for pattern in "$@"; do
    for f in $shared/$pattern; do
      [ -f "$f" ] || continue
      name=$(echo "${f#$shared/}" | tr '/' '_')
      head -c "$limit" "$f" >"$seeds/shared-$name"
    done
  done
}

# Runs target $1 and writes its report line to $results/$1 (and "failed" to
# $results/$1.failed on a finding).
run_target() {
  t=$1
  bin=build/fuzz/fuzz/${t}_fuzzer
  corpus=$work/corpus/$t
  artifacts=$work/artifacts/$t
  log=$work/logs/$t.log
  mkdir -p "$corpus" "$artifacts" "$work/logs" "$work/tmp"
  seeds=$(mktemp -d "$work/tmp/seeds.XXXXXX")
  dirs=""
  dict=""
  max_len=16384
  case $t in
    manifest)
      dict=json.dict
      dirs="$testdata/capture/manifests" ;;
    records)
      dict=json.dict
      for f in "$testdata"/capture/bundles/*/records.jsonl; do
        cp "$f" "$seeds/$(basename "$(dirname "$f")").jsonl"
      done ;;
    packed_bundle)
      max_len=65536 ;;
    raw_detect)
      dict=pt.dict
      copy_shared 16384 'libipt-pttc/*.pt' 'opencsd/snapshots/*/cstrace.bin' \
        'opencsd/snapshots/*/CSTMC_TRACE_FIFO.bin' 'opencsd/snapshots/*/PTM_0_2.bin' \
        'opencsd/snapshots/*/trace.bin' 'opencsd/snapshots-ete/*/session1.bin' \
        'ricseclab-coresight/*/trace*/cstrace.bin' ;;
    pt_decode)
      dict=pt.dict
      copy_shared 16384 'libipt-pttc/*.pt' ;;
    coresight_decode) ;;
    spe_decode)
      dict=spe.dict
      max_len=8192 ;;
    elf_file|elf_symbolize)
      max_len=65536
      dirs="$root/fuzz/corpus/elf" ;;
  esac
  # The inputs of the bugs this target found are replayed first.
  [ -d "$root/fuzz/regressions/$t" ] && dirs="$dirs $root/fuzz/regressions/$t"
  dict_flag=""
  [ -n "$dict" ] && dict_flag="-dict=$dicts/$dict"
  echo "== $t: $seconds s" >&2
  set +e
  # New inputs go to the first directory ($corpus); the others are read.
  # A finding exits 1 (libFuzzer's default, 77, is the targets' "skipped").
  # shellcheck disable=SC2086
  HWT_FUZZ_SEED_DIR=$seeds TMPDIR=$work/tmp "$bin" \
    -max_total_time="$seconds" -timeout=25 -rss_limit_mb=3072 \
    -error_exitcode=1 -timeout_exitcode=1 \
    -max_len="$max_len" -print_final_stats=1 \
    -artifact_prefix="$artifacts/" $dict_flag ${HWT_FUZZ_ARGS:-} \
    "$corpus" "$seeds" $dirs >"$log" 2>&1
  rc=$?
  set -e
  rm -rf "$seeds"
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
  ft=$(grep -o 'ft: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
  units=$(find "$corpus" -type f | wc -l | tr -d ' ')
  case $rc in
    0) status=ok ;;
    77) status="skipped (no shared corpus)" ;;
    *)
      status="FAILED (exit $rc): $(ls -t "$artifacts" 2>/dev/null | head -1)"
      : >"$results/$t.failed"
      # The finding's report with its stacks (up to 80 lines), so a CI log
      # alone says where it is.
      sed -n '/ERROR: \|invariant violated\|deadly signal/,/^SUMMARY:/p' "$log" |
        head -80 >&2 || true ;;
  esac
  line=$(printf '%-17s %5ss %10s execs %7s/s  cov %6s  ft %6s  corpus %5s  %s' \
    "$t" "$seconds" "${execs:-?}" "${speed:-?}" "${cov:-?}" "${ft:-?}" \
    "$units" "$status")
  echo "$line" >&2
  echo "$line" >"$results/$t"
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" \
    "$t" "$seconds" "${execs:-0}" "${cov:-0}" "${ft:-0}" "$units" "$status" \
    >>"$work/history.tsv"
}

# $parallel targets at a time; each is single-threaded.
running=0
for t in $targets; do
  run_target "$t" &
  running=$((running + 1))
  if [ "$running" -ge "$parallel" ]; then
    wait
    running=0
  fi
done
wait

echo
echo "fuzz report ($seconds s per target, $parallel at a time; corpora in $work/corpus):"
failed=0
for t in $targets; do
  cat "$results/$t" 2>/dev/null || { echo "$t: no result"; failed=1; }
  [ -e "$results/$t.failed" ] && failed=1
done
exit $failed
