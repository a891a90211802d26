#!/usr/bin/env bash
# Builds hybridsim and its tests with AddressSanitizer and UndefinedBehaviorSanitizer into
# build-sanitize/ and runs the test suite there: any memory error, leak or undefined behaviour
# fails it. Slower than the Release suite (about 5x); not part of .ci/run.
#
#   bash tools/sanitize.sh [ctest arguments, e.g. -R wheels]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$root/tools/install_dependencies.sh"
cmake -S "$root" -B "$root/build-sanitize" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DHYBRIDSIM_SANITIZE=address,undefined >/dev/null
cmake --build "$root/build-sanitize" -j "$(nproc)"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:strict_string_checks=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
cd "$root/build-sanitize"
# The installed-package test builds hosts against an install of the (sanitised) library; the MPI
# runs go separately: Open MPI's own start-up allocations are never freed (leaks in libmpi and its
# plugins, not ours), so there LeakSanitizer is off while AddressSanitizer and UBSan stay on. The
# Python package is left out: its extension cannot load the sanitiser runtime into Debian's python3
# (the runtime must come first in the process); its C++ core is the library tested here.
ctest -j "$(nproc)" -E "^install:|mpirun|^python:" --output-on-failure "$@"
ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 ctest -R "mpirun" --output-on-failure "$@"
