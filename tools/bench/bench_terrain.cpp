// hybridsim_bench_terrain: what terrain costs.
//  1. 100 steel spheres (r = 0.05 m) resting in a 10 x 10 grid, each about 1 um deep, on a
//     half-space and on flat heightmaps of 64 x 64, 256 x 256 and 1024 x 1024 points over the same
//     4 x 4 m: one evaluation of the crossing functions z1/z2 and one of the right-hand side, side
//     by side, with the ratio to the half-space. The heightmap is only queried under each ball,
//     so the cost must not grow with its size.
//  2. 100 boxes resting in the same grid on the half-space and on the 256 x 256 heightmap, as
//     boxes (corners, and peaks under their faces on terrain) and as box meshes on free bodies
//     (their vertices).
//  3. 100 capsules lying in the same grid on the half-space and on the 256 x 256 heightmap: their
//     ends, and on terrain the search for ridges under their sides.
//  4. Loading a scene whose ground is a 100,352-triangle OBJ mesh (a 225 x 225 grid of hills):
//     reading the file, building neighbours, creases and the bounding-volume hierarchy.
// Each figure is the median of 11 rounds after a warm-up, in one process.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "bench_timing.hpp"
#include "models/multibody_system.hpp"
#include "models/scene_loader.hpp"

namespace {

using Clock = std::chrono::steady_clock;

using hybridsim::bench::median_us;

struct Costs {
  double crossings_us;
  double rhs_us;
  std::size_t contacts;
};

// 100 bodies of `shape` in a 10 x 10 grid, their centres at `height` over the ground.
Costs time_resting(const std::string& ground, const std::string& shape, double height) {
  const std::string scene = fmt::format(R"(
bodies:
  - {{name: ground, fixed: true, shapes: [{}]}}
  - name: ball
    position: [-0.54, -0.54, {}]
    array: {{counts: [10, 10, 1], spacing: [0.12, 0.12, 0], jitter: [1.0e-3, 1.0e-3, 1.0e-7]}}
    shapes: [{{{}, material: Steel}}]
)",
                                        ground, height, shape);
  const hybridsim::Model model = hybridsim::load_scene_text(scene, "resting_on_terrain.yaml");
  hybridsim::MultibodySystem system(model);
  hybridsim::VectorX x(system.state_size()), z(system.crossing_count()), xdot(system.state_size());
  system.initial_state(x);
  system.initialize(0.0, x);
  const int offset = model.bodies[1].state_offset;
  Costs costs{};
  costs.crossings_us = median_us(
      [&](int i) {
        x[offset + 2] += (i % 2 == 0 ? 1e-9 : -1e-9);  // a ball moves: no caching helps
        system.compute_crossings(0.0, x, z);
      },
      2000);
  costs.rhs_us = median_us(
      [&](int i) {
        x[offset + 2] += (i % 2 == 0 ? 1e-9 : -1e-9);
        system.compute_derivatives(0.0, x, xdot);
      },
      2000);
  costs.contacts = system.compute_contact_results(x).size();
  return costs;
}

// A flat heightmap of `points` x `points` heights over 4 x 4 m, as an inline shape.
std::string flat_heightmap(int points) {
  std::string row = "[0";
  for (int i = 1; i < points; ++i) row += ", 0";
  row += "]";
  std::string grid = row;
  for (int j = 1; j < points; ++j) grid += ", " + row;
  return fmt::format("{{type: heightmap, grid: [{}], size: [4, 4], material: Steel}}", grid);
}

void print_costs(const std::string& label, const Costs& costs, const Costs& plane) {
  std::printf("%-34s %10.2f %10.2f %9.2f %9.2f %9zu\n", label.c_str(), costs.crossings_us,
              costs.rhs_us, costs.crossings_us / plane.crossings_us, costs.rhs_us / plane.rhs_us,
              costs.contacts);
}

void bench_resting_spheres() {
  std::printf("%-34s %10s %10s %9s %9s %9s\n", "100 resting spheres on", "z1/z2 us", "rhs us",
              "z ratio", "rhs ratio", "contacts");
  const std::string ball = "type: sphere, radius: 0.05";
  const Costs plane = time_resting("{type: halfspace, material: Steel}", ball, 0.049999);
  print_costs("half-space", plane, plane);
  for (const int points : {64, 256, 1024}) {
    print_costs(fmt::format("heightmap {} x {}", points, points),
                time_resting(flat_heightmap(points), ball, 0.049999), plane);
  }
}

// Boxes (0.1 x 0.1 x 0.05 m) and the same boxes as meshes on free bodies: four corners each, and
// on terrain the search for peaks under each box's faces (a box, not a mesh).
void bench_resting_boxes() {
  std::printf("\n%-34s %10s %10s %9s %9s %9s\n", "100 resting boxes on", "z1/z2 us", "rhs us",
              "z ratio", "rhs ratio", "contacts");
  const std::string box = "type: box, size: [0.1, 0.1, 0.05]";
  const std::string mesh =
      "type: mesh, vertices: [[-0.05, -0.05, -0.025], [0.05, -0.05, -0.025], [-0.05, 0.05, "
      "-0.025], [0.05, 0.05, -0.025], [-0.05, -0.05, 0.025], [0.05, -0.05, 0.025], [-0.05, 0.05, "
      "0.025], [0.05, 0.05, 0.025]], triangles: [[0, 2, 3], [0, 3, 1], [4, 5, 7], [4, 7, 6], [0, "
      "1, 5], [0, 5, 4], [2, 6, 7], [2, 7, 3], [0, 4, 6], [0, 6, 2], [1, 3, 7], [1, 7, 5]], "
      "group: 2, mask: 1";  // two free meshes have no contact rule: kept apart
  const double height = 0.025 - 1e-6;
  const Costs plane = time_resting("{type: halfspace, material: Steel}", box, height);
  print_costs("boxes, half-space", plane, plane);
  print_costs("boxes, heightmap 256 x 256", time_resting(flat_heightmap(256), box, height), plane);
  print_costs("box meshes, half-space",
              time_resting("{type: halfspace, material: Steel}", mesh, height), plane);
  print_costs("box meshes, heightmap 256 x 256", time_resting(flat_heightmap(256), mesh, height),
              plane);
}

// Capsules (r = 0.025 m, 0.06 m long) lying on their sides: their two ends on the half-space; on
// terrain the ends' walks and the search for ridges and peaks under their sides (none on a flat
// heightmap: every crease is flat, but the search looks at every triangle under the capsule).
void bench_resting_capsules() {
  std::printf("\n%-34s %10s %10s %9s %9s %9s\n", "100 resting capsules on", "z1/z2 us", "rhs us",
              "z ratio", "rhs ratio", "contacts");
  const std::string capsule =
      "type: capsule, radius: 0.025, length: 0.06, orientation: {rpy: [0, 1.5707963267948966, 0]}";
  const double height = 0.025 - 1e-6;
  const Costs plane = time_resting("{type: halfspace, material: Steel}", capsule, height);
  print_costs("capsules, half-space", plane, plane);
  print_costs("capsules, heightmap 256 x 256", time_resting(flat_heightmap(256), capsule, height),
              plane);
}

void bench_mesh_load() {
  const auto dir = std::filesystem::temp_directory_path() / "hybridsim_bench_terrain";
  std::filesystem::create_directories(dir);
  const int n = 225;  // points a side: 2 (n - 1)^2 = 100,352 triangles
  {
    std::ofstream obj(dir / "hills.obj");
    for (int j = 0; j < n; ++j) {
      for (int i = 0; i < n; ++i) {
        const double x = -2.0 + 4.0 * i / (n - 1), y = -2.0 + 4.0 * j / (n - 1);
        obj << fmt::format("v {:.9f} {:.9f} {:.9f}\n", x, y,
                           0.15 * (1.0 + std::sin(3.0 * x) * std::sin(3.0 * y)));
      }
    }
    for (int j = 0; j + 1 < n; ++j) {
      for (int i = 0; i + 1 < n; ++i) {
        const int a = j * n + i + 1, b = a + 1, c = a + n + 1, d = a + n;
        obj << fmt::format("f {} {} {}\nf {} {} {}\n", a, b, c, a, c, d);
      }
    }
  }
  const std::string scene = fmt::format(R"(
bodies:
  - {{name: ground, fixed: true, shapes: [{{type: mesh, mesh: '{}', material: Steel}}]}}
  - {{name: ball, position: [0, 0, 1], shapes: [{{type: sphere, radius: 0.05, material: Steel}}]}}
)",
                                        (dir / "hills.obj").string());
  std::vector<double> seconds;
  for (int round = 0; round < 6; ++round) {
    const auto start = Clock::now();
    const hybridsim::Model model = hybridsim::load_scene_text(scene, "mesh_load.yaml");
    if (round > 0) {
      seconds.push_back(std::chrono::duration<double>(Clock::now() - start).count());
    }
  }
  std::sort(seconds.begin(), seconds.end());
  std::printf("\n%-34s %10.3f s (median of 5)\n", "load 100,352-triangle OBJ mesh",
              seconds[seconds.size() / 2]);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string part = argc > 1 ? argv[1] : "";
  if (part.empty() || part == "resting") bench_resting_spheres();
  if (part.empty() || part == "boxes") bench_resting_boxes();
  if (part.empty() || part == "capsules") bench_resting_capsules();
  if (part.empty() || part == "load") bench_mesh_load();
  return 0;
}
