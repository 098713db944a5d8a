#!/usr/bin/env python3
"""Checks every #include of the tree against the layers in cmake/layers.txt.

    scripts/check_layers.py [REPO_ROOT]

Fails (exit 1, one line per offence: file:line, what it includes, why) when
a file includes a folder its layer may not use, when sibling folders inside
a layer (decoders/pt and decoders/coresight, report/profile and report/spe)
include each other outside the shared folders layers.txt names, or when code
that is not a test includes a test helper (a testing/ folder). Run by ctest
(the "layering" test) and therefore by CI.
"""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')
SOURCE_SUFFIXES = ('.h', '.cc', '.c', '.cpp', '.hpp')
SKIP_DIRS = {'.git', 'build', 'out', 'node_modules'}


def read_layers(path):
    uses, shared, extra, exceptions = {}, {}, {}, set()
    for raw in open(path, encoding='utf-8'):
        line = raw.split('#', 1)[0].strip()
        if not line:
            continue
        m = re.match(r'^except\s+(\S+)\s+([a-z_]+)$', line)
        if m:
            exceptions.add((m.group(1), m.group(2)))
            continue
        m = re.match(r'^([a-z_]+):\s*(.*)$', line)
        if m:
            uses[m.group(1)] = set(m.group(2).split())
            continue
        m = re.match(r'^([a-z_]+)/\s+(.*)$', line)
        if m:
            shared[m.group(1)] = set(m.group(2).split())
            continue
        m = re.match(r'^([a-z_]+)/([a-z_0-9]+)\s*>\s*(.*)$', line)
        if m:
            extra[(m.group(1), m.group(2))] = set(m.group(3).split())
            continue
        raise SystemExit(f'{path}: cannot read line: {raw.rstrip()}')
    return uses, shared, extra, exceptions


def is_test_code(rel):
    parts = rel.split('/')
    name = parts[-1]
    return ('testing' in parts[:-1] or re.search(r'_test\.(cc|h)$', name)
            is not None or parts[0] in ('tests', 'bench', 'fuzz'))


def check(root):
    uses, shared, extra, exceptions = read_layers(os.path.join(root, 'cmake', 'layers.txt'))
    top_folders = {d for d in os.listdir(root)
                   if os.path.isdir(os.path.join(root, d)) and d not in SKIP_DIRS
                   and not d.startswith('.')}
    problems, excepted, files = [], [], 0
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d not in SKIP_DIRS
                       and not d.startswith('.')]
        for name in filenames:
            if not name.endswith(SOURCE_SUFFIXES):
                continue
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, root).replace(os.sep, '/')
            parts = rel.split('/')
            if len(parts) < 2:
                continue
            layer = parts[0]
            if layer not in uses:
                problems.append(f'{rel}: folder {layer}/ is not in cmake/layers.txt')
                continue
            files += 1
            allowed = uses[layer]
            test_code = is_test_code(rel)
            for lineno, line in enumerate(open(path, encoding='utf-8',
                                               errors='replace'), 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                target = m.group(1)
                tparts = target.split('/')
                if len(tparts) < 2 or tparts[0] not in top_folders:
                    continue  # a system or third-party header
                where = f'{rel}:{lineno}: includes "{target}"'
                tlayer = tparts[0]
                if (rel, tlayer) in exceptions:
                    excepted.append(f'{where} (a known exception)')
                    continue
                if tlayer != layer and '*' not in allowed and tlayer not in allowed:
                    problems.append(f'{where}: {layer}/ may use only '
                                    f'{" ".join(sorted(allowed)) or "nothing of ours"}')
                    continue
                if 'testing' in tparts[:-1] and not test_code:
                    problems.append(f'{where}: a test helper, in code that is '
                                    'not a test')
                    continue
                # Siblings inside a layer.
                if (tlayer == layer and layer in shared and len(parts) > 2
                        and len(tparts) > 2 and parts[1] != tparts[1]):
                    ok = (tparts[1] in shared[layer]
                          or tparts[1] in extra.get((layer, parts[1]), set())
                          or tparts[1] == 'testing')
                    if not ok:
                        problems.append(
                            f'{where}: {layer}/{parts[1]}/ and {layer}/{tparts[1]}/ '
                            f'are independent; shared: '
                            f'{" ".join(sorted(shared[layer]))}')
    return files, problems, excepted


def self_test():
    """Runs the check on a small tree with one offence of each kind."""
    import tempfile
    files = {
        'cmake/layers.txt': open(os.path.join(os.path.dirname(
            os.path.dirname(os.path.abspath(__file__))), 'cmake',
            'layers.txt')).read(),
        'base/a.h': '#include "base/b.h"\n#include <vector>\n',
        'base/b.h': '#include "capture/x.h"\n',             # up a layer
        'capture/x.h': '#include "base/a.h"\n',
        'decoders/pt/p.cc': '#include "decoders/coresight/c.h"\n'
                            '#include "decoders/x86/i.h"\n',  # sibling
        'decoders/coresight/c.h': '',
        'decoders/x86/i.h': '',
        'analysis/y.cc': '#include "analysis/testing/t.h"\n',  # test helper
        'analysis/testing/t.h': '#include "decoders/decoder.h"\n',
        'analysis/y_test.cc': '#include "analysis/testing/t.h"\n',
        'decoders/decoder.h': '',
        'tools/t.cc': '#include "recorder/r.h"\n',
        'recorder/r.h': '#include "symbolizer/s.h"\n',     # recorder -/-> symbolizer
        'symbolizer/s.h': '',
    }
    with tempfile.TemporaryDirectory() as root:
        for rel, text in files.items():
            os.makedirs(os.path.dirname(os.path.join(root, rel)), exist_ok=True)
            open(os.path.join(root, rel), 'w').write(text)
        _, problems, _ = check(root)
    expected = ['base/b.h:1', 'decoders/pt/p.cc:1', 'analysis/y.cc:1',
                'recorder/r.h:1']
    found = sorted(p.split(': ')[0] for p in problems)
    if found != sorted(expected):
        print('check_layers self-test: expected offences', sorted(expected),
              'found', problems)
        return 1
    print('check_layers self-test: the 4 planted offences are found')
    return 0


def main():
    if sys.argv[1:] == ['--self-test']:
        return self_test()
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(
        os.path.dirname(os.path.abspath(__file__)))
    files, problems, excepted = check(root)
    for p in excepted:
        print(p)
    for p in problems:
        print(p)
    if problems:
        print(f'check_layers: {len(problems)} includes break the layers '
              f'(cmake/layers.txt, docs/architecture.md)')
        return 1
    print(f'check_layers: {files} files, every include keeps to its layer')
    return 0


if __name__ == '__main__':
    sys.exit(main())
