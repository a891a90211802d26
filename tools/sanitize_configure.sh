#!/usr/bin/env bash
# Configures build-sanitize/: clang with AddressSanitizer and UndefinedBehaviorSanitizer, the
# libFuzzer harnesses and the test suite, without the benchmarks and the Python package. One build
# serves tools/fuzz.sh and tools/sanitize.sh, so that CI compiles the library once for both.
# Prints the build directory.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$root/build-sanitize"
bash "$root/tools/install_dependencies.sh" --fuzz >&2
# An older build-sanitize/ configured with another compiler cannot be reconfigured: start afresh.
if [ -f "$build/CMakeCache.txt" ] && ! grep -q "CMAKE_CXX_COMPILER:.*clang++" "$build/CMakeCache.txt"; then
  rm -rf "$build"
fi
CC=clang CXX=clang++ cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DHYBRIDSIM_SANITIZE=address,undefined -DHYBRIDSIM_FUZZ=ON -DHYBRIDSIM_BUILD_TESTS=ON \
  -DHYBRIDSIM_BUILD_BENCH=OFF -DHYBRIDSIM_BUILD_PYTHON=OFF >/dev/null
echo "$build"
