#!/usr/bin/env python3
"""Checks what `cmake --install` gives: installs the build tree into a fresh
temporary prefix, then checks that every tool, man page, document and the
demo capture is where GNUInstallDirs puts it, that no installed program
refers to the build or source tree (run path, embedded paths), and that the
installed hwt-report, run from an unrelated directory, profiles the
installed demo capture to the truth recorded inside it, and that the
installed bash completion offers each tool's options.

  check_install.py BUILD_DIR SOURCE_DIR TOOL...
"""
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_man import help_options  # noqa: E402  (the same --help parser)


def fail(message):
    print(f"check_install: {message}", file=sys.stderr)
    sys.exit(1)


def install(build_dir, prefix):
    result = subprocess.run(
        ["cmake", "--install", build_dir, "--prefix", prefix],
        capture_output=True, text=True)
    if result.returncode != 0:
        fail(f"cmake --install failed ({result.returncode}):\n{result.stderr}")


def check_layout(prefix, tools):
    expected = [f"bin/{tool}" for tool in tools]
    expected += [f"share/man/man1/{tool}.1" for tool in tools]
    expected += ["share/man/man5/hwt-bundle.5",
                 "share/man/man5/hwt-profile.5",
                 "share/doc/hwt/README.md",
                 "share/doc/hwt/capture-format.md",
                 "share/doc/hwt/examples/demo.hwt",
                 "share/doc/hwt/examples/demo.c"]
    missing = [p for p in expected if not os.path.isfile(os.path.join(prefix, p))]
    if missing:
        fail("not installed: " + ", ".join(missing))
    for tool in tools:
        if not os.access(os.path.join(prefix, "bin", tool), os.X_OK):
            fail(f"bin/{tool} is not executable")
    # Every installed program is one of the tools (no test or bench binary).
    extra = sorted(set(os.listdir(os.path.join(prefix, "bin"))) - set(tools))
    if extra:
        fail("unexpected programs in bin/: " + ", ".join(extra))


def check_no_tree_paths(prefix, tools, trees):
    """No run path into the build tree, no build or source path compiled in."""
    for tool in tools:
        path = os.path.join(prefix, "bin", tool)
        dynamic = subprocess.run(["readelf", "-d", path], capture_output=True,
                                 text=True, check=True).stdout
        for line in dynamic.splitlines():
            if "RPATH" in line or "RUNPATH" in line:
                fail(f"bin/{tool} carries a run path: {line.strip()}")
        data = open(path, "rb").read()
        for tree in trees:
            if tree.encode() in data:
                fail(f"bin/{tool} contains the path {tree}")


def check_demo(prefix, work):
    """The installed hwt-report on the installed demo gives its truth/."""
    demo = os.path.join(prefix, "share/doc/hwt/examples/demo.hwt")
    with _open_zstd_tar(demo, work) as archive:
        truth = archive.extractfile("demo.hwt/truth/folded.txt").read().decode()
    env = {"PATH": os.path.join(prefix, "bin") + ":/usr/bin:/bin",
           "HOME": work, "LC_ALL": "C"}
    result = subprocess.run(["hwt-report", "--folded", "--no-inline", demo],
                            cwd=work, env=env, capture_output=True, text=True)
    if result.returncode != 0:
        fail(f"installed hwt-report exited {result.returncode}:\n{result.stderr}")
    if result.stdout != truth:
        fail("installed hwt-report --folded differs from the demo's truth/folded.txt")
    svg = os.path.join(work, "demo.svg")
    result = subprocess.run(["hwt-report", f"--flame={svg}", demo], cwd=work,
                            env=env, capture_output=True, text=True)
    if result.returncode != 0 or not open(svg).read().rstrip().endswith("</svg>"):
        fail(f"installed hwt-report --flame failed ({result.returncode}):\n"
             f"{result.stderr}")


def check_recorder(build_dir, prefix, work):
    """The installed hwt-emulate finds its valgrind tool in PREFIX/libexec/hwt
    (when the build made one) and records a program the report decodes."""
    if not os.path.isdir(os.path.join(build_dir, "libexec/hwt")):
        return  # built without valgrind's SDK: hwt-emulate records with ptrace
    tools = os.listdir(os.path.join(prefix, "libexec/hwt"))
    if not any(name.startswith("hwttrace-") for name in tools):
        fail("libexec/hwt/ holds no hwttrace-* valgrind tool: " + ", ".join(tools))
    env = {"PATH": os.path.join(prefix, "bin") + ":/usr/bin:/bin",
           "HOME": work, "LC_ALL": "C"}
    bundle = os.path.join(work, "true.hwt")
    result = subprocess.run(["hwt-emulate", "--recorder", "valgrind", "-o", bundle,
                             "--", "/bin/true"], cwd=work, env=env,
                            capture_output=True, text=True)
    if result.returncode != 0:
        fail(f"installed hwt-emulate --recorder valgrind exited "
             f"{result.returncode}:\n{result.stderr}")
    result = subprocess.run(["hwt-report", "--top", "3", bundle], cwd=work,
                            env=env, capture_output=True, text=True)
    if result.returncode != 0 or "_start" not in result.stdout:
        fail(f"installed hwt-report on the recording exited {result.returncode}:"
             f"\n{result.stdout}{result.stderr}")


def _subcommands(tool_path):
    """The subcommands a tool's --help lists (hwt-batch's run, merge, ...)."""
    result = subprocess.run([tool_path, "--help"], capture_output=True, text=True)
    names, inside = [], False
    for line in result.stdout.splitlines():
        if not line.startswith(" "):
            inside = line.startswith("Subcommands:")
        elif inside:
            names.append(line.split()[0])
    return names


def check_completion(prefix, tools, work):
    """The installed bash completion offers each tool's --help options (and
    for a tool with subcommands, the subcommands first, then each one's)."""
    for tool in tools:
        script = os.path.join(prefix, "share/bash-completion/completions", tool)
        if not os.path.isfile(script):
            fail(f"no bash completion for {tool}")
        path = os.path.join(prefix, "bin", tool)
        env = {"PATH": os.path.join(prefix, "bin") + ":/usr/bin:/bin", "HOME": work}

        def complete(words):
            program = (f'source "{script}"; COMP_WORDS=({words}); '
                       f'COMP_CWORD=$(( ${{#COMP_WORDS[@]}} - 1 )); '
                       f'_hwt_tool; printf "%s\\n" "${{COMPREPLY[@]}}"')
            result = subprocess.run(["bash", "-c", program], cwd=work, env=env,
                                    capture_output=True, text=True)
            return result.returncode, set(result.stdout.split()), result.stderr

        subcommands = _subcommands(path)
        cases = [(f"{sub} --", help_options(path, sub)) for sub in subcommands]
        if subcommands:
            cases.append(("''", set(subcommands)))
        else:
            cases.append(("--", help_options(path)))
        for words, wanted in cases:
            wanted = {w for w in wanted if not w.startswith("-") or w.startswith("--")}
            code, offered, errors = complete(f"{tool} {words}")
            if code != 0 or offered != wanted:
                fail(f"bash completion of '{tool} {words}' offers {sorted(offered)}, "
                     f"--help has {sorted(wanted)} ({errors.strip()})")


def _open_zstd_tar(path, work):
    """The demo is a .tar.zst: unpacked with zstd(1) (Python has no zstd)."""
    plain = os.path.join(work, "demo.tar")
    with open(plain, "wb") as out:
        subprocess.run(["zstd", "-dc", path], stdout=out, check=True)
    return tarfile.open(plain)


def main():
    if len(sys.argv) < 4:
        fail("usage: check_install.py BUILD_DIR SOURCE_DIR TOOL...")
    build_dir, source_dir, tools = sys.argv[1], sys.argv[2], sys.argv[3:]
    work = tempfile.mkdtemp(prefix="hwt-install-test-")
    try:
        prefix = os.path.join(work, "prefix")
        install(build_dir, prefix)
        check_layout(prefix, tools)
        check_no_tree_paths(prefix, tools, [os.path.realpath(build_dir),
                                            os.path.realpath(source_dir)])
        check_demo(prefix, work)
        check_completion(prefix, tools, work)
        check_recorder(build_dir, prefix, work)
    finally:
        shutil.rmtree(work)
    print(f"check_install: {len(tools)} tools, man pages, docs and demo installed and working")


if __name__ == "__main__":
    main()
