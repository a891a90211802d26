#!/usr/bin/env bash
# Installs the build into a temporary prefix, then builds and runs the example hosts against the
# installed package only: with find_package(hybridsim) (the C++ and C examples) and with
# pkg-config (the C example as C99, the C++ thermostat as C++20), and runs the installed CLI on
# the installed catalog. Usage: check_install.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build_dir=$1
source_dir=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix

cmake --install "$build_dir" --prefix "$prefix" >"$work/install.log"
echo "installed into $prefix:"
(cd "$prefix" && find . -type f | sort | sed 's/^/  /' | head -40)

# 1. CMake package.
cmake -S "$source_dir/tools/examples" -B "$work/cmake-host" -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_BUILD_TYPE=Release >"$work/configure.log"
cmake --build "$work/cmake-host" -j2 >"$work/build.log"
for example in push_ball thermostat bounce_c; do
  echo "find_package host: $example"
  "$work/cmake-host/$example"
done

# 2. pkg-config.
pc_file=$(find "$prefix" -name hybridsim.pc | head -1)
export PKG_CONFIG_PATH=$(dirname "$pc_file")
libdir=$(pkg-config --variable=libdir hybridsim)
test "$(pkg-config --modversion hybridsim)" = "$(sed -n 's/^project(hybridsim VERSION \([0-9.]*\).*/\1/p' "$source_dir/CMakeLists.txt")"
# shellcheck disable=SC2046
cc -std=c99 -Wall -Wextra -Werror -o "$work/bounce_pkgconfig" "$source_dir/tools/examples/bounce.c" \
  $(pkg-config --cflags --libs hybridsim) -lm -Wl,-rpath,"$libdir"
echo "pkg-config host: bounce.c"
"$work/bounce_pkgconfig"
# shellcheck disable=SC2046
c++ -std=c++20 -O1 -Wall -Wextra -Werror -o "$work/thermostat_pkgconfig" \
  "$source_dir/tools/examples/thermostat.cpp" $(pkg-config --cflags --libs hybridsim) \
  -Wl,-rpath,"$libdir"
echo "pkg-config host: thermostat.cpp"
"$work/thermostat_pkgconfig"

# 3. The installed CLI (the library linked in) on a catalog scene.
"$prefix/bin/hybridsim" run bouncing_sphere --quiet --stop-time 0.5
echo "install check passed"
