#!/usr/bin/env python3
"""Checks every tool's --version against independent sources: the first
line names the tool and the project version CMake configured; the libipt,
OpenCSD and LLVM lines agree with what the system says it has (dpkg's
package versions where dpkg exists, llvm-config), and --help offers the
flag. With no input given, --version must still answer (exit 0, stdout).

  check_version.py PROJECT_VERSION LLVM_CONFIG TOOL_PATH...
"""
import os
import re
import shutil
import subprocess
import sys


def fail(message):
    print(f"check_version: {message}", file=sys.stderr)
    sys.exit(1)


def upstream(package):
    """The upstream part of an installed Debian package's version, or None."""
    if shutil.which("dpkg-query") is None:
        return None
    result = subprocess.run(["dpkg-query", "-W", "-f=${Version}", package],
                            capture_output=True, text=True)
    if result.returncode != 0 or not result.stdout:
        return None
    version = re.sub(r"^\d+:", "", result.stdout)  # epoch
    return re.sub(r"-[^-]*$", "", version)  # Debian revision


def main():
    if len(sys.argv) < 4:
        fail("usage: check_version.py PROJECT_VERSION LLVM_CONFIG TOOL_PATH...")
    project_version, llvm_config, tools = sys.argv[1], sys.argv[2], sys.argv[3:]
    llvm = subprocess.run([llvm_config, "--version"], capture_output=True,
                          text=True, check=True).stdout.strip()
    libipt = upstream("libipt2")
    opencsd = upstream("libopencsd1")
    for path in tools:
        tool = os.path.basename(path)
        result = subprocess.run([path, "--version"], capture_output=True, text=True)
        if result.returncode != 0 or result.stderr:
            fail(f"{tool} --version: exit {result.returncode}, stderr {result.stderr!r}")
        lines = result.stdout.splitlines()
        expected = {0: f"{tool} {project_version}",
                    3: f"LLVM {llvm} (built with)"}
        for index, line in expected.items():
            if len(lines) <= index or lines[index] != line:
                fail(f"{tool} --version line {index + 1}: expected {line!r}, got:\n"
                     + result.stdout)
        for index, name, system in ((1, "libipt", libipt), (2, "OpenCSD", opencsd)):
            match = re.fullmatch(rf"{name} (\S+) \(built with (\S+)\)", lines[index])
            if match is None:
                fail(f"{tool} --version line {index + 1}: {lines[index]!r}")
            if system is not None and match.group(1) != system:
                fail(f"{tool}: {name} {match.group(1)} at run time, "
                     f"but the system has {system}")
        usage = subprocess.run([path, "--help"], capture_output=True, text=True)
        if "--version" not in usage.stdout:
            fail(f"{tool} --help does not offer --version")
    print(f"check_version: {len(tools)} tools report {project_version}, "
          f"libipt {libipt}, OpenCSD {opencsd}, LLVM {llvm}")


if __name__ == "__main__":
    main()
