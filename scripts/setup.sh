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
  build_pkgs="cmake ninja pkgconf libipt opencsd llvm19 abseil nlohmann-json cli11 libarchive zstd googletest benchmark"
  test_pkgs="valgrind graphviz chromium zstd"
  missing=""
  for p in $build_pkgs $( [ $want_test = 1 ] && echo $test_pkgs ); do
    pkg info -e "$p" >/dev/null 2>&1 || missing="$missing $p"
  done
  installer="pkg install -y"
elif [ -r /etc/debian_version ]; then
  build_pkgs="build-essential cmake ninja-build pkg-config libipt-dev libopencsd-dev libopencsd-bin llvm-19-dev libabsl-dev nlohmann-json3-dev libcli11-dev libarchive-dev libzstd-dev libgtest-dev libgmock-dev libbenchmark-dev"
  test_pkgs="valgrind graphviz chromium clang-19 lld-19 libclang-rt-19-dev python3 file libc6-dbg zstd mandoc"
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

if [ -z "$missing" ]; then
  [ $list_only = 1 ] || echo "setup: all packages present"
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
