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

# 3. Catalog names resolve to the installed catalog, found from where the code is installed (the
# source tree's copy is only the fallback): mark the installed copy and look for the mark.
scene="$prefix/share/hybridsim/scenes/bouncing_sphere.yaml"
sed -i 's/^  stop_time: 3.0$/  stop_time: 0.25/; s/position: \[0, 0, 1.1\]/position: [0, 0, 2.1]/' "$scene"
grep -q 'stop_time: 0.25' "$scene" && grep -q 'position: \[0, 0, 2.1\]' "$scene"
"$prefix/bin/hybridsim" run bouncing_sphere --quiet --summary "$work/summary.json"
grep -q '"t_end": 0.25' "$work/summary.json"
echo "installed CLI: the installed catalog"
cat >"$work/catalog_host.c" <<'C'
#include <stdio.h>
#include "hybridsim/hybridsim.h"
int main(void) {
  hybridsim_simulator* sim = hybridsim_create();
  hybridsim_body_state ball = {.size = sizeof ball};
  int ok = hybridsim_load_file(sim, "bouncing_sphere") == HYBRIDSIM_OK &&
           hybridsim_get_body_state(sim, "ball", &ball) == HYBRIDSIM_OK &&
           ball.position[2] == 2.1;
  if (!ok) fprintf(stderr, "catalog_host: %s\n", hybridsim_error_message(sim));
  hybridsim_free(sim);
  return ok ? 0 : 1;
}
C
# shellcheck disable=SC2046
cc -std=c99 -o "$work/catalog_host" "$work/catalog_host.c" $(pkg-config --cflags --libs hybridsim) \
  -Wl,-rpath,"$libdir"
"$work/catalog_host"
echo "shared library host: the installed catalog"
# The optional modules: installed in LIBDIR/hybridsim and found from there (not the build tree's).
modules=$(realpath "$libdir")/hybridsim
"$prefix/bin/hybridsim" --version | grep -q "^module import: $modules/libhybridsim_import.so$"
"$prefix/bin/hybridsim" --version | grep -q "^module hdf5: $modules/libhybridsim_hdf5.so$"
"$prefix/bin/hybridsim" run "$source_dir/tests/models/import/data/pendulum.urdf" --quiet \
  --stop-time 0.01 --summary "$work/urdf.json"
grep -q '"t_end": 0.01' "$work/urdf.json"
echo "installed CLI: a URDF file through the installed import module"
cat >"$work/import_host.c" <<'C'
#include <stdio.h>
#include "hybridsim/hybridsim.h"
int main(int argc, char** argv) {
  hybridsim_simulator* sim = hybridsim_create();
  int ok = argc == 2 && hybridsim_load_file(sim, argv[1]) == HYBRIDSIM_OK;
  if (!ok) fprintf(stderr, "import_host: %s\n", hybridsim_error_message(sim));
  hybridsim_free(sim);
  return ok ? 0 : 1;
}
C
# shellcheck disable=SC2046
cc -std=c99 -o "$work/import_host" "$work/import_host.c" $(pkg-config --cflags --libs hybridsim) \
  -Wl,-rpath,"$libdir"
"$work/import_host" "$source_dir/tests/models/import/data/tricycles_uphill.sdf"
echo "shared library host: an SDFormat file through the installed import module"
# 4. The Python package in the prefix's site-packages, with the installed catalog.
site=$(find "$prefix" -path '*-packages/hybridsim/__init__.py' | head -1)
if [ -n "$site" ]; then
  (cd "$work" && PYTHONPATH="$(dirname "$(dirname "$site")")" /usr/bin/python3 -c '
import hybridsim
sim = hybridsim.Simulator("bouncing_sphere")
assert sim.body_state("ball")["position"][2] == 2.1, sim.body_state("ball")
assert hybridsim.__file__.startswith("'"$prefix"'"), hybridsim.__file__
hybridsim.Simulator("'"$source_dir"'/tests/models/import/data/pendulum.urdf")
modules = [l.split()[-1] for l in open("/proc/self/maps") if "libhybridsim_import.so" in l]
assert modules and all(m.startswith("'"$prefix"'") for m in modules), modules
')
  echo "python: import hybridsim from the prefix, the installed catalog, the installed import module"
fi
echo "install check passed"
