#!/usr/bin/env bash
# Configures and builds hybridsim (Release) into build/, after installing what is missing.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$root/tools/install_dependencies.sh"
# Warnings are errors in CI only (a user's newer compiler may warn of something new).
werror=OFF
if [ -n "${CI:-}" ]; then werror=ON; fi
cmake -S "$root" -B "$root/build" -DCMAKE_BUILD_TYPE=Release -DHYBRIDSIM_WERROR="$werror" >/dev/null
cmake --build "$root/build" -j "$(nproc)"
