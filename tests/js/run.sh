#!/bin/sh
# The HTML report's JavaScript checks, for ctest (tests/html/CMakeLists.txt):
#   tests/js/run.sh install           npm ci of the pinned tools, when the
#                                     lockfile changed since the last one
#   tests/js/run.sh lint              eslint over the page's scripts
#   tests/js/run.sh browser BUILD     the browser tests (report.test.mjs)
# Without node (or chromium, for the browser tests) a check is skipped
# (exit 77), except under CI=true, where it fails: CI must run them.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
what=${1:?usage: run.sh install|lint|browser [BUILD_DIR]}

missing() {
  if [ "${CI:-}" = "true" ]; then
    echo "run.sh: $1 is missing (scripts/setup.sh --test installs it); CI runs these tests" >&2
    exit 1
  fi
  echo "run.sh: $1 is missing: skipped (scripts/setup.sh --test installs it)" >&2
  exit 77
}

command -v node >/dev/null 2>&1 || missing node
case "$what" in
  install)
    command -v npm >/dev/null 2>&1 || missing npm
    stamp="$here/node_modules/.hwt-lock"
    if [ -f "$stamp" ] && cmp -s "$stamp" "$here/package-lock.json"; then
      echo "run.sh: tests/js/node_modules is up to date"
      exit 0
    fi
    (cd "$here" && npm ci --no-audit --no-fund --loglevel=error)
    cp "$here/package-lock.json" "$stamp"
    ;;
  lint)
    cd "$root"
    node "$here/node_modules/eslint/bin/eslint.js" --max-warnings 0 \
      -c tests/js/eslint.config.js report/html/assets/js tests/js
    echo "run.sh: eslint found nothing"
    ;;
  browser)
    build=$(cd "${2:?run.sh browser BUILD_DIR}" && pwd)
    chromium=${HWT_CHROMIUM:-/usr/bin/chromium}
    [ -x "$chromium" ] || missing chromium
    HWT_SOURCE_DIR="$root" HWT_BUILD_DIR="$build" HWT_CHROMIUM="$chromium" \
      node --test --test-concurrency=1 "$here/report.test.mjs"
    ;;
  *)
    echo "run.sh: unknown check '$what'" >&2
    exit 2
    ;;
esac
