#!/usr/bin/env bash
# Installs the Debian packages hybridsim builds with, if any is missing (needs root or sudo).
# With --test also those the tests use: Chromium for the replay page, pytest for the Python package,
# h5py for the HDF5 trajectory; and ODE and Bullet, the engines of the benchmarks' peer programs
# (tools/bench/), so that every build that runs the tests also compiles the peers;
# with --fuzz clang for the fuzzers.
set -euo pipefail
packages=(cmake gcc g++ make pkg-config libsundials-dev libsuitesparse-dev libeigen3-dev libccd-dev libqhull-dev libtinyobjloader-dev libpng-dev doctest-dev
          libtinyxml2-dev libtinyxml-dev liburdfdom-dev libsdformat-dev
          libyaml-cpp-dev nlohmann-json3-dev libcli11-dev libfmt-dev
          libopenmpi-dev openmpi-bin python3 python3-matplotlib libjs-three
          python3-dev python3-numpy pybind11-dev libhdf5-dev)
if [ "${1:-}" = "--test" ]; then packages+=(chromium python3-pytest python3-h5py libode-dev libbullet-dev); fi
# With --fuzz: clang and its libFuzzer and sanitizer runtimes (tools/fuzz.sh).
if [ "${1:-}" = "--fuzz" ]; then packages+=(clang libclang-rt-14-dev); fi
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" \
    || missing+=("$package")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "Installing: ${missing[*]}"
as_root=()
[ "$(id -u)" -eq 0 ] || as_root=(sudo)
export DEBIAN_FRONTEND=noninteractive
"${as_root[@]}" apt-get update -qq
"${as_root[@]}" apt-get install -y --no-install-recommends "${missing[@]}"
