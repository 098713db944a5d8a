#!/usr/bin/env python3
"""Checks the manual pages of docs/man/: `mandoc -Tlint` finds nothing in
any of them (down to style messages; the one tolerated message is a
cross-reference to our own pages or to FreeBSD's hwt(4)/hwt(8), which a
Linux build machine does not have installed), every tool has its page,
and the options a tool's --help offers are exactly those its page
describes (the `.It Fl` entries).

  check_man.py MAN_DIR TOOL_PATH...
"""
import glob
import os
import re
import subprocess
import sys

# Pages a machine may lack: ours (not installed yet), FreeBSD's hwt, and
# the pages of Slurm's sbatch and of perf record (test packages).
KNOWN_ABSENT = {("hwt", "4"), ("hwt", "8"), ("sbatch", "1"), ("perf-record", "1")}


def fail(message):
    print(f"check_man: {message}", file=sys.stderr)
    sys.exit(1)


def lint(pages):
    ours = {(os.path.basename(p).rsplit(".", 1)[0], p.rsplit(".", 1)[1])
            for p in pages}
    result = subprocess.run(["mandoc", "-Tlint", "-Wstyle"] + pages,
                            capture_output=True, text=True)
    problems = []
    for line in (result.stdout + result.stderr).splitlines():
        absent = re.search(r"referenced manual not found: Xr (\S+) (\S+)", line)
        if absent and (absent.group(1), absent.group(2)) in ours | KNOWN_ABSENT:
            continue
        if "mandoc.db" in line:  # the machine's index is stale: not our page
            continue
        problems.append(line)
    if problems:
        fail("mandoc -Tlint:\n" + "\n".join(problems))


def help_options(tool_path, subcommand=None):
    """Every option name in the tool's --help (CLI11's layout), and in the
    --help of each of its subcommands (hwt-batch run, merge, ...): a page
    describes the options of all of them."""
    command = [tool_path] + ([subcommand] if subcommand else []) + ["--help"]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        fail(f"{' '.join(command)} exited {result.returncode}")
    names = set()
    subcommands = []
    in_subcommands = False
    for line in result.stdout.splitlines():
        if not line.startswith(" "):
            in_subcommands = line.startswith("Subcommands:")
            continue
        match = re.match(r"^\s+(-\S+)", line)
        if match:
            spelled = re.sub(r"\{.*", "", match.group(1))
            names.update(name for name in spelled.split(",") if name)
        elif in_subcommands and subcommand is None:
            subcommands.append(line.split()[0])
    for name in subcommands:
        names |= help_options(tool_path, name)
    return names


def page_options(page):
    """Every option an `.It` entry of the page describes."""
    names = set()
    for line in open(page, encoding="utf-8"):
        if not line.startswith(".It "):
            continue
        words = line.split()
        for index, word in enumerate(words[:-1]):
            if word == "Fl":
                names.add("-" + words[index + 1])
    return names


def main():
    if len(sys.argv) < 3:
        fail("usage: check_man.py MAN_DIR TOOL_PATH...")
    man_dir, tools = sys.argv[1], sys.argv[2:]
    pages = sorted(glob.glob(os.path.join(man_dir, "*.[1-9]")))
    if not pages:
        fail(f"no manual pages in {man_dir}")
    lint(pages)
    for path in tools:
        tool = os.path.basename(path)
        page = os.path.join(man_dir, tool + ".1")
        if not os.path.isfile(page):
            fail(f"{tool} has no manual page ({page})")
        in_help, in_page = help_options(path), page_options(page)
        if in_help != in_page:
            fail(f"{tool}: --help and {tool}(1) disagree: only in --help: "
                 f"{sorted(in_help - in_page)}; only in the page: "
                 f"{sorted(in_page - in_help)}")
    print(f"check_man: {len(pages)} pages lint clean; options of "
          f"{len(tools)} tools agree with their pages")


if __name__ == "__main__":
    main()
