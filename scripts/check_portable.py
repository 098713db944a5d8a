#!/usr/bin/env python3
"""Fails on absolute paths of a build machine in the repository's text files.

    scripts/check_portable.py [REPO_ROOT]
    scripts/check_portable.py --self-test

A test that reads such a path passes only on the machine that wrote it: a
clone anywhere else fails (a capture that recorded the checkout's build
folder did exactly that). Every tracked text file (binary files, such as the
image copies in testdata bundles, are skipped) is searched for:
  - the folder that holds the checkout (for a checkout in S/main, "S/"), the one
    place every path of this build machine starts;
  - a mktemp folder in /tmp (NAME.XXXXXX), which exists only on the machine
    and in the run that made it;
  - a home folder (in /home, /Users, or root's).
Exit 1 with one line per offence (file:line: the path), 0 when clean. Run by
ctest (the "portable_paths" test, label "layering") and therefore by CI.
"""
import os
import re
import subprocess
import sys
import tempfile

SKIP_DIRS = {'.git', 'build', 'out', 'node_modules'}
MACHINE_PATTERNS = [
    re.compile(r'/tmp/[A-Za-z0-9_-]+\.[A-Za-z0-9]{6}/'),
    re.compile(r'(?<![\w.])/(?:home|Users)/[A-Za-z0-9_.-]+/'),
    # Root's home, written so that this line does not match itself.
    re.compile(r'(?<![\w.])/r' + 'oot/'),
]


def tracked_files(root):
    """The files git tracks, or every file outside SKIP_DIRS without git."""
    try:
        out = subprocess.run(['git', '-C', root, 'ls-files', '-z'], check=True,
                             capture_output=True).stdout
        names = [n for n in out.decode('utf-8', 'replace').split('\0') if n]
        if names:
            return names
    except (OSError, subprocess.CalledProcessError):
        pass
    names = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in SKIP_DIRS]
        for f in files:
            names.append(os.path.relpath(os.path.join(folder, f), root))
    return names


def is_binary(data):
    return b'\0' in data[:8192]


def check(root):
    root = os.path.abspath(root)
    parent = os.path.dirname(root)
    patterns = list(MACHINE_PATTERNS)
    if parent != '/':
        patterns.append(re.compile(re.escape(parent + '/')))
    problems = []
    for rel in sorted(tracked_files(root)):
        path = os.path.join(root, rel)
        if os.path.islink(path) or not os.path.isfile(path):
            continue
        with open(path, 'rb') as f:
            data = f.read()
        if is_binary(data):
            continue
        text = data.decode('utf-8', 'replace')
        for number, line in enumerate(text.splitlines(), 1):
            for pattern in patterns:
                m = pattern.search(line)
                if m:
                    problems.append(f'{rel}:{number}: a build machine\'s path '
                                    f'({m.group(0)}): a clone elsewhere does '
                                    'not have it')
                    break
    return problems


def self_test():
    """Plants one offence of each kind in a scratch tree and expects each."""
    with tempfile.TemporaryDirectory() as scratch:
        root = os.path.join(scratch, 'checkout')
        os.makedirs(os.path.join(root, 'testdata'))
        files = {
            'clean.cc': '// reads ../shared/corpus and /usr/lib/debug\n',
            'testdata/manifest.json': f'"path": "{scratch}/checkout/build/x"\n',
            # Joined here so that this file does not hold what it looks for.
            'tmp.txt': 'see /tmp/' + 'hwt-emulate.AbC123/vdso.so\n',
            'home.md': 'cd /home' + '/alice/src\n',
            'root.h': '// from /' + 'root/.cache\n',
            'binary.bin': None,
        }
        for name, text in files.items():
            with open(os.path.join(root, name), 'wb') as f:
                f.write(b'\0/' + b'root/ inside a binary file\n' if text is None
                        else text.encode())
        found = check(root)
        expected = ['home.md:1', 'root.h:1', 'testdata/manifest.json:1',
                    'tmp.txt:1']
        got = [p.split(': ', 1)[0] for p in found]
        if got != expected:
            print(f'self-test: expected offences {expected}, got {found}')
            return 1
    print('self-test: every planted path found, nothing else')
    return 0


def main(argv):
    if len(argv) > 1 and argv[1] == '--self-test':
        return self_test()
    root = argv[1] if len(argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), '..')
    problems = check(root)
    for p in problems:
        print(p)
    if problems:
        print(f'{len(problems)} absolute path(s) of a build machine: make them '
              'relative, or let the test create what it needs')
        return 1
    print('no build machine paths')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
