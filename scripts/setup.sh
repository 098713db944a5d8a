#!/bin/sh
# Installs exactly the packages this project needs that are missing, with the
# system's package manager (apt-get on Debian/Ubuntu, pkg on FreeBSD); never
# downloads anything else.
#   scripts/setup.sh          build dependencies
#   scripts/setup.sh --test   build dependencies plus what the tests use
#   scripts/setup.sh --list   print the missing packages, install nothing
set -eu

want_test=0
list_only=0
for arg in "$@"; do
  case "$arg" in
    --test) want_test=1 ;;
    --list) list_only=1 ;;
    -h|--help) sed -n '2,7p' "$0"; exit 0 ;;
    *) echo "setup.sh: unknown option '$arg' (try --help)" >&2; exit 2 ;;
  esac
done

os=$(uname -s)
if [ "$os" = "FreeBSD" ]; then
  build_pkgs="cmake ninja pkgconf libipt opencsd llvm19 abseil nlohmann-json cli11 libarchive zstd googletest benchmark protobuf"
  test_pkgs="valgrind graphviz chromium go llvm19 node npm"
  missing=""
  for p in $build_pkgs $( [ $want_test = 1 ] && echo $test_pkgs ); do
    pkg info -e "$p" >/dev/null 2>&1 || missing="$missing $p"
  done
  installer="pkg install -y"
elif [ -r /etc/debian_version ]; then
  # valgrind is a build dependency: its package carries the tool SDK
  # (valgrind.pc, /usr/include/valgrind, libcoregrind/libvex) that the build
  # compiles hwt-emulate's fast recorder, the valgrind tool hwttrace, against
  # (recorder/valgrind_tool/; never downloaded). Without it hwt-emulate
  # records with ptrace only.
  build_pkgs="build-essential cmake ninja-build pkg-config zlib1g-dev libipt-dev libopencsd-dev libopencsd-bin llvm-19-dev libabsl-dev nlohmann-json3-dev libcli11-dev libarchive-dev libzstd-dev libgtest-dev libgmock-dev libbenchmark-dev libprotobuf-dev protobuf-compiler valgrind"
  test_pkgs="graphviz chromium clang-19 lld-19 libclang-rt-19-dev python3 file libc6-dbg golang-go bolt-19 llvm-19 autofdo nodejs zstd mandoc debhelper dpkg-dev lintian"
  # npm comes with nodesource's nodejs; Debian's own nodejs needs its npm.
  command -v npm >/dev/null 2>&1 || test_pkgs="$test_pkgs npm"
  missing=""
  for p in $build_pkgs $( [ $want_test = 1 ] && echo $test_pkgs ); do
    status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
    case "$status" in
      *"install ok installed"*) ;;
      *) missing="$missing $p" ;;
    esac
  done
  installer="apt-get install -y --no-install-recommends"
else
  echo "setup.sh: unsupported system ($os); install the packages listed in README.md by hand" >&2
  exit 2
fi

# The JavaScript consumers of the exports (tests/export) and the HTML
# report's browser driver and linter (tests/html), pinned by
# tests/js/package-lock.json, installed from the npm registry with npm ci.
install_js() {
  [ $want_test = 1 ] || return 0
  js_dir="$(cd "$(dirname "$0")/.." && pwd)/tests/js"
  if [ -d "$js_dir/node_modules/pprof-format" ] &&
     [ -d "$js_dir/node_modules/speedscope" ] &&
     [ -d "$js_dir/node_modules/playwright-core" ] &&
     [ -d "$js_dir/node_modules/eslint" ]; then
    return 0
  fi
  echo "setup: npm ci in tests/js"
  (cd "$js_dir" && npm ci --no-audit --no-fund)
}

if [ -z "$missing" ]; then
  [ $list_only = 1 ] || echo "setup: all packages present"
  [ $list_only = 1 ] || install_js
  exit 0
fi
if [ $list_only = 1 ]; then
  echo "$missing"
  exit 0
fi

echo "setup: installing:$missing"
sudo=""
if [ "$(id -u)" != 0 ]; then
  if command -v sudo >/dev/null 2>&1; then sudo=sudo; else
    echo "setup.sh: need root (or sudo) to install:$missing" >&2; exit 2; fi
fi
if [ "$os" != "FreeBSD" ]; then
  export DEBIAN_FRONTEND=noninteractive
  # Refresh the index once if a package is unknown to it.
  if ! $sudo $installer $missing; then
    $sudo apt-get update
    $sudo $installer $missing
  fi
else
  $sudo $installer $missing
fi
install_js
