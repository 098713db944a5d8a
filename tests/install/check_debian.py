#!/usr/bin/env python3
"""Keeps debian/ true to the rest of the tree without building the package
(scripts/package.sh does that): the Build-Depends are the Debian packages
of scripts/setup.sh (build list plain, test list as <!nocheck>), apart from
the differences named below, and debian/changelog's newest version is the
project version of the top CMakeLists.txt.

  check_debian.py SOURCE_DIR
"""
import os
import re
import sys

# setup.sh packages the Debian package does without, and why.
NOT_BUILD_DEPENDS = {
    "build-essential": "implied for every Debian build (lintian rejects it)",
    "libbenchmark-dev": "the package builds no benchmarks",
    "chromium": "its one test skips outside CI; too heavy for a build",
    # The consumers of the exports (tests labelled consumers) skip outside
    # CI too, and pull in compilers and runtimes of their own.
    "golang-go": "go tool pprof, a consumer test",
    "bolt-19": "llvm-bolt, a consumer test",
    "autofdo": "create_llvm_prof, a consumer test",
    "nodejs": "pprof-format and speedscope's importer, consumer tests",
    # What scripts/package.sh builds and checks the package with.
    "debhelper": "named debhelper-compat (= 13) in Build-Depends",
    "dpkg-dev": "implied for every Debian build",
    "lintian": "checks the built package, after the build",
}

# setup.sh build packages that only the tests need (the default build
# builds the tests; the package's nocheck build does not).
TESTS_ONLY = {
    "libgtest-dev": "the tests link it",
    "libgmock-dev": "the tests link it",
    "libopencsd-bin": "trc_pkt_lister, the conformance tests' reference",
}


def fail(message):
    print(f"check_debian: {message}", file=sys.stderr)
    sys.exit(1)


def setup_lists(source):
    text = open(os.path.join(source, "scripts/setup.sh")).read()
    debian = text[text.index("/etc/debian_version"):]
    lists = {}
    for name in ("build_pkgs", "test_pkgs"):
        match = re.search(rf'{name}="([^"]*)"', debian)
        if match is None:
            fail(f"scripts/setup.sh: no Debian {name}")
        lists[name] = set(match.group(1).split())
    return lists["build_pkgs"], lists["test_pkgs"]


def build_depends(source):
    """{package: True when only for the tests (<!nocheck>)}."""
    text = open(os.path.join(source, "debian/control")).read()
    match = re.search(r"^Build-Depends:(.*?)^\S", text, re.S | re.M)
    if match is None:
        fail("debian/control: no Build-Depends")
    depends = {}
    for entry in match.group(1).split(","):
        entry = entry.strip()
        if not entry:
            continue
        name = entry.split()[0]
        depends[name] = "<!nocheck>" in entry
    return depends


def main():
    if len(sys.argv) != 2:
        fail("usage: check_debian.py SOURCE_DIR")
    source = sys.argv[1]
    build, test = setup_lists(source)
    depends = build_depends(source)
    depends.pop("debhelper-compat", None)
    expected = {p: p in TESTS_ONLY for p in build - NOT_BUILD_DEPENDS.keys()}
    expected.update({p: True for p in test - build - NOT_BUILD_DEPENDS.keys()})
    if depends != expected:
        missing = sorted(set(expected) - set(depends))
        extra = sorted(set(depends) - set(expected))
        profile = sorted(p for p in set(depends) & set(expected)
                         if depends[p] != expected[p])
        fail("debian/control Build-Depends and scripts/setup.sh disagree: "
             f"missing {missing}, not in setup.sh {extra}, "
             f"wrong <!nocheck> on {profile}")
    cmake = open(os.path.join(source, "CMakeLists.txt")).read()
    project = re.search(r"project\(hwt VERSION ([0-9.]+)", cmake)
    changelog = open(os.path.join(source, "debian/changelog")).readline()
    package = re.match(r"hwt \(([^)]+)\)", changelog)
    if project is None or package is None:
        fail("no version in CMakeLists.txt's project() or debian/changelog")
    upstream = re.sub(r"-[^-]*$", "", package.group(1))
    if upstream != project.group(1):
        fail(f"debian/changelog is at {package.group(1)}, "
             f"CMakeLists.txt at {project.group(1)}")
    print(f"check_debian: {len(depends)} build dependencies match setup.sh; "
          f"version {project.group(1)}")


if __name__ == "__main__":
    main()
