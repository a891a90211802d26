#!/usr/bin/env bash
# Builds the libFuzzer harnesses (tests/fuzz) with clang, AddressSanitizer and UBSan into
# build-sanitize/ (tools/sanitize_configure.sh) and runs each for SECONDS (default 60) on a seed
# corpus: the catalog's scenes, the importers' SDFormat, URDF and MJCF test files (the small
# ones), tests/fuzz/corpus, its OBJ meshes, and a
# checkpoint of Newton's cradle. A crash, a leak, undefined behaviour, an input that takes more
# than 2 s or 2 GB, or an error message without its file fails the run; the input is kept in
# build-sanitize/findings/ (make it a regression test). Prints each harness's input count.
#
#   bash tools/fuzz.sh [SECONDS]
set -euo pipefail
seconds="${1:-60}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$(bash "$root/tools/sanitize_configure.sh")"
cmake --build "$build" -j "$(nproc)" --target fuzz_scene_loader fuzz_import_reader \
  fuzz_mesh_reader fuzz_checkpoint_reader

corpus="$build/corpus"
mkdir -p "$corpus/scene" "$corpus/import" "$corpus/mesh" "$corpus/checkpoint" "$build/findings"
cp "$root"/models/scenes/*.yaml "$corpus/scene/"
cp "$root"/tests/models/import/data/*.urdf "$root"/tests/models/import/data/*.xml \
  "$root"/tests/models/import/data/tricycles_uphill.sdf \
  "$root"/tests/fuzz/corpus/import/* "$corpus/import/"
cp "$root"/models/scenes/meshes/*.obj "$corpus/mesh/"
cp "$root"/tests/fuzz/corpus/checkpoint/* "$corpus/checkpoint/"

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export LSAN_OPTIONS="suppressions=$root/tools/lsan_suppressions.txt"
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
status=0
cd "$root/models/scenes"  # scenes refer to meshes by paths relative to the catalog
for harness in scene_loader:scene import_reader:import mesh_reader:mesh checkpoint_reader:checkpoint; do
  name="${harness%%:*}"
  dir="${harness##*:}"
  log="$build/fuzz_$name.log"
  if "$build/tests/fuzz/fuzz_$name" "$corpus/$dir" -max_total_time="$seconds" -timeout=2 \
    -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 \
    -artifact_prefix="$build/findings/${name}-" >"$log" 2>&1; then
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo "?")
    echo "fuzz_$name: $runs inputs in ${seconds} s, no finding"
  else
    echo "fuzz_$name: FINDING (see $log and $build/findings/)" >&2
    tail -30 "$log" >&2
    status=1
  fi
done
exit "$status"
