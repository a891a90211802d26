#!/usr/bin/env bash
# Builds hybridsim and runs the whole test suite through ctest.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$root/tools/install_dependencies.sh" --test
bash "$root/tools/build.sh"
# The Khronos glTF-Validator for the glTF test, where npm can fetch it (the test says when not).
if command -v npm >/dev/null && [ ! -d "$root/build/gltf-validator/node_modules/gltf-validator" ]; then
  npm install --silent --prefix "$root/build/gltf-validator" gltf-validator >/dev/null 2>&1 \
    || echo "note: npm could not install gltf-validator; the glTF test checks the structure only"
fi
cd "$root/build"
ctest --output-on-failure -j "$(nproc)"
