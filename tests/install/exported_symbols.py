#!/usr/bin/env python3
"""The shared library exports only its API (tools/api/exports.map): the C functions that
hybridsim.h declares, exactly, and C++ symbols of namespace hybridsim with their type information
and virtual tables; nothing of fmt, yaml-cpp, Eigen, the standard library or libccd.

Usage: exported_symbols.py LIBRARY HEADER  (prints the counts; exit 1 on a stray symbol)."""
import re
import subprocess
import sys

library, header = sys.argv[1], sys.argv[2]
listing = subprocess.run(["nm", "-D", "--defined-only", "-C", library], check=True,
                         capture_output=True, text=True).stdout
symbols = [line.split(" ", 2)[2] for line in listing.splitlines() if line.count(" ") >= 2]

declared = set(re.findall(r"\b(hybridsim_\w+)\s*\(", open(header, encoding="utf-8").read()))
c_symbols = {s for s in symbols if re.fullmatch(r"hybridsim_\w+", s)}
cxx_prefixes = ("hybridsim::", "typeinfo for hybridsim::", "typeinfo name for hybridsim::",
                "vtable for hybridsim::")
cxx_symbols = [s for s in symbols if s.startswith(cxx_prefixes)]
stray = [s for s in symbols if s not in c_symbols and not s.startswith(cxx_prefixes)]

print(f"{len(symbols)} exported: {len(c_symbols)} C functions, {len(cxx_symbols)} C++ symbols")
failed = False
if stray:
    print(f"{len(stray)} symbols outside the API, e.g.:", *stray[:10], sep="\n  ")
    failed = True
if c_symbols != declared:
    print("C functions exported but not declared:", sorted(c_symbols - declared))
    print("declared but not exported:", sorted(declared - c_symbols))
    failed = True
for library_name in ("fmt::", "YAML::", "Eigen::", "ccd"):
    if any(library_name in s and not s.startswith(cxx_prefixes) for s in symbols):
        failed = True
sys.exit(1 if failed else 0)
