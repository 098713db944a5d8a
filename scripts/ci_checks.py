#!/usr/bin/env python3
"""What CI checks around the test suite, so that a green run means every check ran.

  ci_checks.py corpus [--write] [--corpus DIR]
      The shared corpus against testdata/corpus.sha256 (sha256 of every file
      under the folders its header names). Names the first missing or changed
      file. --write regenerates the list from DIR (review the diff).
  ci_checks.py tools
      Every program in .ci/required-tools is installed.
  ci_checks.py before
      Both of the above, and HWT_UPDATE_GOLDEN unset: what .ci/run checks
      before it builds.
  ci_checks.py skips JUNIT...
      Every test ctest reports skipped (its --output-junit file) is on the
      reviewed list .ci/allowed-skips, with a reason.
  ci_checks.py --self-test
      Plants a changed and a missing corpus file, a missing tool and an
      unlisted skip in a scratch tree and expects each found.

Outside CI (the CI variable unset, "", "0" or "false") an absent corpus or
tool exits 77, which ctest reports as a skip; in CI every problem exits 1.
docs/reliability.md ("No silent skips") describes the rules.
"""

import fnmatch
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SKIP = 77


def in_ci():
    return os.environ.get("CI", "") not in ("", "0", "false")


def missing(message):
    """An absent requirement: a skip outside CI, a failure in CI."""
    if in_ci():
        print(f"ci_checks: {message} (CI=true: a missing requirement fails)")
        return 1
    print(f"ci_checks: {message}; skipping (in CI this fails)")
    return SKIP


def corpus_dir(root):
    env = os.environ.get("HWT_CORPUS_DIR", "")
    return env if env else os.path.join(root, "..", "shared", "corpus")


def read_manifest(path):
    """(folders, {relative path: sha256}) of a corpus manifest."""
    folders, sums = [], {}
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if line.startswith("# folders:"):
                folders = line.split(":", 1)[1].split()
            if not line or line.startswith("#"):
                continue
            digest, sep, rel = line[:64], line[64:66], line[66:]
            if sep != "  " or len(digest) != 64 or not rel:
                raise ValueError(f"{path}:{number}: not a 'SHA256  PATH' line")
            sums[rel] = digest
    return folders, sums


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def corpus_files(corpus, folders):
    for folder in folders:
        for dirpath, dirnames, filenames in os.walk(os.path.join(corpus, folder)):
            dirnames.sort()
            for name in sorted(filenames):
                full = os.path.join(dirpath, name)
                yield os.path.relpath(full, corpus)


def check_corpus(root, corpus, write=False):
    manifest = os.path.join(root, "testdata", "corpus.sha256")
    try:
        folders, sums = read_manifest(manifest)
    except (OSError, ValueError) as e:
        print(f"ci_checks: {e}")
        return 1
    if not os.path.isdir(corpus):
        return missing(f"the shared corpus {corpus} is not there "
                       "(../shared/corpus, or $HWT_CORPUS_DIR)")
    if write:
        with open(manifest, encoding="utf-8") as f:
            header = [line for line in f if line.startswith("#")]
        lines = [f"{sha256(os.path.join(corpus, rel))}  {rel}\n"
                 for rel in corpus_files(corpus, folders)]
        tmp = manifest + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            f.writelines(header + lines)
        os.replace(tmp, manifest)
        print(f"ci_checks: wrote {len(lines)} files of {' '.join(folders)}")
        return 0
    problems = []
    for rel, digest in sums.items():
        path = os.path.join(corpus, rel)
        if not os.path.isfile(path):
            problems.append(f"{rel}: missing")
        elif sha256(path) != digest:
            problems.append(f"{rel}: changed (sha256 {sha256(path)}, "
                            f"testdata/corpus.sha256 says {digest})")
    listed = set(sums)
    extra = [rel for rel in corpus_files(corpus, folders) if rel not in listed]
    if problems:
        print(f"ci_checks: the corpus at {corpus} does not match "
              f"testdata/corpus.sha256: first {problems[0]} "
              f"({len(problems)} problems)")
        for p in problems[1:10]:
            print(f"  {p}")
        return 1
    note = (f"; {len(extra)} files not listed (new? "
            "'ci_checks.py corpus --write' lists them), first "
            f"{extra[0]}" if extra else "")
    print(f"ci_checks: corpus OK: {len(sums)} files of "
          f"{' '.join(folders)}{note}")
    return 0


def required_tools(root):
    tools = []
    with open(os.path.join(root, ".ci", "required-tools"), encoding="utf-8") as f:
        for line in f:
            fields = line.split()
            if fields and not fields[0].startswith("#"):
                tools.append((fields[0], fields[1] if len(fields) > 1 else "?"))
    return tools


def check_tools(root):
    absent = [f"{tool} (package {package})"
              for tool, package in required_tools(root)
              if shutil.which(tool) is None]
    if absent:
        return missing("required tools not installed: " + ", ".join(absent))
    print(f"ci_checks: all {len(required_tools(root))} required tools present")
    return 0


def allowed_skips(root):
    allowed = {}
    with open(os.path.join(root, ".ci", "allowed-skips"), encoding="utf-8") as f:
        for line in f:
            if not line.strip() or line.startswith("#"):
                continue
            pattern, _, reason = line.strip().partition(" ")
            if not reason.strip():
                raise ValueError(f".ci/allowed-skips: {pattern} has no reason")
            allowed[pattern] = reason.strip()
    return allowed


def check_skips(root, junit_files):
    try:
        allowed = allowed_skips(root)
    except (OSError, ValueError) as e:
        print(f"ci_checks: {e}")
        return 1
    skipped, total = [], 0
    for junit in junit_files:
        try:
            tree = ET.parse(junit)
        except (OSError, ET.ParseError) as e:
            print(f"ci_checks: cannot read ctest's JUnit output {junit}: {e}")
            return 1
        for case in tree.getroot().iter("testcase"):
            total += 1
            if (case.get("status") in ("notrun", "disabled")
                    or case.find("skipped") is not None):
                skipped.append(case.get("name", "?"))
    if total == 0:
        print("ci_checks: ctest's JUnit output lists no tests")
        return 1
    unexpected = [name for name in skipped
                  if not any(fnmatch.fnmatchcase(name, p) for p in allowed)]
    for name in skipped:
        if name not in unexpected:
            print(f"ci_checks: skipped (reviewed): {name}")
    if unexpected:
        print(f"ci_checks: {len(unexpected)} of {total} tests skipped and not "
              "on .ci/allowed-skips: " + ", ".join(unexpected[:20]))
        return 1
    print(f"ci_checks: {total} tests, {len(skipped)} skipped, all reviewed")
    return 0


def check_before(root):
    status = 0
    if os.environ.get("HWT_UPDATE_GOLDEN") is not None:
        print("ci_checks: HWT_UPDATE_GOLDEN is set: the golden tests would "
              "rewrite their files instead of checking them")
        status = 1
    for result in (check_tools(root), check_corpus(root, corpus_dir(root))):
        if result != 0 and status == 0:
            status = result
    return status


def self_test():
    """Plants each problem in a scratch tree and expects it found."""
    failures = []
    env = dict(os.environ, CI="true")
    with tempfile.TemporaryDirectory() as tmp:
        root, corpus = os.path.join(tmp, "repo"), os.path.join(tmp, "corpus")
        os.makedirs(os.path.join(root, "testdata"))
        os.makedirs(os.path.join(root, ".ci"))
        os.makedirs(os.path.join(corpus, "set", "sub"))
        for rel, text in (("set/a.bin", "a"), ("set/sub/b.bin", "b")):
            with open(os.path.join(corpus, rel), "w") as f:
                f.write(text)
        with open(os.path.join(root, "testdata", "corpus.sha256"), "w") as f:
            f.write("# folders: set\n")
        with open(os.path.join(root, ".ci", "required-tools"), "w") as f:
            f.write("# tool package\nsh dash\nno-such-tool-hwt nosuchpkg\n")
        with open(os.path.join(root, ".ci", "allowed-skips"), "w") as f:
            f.write("# reviewed\nSuite.Allowed* only with an old library\n")
        junit = os.path.join(tmp, "junit.xml")
        with open(junit, "w") as f:
            f.write('<testsuite><testcase name="Suite.Ok" status="run"/>'
                    '<testcase name="Suite.Allowed1" status="notrun">'
                    '<skipped/></testcase></testsuite>')

        def run(*args, expect, text=""):
            r = subprocess.run([sys.executable, __file__, "--root", root,
                                *args], capture_output=True, text=True,
                               env=dict(env, HWT_CORPUS_DIR=corpus))
            if r.returncode != expect or text not in r.stdout:
                failures.append(f"{args}: exit {r.returncode} (want {expect}),"
                                f" output {r.stdout!r} (want {text!r})")

        run("corpus", "--write", expect=0, text="wrote 2 files")
        run("corpus", expect=0, text="corpus OK: 2 files")
        with open(os.path.join(corpus, "set", "sub", "b.bin"), "w") as f:
            f.write("B")
        run("corpus", expect=1, text="first set/sub/b.bin: changed")
        os.remove(os.path.join(corpus, "set", "a.bin"))
        run("corpus", expect=1, text="first set/a.bin: missing")
        shutil.rmtree(corpus)
        run("corpus", expect=1, text="is not there")
        run("tools", expect=1, text="no-such-tool-hwt (package nosuchpkg)")
        run("skips", junit, expect=0, text="1 skipped, all reviewed")
        with open(junit, "w") as f:
            f.write('<testsuite><testcase name="Suite.Other" status="notrun">'
                    '<skipped/></testcase></testsuite>')
        run("skips", junit, expect=1, text="not on .ci/allowed-skips: "
            "Suite.Other")
    # Outside CI an absent corpus is a skip (77), not a failure.
    r = subprocess.run([sys.executable, __file__, "corpus"], capture_output=True,
                       text=True, env=dict(os.environ, CI="",
                                           HWT_CORPUS_DIR="/nonexistent/hwt"))
    if r.returncode != SKIP:
        failures.append(f"absent corpus outside CI: exit {r.returncode}")
    for f in failures:
        print(f"ci_checks self-test: {f}")
    print("ci_checks self-test: " + ("FAILED" if failures else "OK"))
    return 1 if failures else 0


def main(argv):
    root = ROOT
    if len(argv) >= 2 and argv[0] == "--root":
        root, argv = argv[1], argv[2:]
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0 if argv else 2
    command, args = argv[0], argv[1:]
    if command == "--self-test":
        return self_test()
    if command == "corpus":
        corpus = corpus_dir(root)
        if "--corpus" in args:
            corpus = args[args.index("--corpus") + 1]
        return check_corpus(root, corpus, write="--write" in args)
    if command == "tools":
        return check_tools(root)
    if command == "before":
        return check_before(root)
    if command == "skips" and args:
        return check_skips(root, args)
    print(f"ci_checks: unknown command {' '.join(argv)} (try --help)")
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
