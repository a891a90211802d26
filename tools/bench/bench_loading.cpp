// Loading a scene in a process that loads many (a batch, a host, the Python package): the first
// load of the process, which also reads the built-in material palette, against the later ones,
// which copy the palette read then; and the palette's YAML parse alone.
//
//   build/tools/bench/hybridsim_bench_loading [SCENE]   (default bouncing_sphere)
#include <chrono>
#include <string>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "models/palette.hpp"
#include "models/scene_loader.hpp"
#include "tools/bench/bench_timing.hpp"

int main(int argc, char** argv) {
  using namespace hybridsim;
  const std::string scene = argc > 1 ? argv[1] : "bouncing_sphere";
  const auto start = std::chrono::steady_clock::now();
  const Model first = load_scene_file(scene);
  const double first_us = bench::seconds_since(start) * 1e6;
  const double later_us = bench::median_us([&](int) { (void)load_scene_file(scene); }, 100);
  const double palette_us =
      bench::median_us([](int) { (void)YAML::Load(kMaterialPaletteYaml); }, 100);
  fmt::print("{}: {} bodies, {} materials\n", scene, first.bodies.size(), first.materials.size());
  fmt::print("first load of the process   {:8.1f} us\n", first_us);
  fmt::print("later loads (median)        {:8.1f} us\n", later_us);
  fmt::print("palette YAML parse (median) {:8.1f} us\n", palette_us);
}
