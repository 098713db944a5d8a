#!/bin/sh
# Builds the Debian package of this tree, tools only (DEB_BUILD_OPTIONS=
# nocheck: no tests, no benchmarks), checks it with lintian (no errors
# allowed), installs it with dpkg -i (apt-get fetches its Depends), and runs
# the demo and `hwt-report --version` from the installed files only.
#   scripts/package.sh [--keep]    --keep: leave the package installed
# Installing needs root (or sudo). The build happens in a copy of the tree
# under build/package/, where the .deb, .buildinfo and .changes stay.
# JOBS (default 2) sets the build's parallelism.
set -eu
cd "$(dirname "$0")/.."
keep=0
for arg in "$@"; do
  case "$arg" in
    --keep) keep=1 ;;
    -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
    *) echo "package.sh: unknown option '$arg' (try --help)" >&2; exit 2 ;;
  esac
done
sudo=""
if [ "$(id -u)" != 0 ]; then
  if command -v sudo >/dev/null 2>&1; then sudo=sudo; else
    echo "package.sh: need root (or sudo) to install the package" >&2; exit 2; fi
fi
for tool in dpkg-buildpackage dh lintian zstd; do
  command -v "$tool" >/dev/null 2>&1 || {
    echo "package.sh: $tool is missing (scripts/setup.sh --test installs it)" >&2; exit 2; }
done

out=$PWD/build/package
rm -rf "$out"
mkdir -p "$out/hwt"
echo "package: copying the tree to $out/hwt"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  git ls-files -z --cached --others --exclude-standard |
    tar --null -T - --ignore-failed-read -cf - | tar -xf - -C "$out/hwt"
else
  tar --exclude=./build --exclude=./out -cf - . | tar -xf - -C "$out/hwt"
fi

echo "package: dpkg-buildpackage (nocheck, ${JOBS:-2} jobs)"
started=$(date +%s)
(cd "$out/hwt" &&
  DEB_BUILD_OPTIONS="nocheck parallel=${JOBS:-2}" DEB_BUILD_PROFILES=nocheck \
    dpkg-buildpackage -us -uc -b >"$out/build.log" 2>&1) || {
  tail -40 "$out/build.log" >&2
  echo "package.sh: dpkg-buildpackage failed (log: $out/build.log)" >&2; exit 1; }
echo "package: built in $(( $(date +%s) - started )) s"
version=$(cd "$out/hwt" && dpkg-parsechangelog -S Version)
deb=$(ls "$out"/hwt_"$version"_*.deb)
changes=$(ls "$out"/hwt_"$version"_*.changes)

echo "package: lintian $(basename "$changes")"
# Not through a pipe: sh has no pipefail, and a pipe to tee would hide
# lintian's exit status (an error once passed unnoticed that way).
lintian_rc=0
lintian --fail-on error --info "$changes" >"$out/lintian.txt" 2>&1 || lintian_rc=$?
cat "$out/lintian.txt"
[ "$lintian_rc" = 0 ] || {
  echo "package.sh: lintian found errors (exit $lintian_rc; $out/lintian.txt)" >&2; exit 1; }

echo "package: installing $(basename "$deb")"
export DEBIAN_FRONTEND=noninteractive
if ! $sudo dpkg -i "$deb"; then
  $sudo apt-get install -f -y --no-install-recommends
fi
case "$(dpkg-query -W -f='${Status} ${Version}' hwt)" in
  "install ok installed $version") ;;
  *) echo "package.sh: hwt $version is not installed" >&2; exit 1 ;;
esac

# From here on only installed files: a clean PATH and an empty directory.
work=$(mktemp -d "${TMPDIR:-/tmp}/hwt-package.XXXXXX")
trap 'rm -rf "$work"' EXIT
demo=/usr/share/doc/hwt/examples/demo.hwt
run() { (cd "$work" && env -i PATH=/usr/bin:/bin HOME="$work" "$@"); }

echo "package: hwt-report --version"
run hwt-report --version | tee "$work/version.txt"
first=$(head -1 "$work/version.txt")
[ "$first" = "hwt-report $version" ] || {
  echo "package.sh: --version says '$first', the package is $version" >&2; exit 1; }

echo "package: the demo, from $demo"
zstd -dc "$demo" | tar -xOf - demo.hwt/truth/folded.txt >"$work/truth.folded"
run hwt-report --folded --no-inline "$demo" >"$work/demo.folded"
cmp -s "$work/demo.folded" "$work/truth.folded" || {
  echo "package.sh: the installed hwt-report does not reproduce the demo's truth" >&2; exit 1; }
run hwt-report --flame="$work/demo.svg" "$demo"
grep -q '</svg>' "$work/demo.svg"
run hwt-decode --stats "$demo" | tail -3
for page in hwt-decode.1 hwt-report.1 hwt-emulate.1 hwt-batch.1; do
  [ -f "/usr/share/man/man1/$page.gz" ] || {
    echo "package.sh: /usr/share/man/man1/$page.gz is not installed" >&2; exit 1; }
done

if [ $keep = 0 ]; then
  $sudo dpkg -r hwt >/dev/null
  echo "package: removed hwt again (--keep leaves it installed)"
fi
echo "package: ok: $(basename "$deb") builds, passes lintian, installs and runs the demo"
