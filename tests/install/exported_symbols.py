#!/usr/bin/env python3
"""The shared library exports only its API (tools/api/exports.map): the C functions that
hybridsim.h declares, exactly, and the C++ classes and functions that the installed headers
declare, with their type information and virtual tables; nothing of the library's internal
classes, and nothing of fmt, yaml-cpp, Eigen, the standard library or libccd.

Usage: exported_symbols.py LIBRARY C_HEADER PUBLIC_HEADER...
(prints the counts; exit 1 on a stray symbol)."""
import re
import subprocess
import sys

library, c_header, public_headers = sys.argv[1], sys.argv[2], sys.argv[3:]
listing = subprocess.run(["nm", "-D", "--defined-only", "-C", library], check=True,
                         capture_output=True, text=True).stdout
symbols = [line.split(" ", 2)[2] for line in listing.splitlines() if line.count(" ") >= 2]


def code_of(path):
    """A header's text without its comments (a name only mentioned in one is not declared)."""
    text = open(path, encoding="utf-8").read()
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", " ", text)


declared_c = set(re.findall(r"\b(hybridsim_\w+)\s*\(", code_of(c_header)))
public_words = set()
for header in public_headers:
    public_words |= set(re.findall(r"\b[A-Za-z_]\w*\b", code_of(header)))

c_symbols = {s for s in symbols if re.fullmatch(r"hybridsim_\w+", s)}
cxx_prefix = re.compile(r"^(?:typeinfo for |typeinfo name for |vtable for )?hybridsim::(\w+)")
cxx_names = {}
stray = []
for s in symbols:
    if s in c_symbols:
        continue
    match = cxx_prefix.match(s)
    if match is None:
        stray.append(s)
    else:
        cxx_names.setdefault(match.group(1), []).append(s)
undeclared = sorted(name for name in cxx_names if name not in public_words)

print(f"{len(symbols)} exported: {len(c_symbols)} C functions, "
      f"{sum(map(len, cxx_names.values()))} C++ symbols of {len(cxx_names)} names")
failed = False
if stray:
    print(f"{len(stray)} symbols outside the API, e.g.:", *stray[:10], sep="\n  ")
    failed = True
if undeclared:
    print(f"{len(undeclared)} C++ names exported but declared in no installed header:",
          *undeclared[:20], sep="\n  ")
    failed = True
if c_symbols != declared_c:
    print("C functions exported but not declared:", sorted(c_symbols - declared_c))
    print("declared but not exported:", sorted(declared_c - c_symbols))
    failed = True
# The library's internal classes stay local (a spot check of the names the old namespace-wide
# export let out).
for internal in ("MultibodySystem", "ContactHandler", "ConstraintSolver", "CvodeIntegrator",
                 "HybridLoop", "MapReader", "Broadphase"):
    if internal in cxx_names:
        print("internal class exported:", internal)
        failed = True
sys.exit(1 if failed else 0)
