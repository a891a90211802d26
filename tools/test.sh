#!/usr/bin/env bash
# Builds hybridsim and runs the whole test suite through ctest.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$root/tools/build.sh"
cd "$root/build"
ctest --output-on-failure -j "$(nproc)"
