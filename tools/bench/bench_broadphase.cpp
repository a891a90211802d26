// hybridsim_bench_broadphase: the cost of the broadphase and of the crossing functions as the
// number of shapes grows (issue 3).
//  1. One broadphase update (AABBs, three incremental endpoint sorts, the pair set) for 1,000 and
//     10,000 spheres moving at 1 m/s in random directions inside a cube that keeps about one
//     overlapping pair per sphere, updates 1 ms apart.
//  2. One evaluation of z1/z2 (MultibodySystem::compute_crossings: kinematics, broadphase, the
//     narrowphase of every contact and candidate pair) for 100, 1,000 and 10,000 spheres resting
//     on a floor in a square grid, each in contact with it; the ratio of consecutive sizes against
//     the N log N ratio.
//  3. One evaluation of the right-hand side (MultibodySystem::compute_derivatives) at the same
//     states, 100 to 10,000 spheres.
// Each figure is the median of 11 rounds; run in one process so the ratios compare like with like.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "bench_timing.hpp"
#include "collision/broadphase.hpp"
#include "models/multibody_system.hpp"
#include "models/scene_loader.hpp"

namespace {

using Clock = std::chrono::steady_clock;
using hybridsim::Vec3;

using hybridsim::bench::median_us;

double n_log_n(double n) {
  return n * std::log(n);
}

// The last row's size and time, for the growth ratio.
struct Previous {
  int count = 0;
  double us = 0.0;
};

// One row: time per call, a count, and the growth from the previous row against N log N.
void print_row(const std::string& name, double us, std::size_t column, int count,
               Previous& previous) {
  std::printf("%-44s %12.1f %12zu", name.c_str(), us, column);
  if (previous.count > 0) {
    std::printf("   x%.1f for x%.1f spheres (N log N: x%.1f)", us / previous.us,
                static_cast<double>(count) / previous.count,
                n_log_n(count) / n_log_n(previous.count));
  }
  std::printf("\n");
  previous = {count, us};
}

void bench_moving_spheres() {
  std::printf("%-44s %12s %12s\n", "broadphase update, moving spheres", "us/update", "pairs");
  Previous previous;
  for (const int count : {1000, 10000}) {
    hybridsim::Model model;
    std::mt19937 random(3);
    const double half_side = 0.5 * std::cbrt(count / 1000.0);
    std::uniform_real_distribution<double> position(-half_side, half_side), radius(0.02, 0.05);
    std::normal_distribution<double> normal;
    for (int i = 0; i < count; ++i) {
      hybridsim::Body body;
      body.name = fmt::format("s{}", i);
      body.shapes.push_back(i);
      model.bodies.push_back(body);
      hybridsim::Shape shape;
      shape.body = i;
      shape.type = hybridsim::ShapeType::sphere;
      shape.radius = radius(random);
      model.shapes.push_back(shape);
    }
    std::vector<hybridsim::Pose> poses(count);
    std::vector<Vec3> velocities(count);
    for (int i = 0; i < count; ++i) {
      poses[i].translation = Vec3(position(random), position(random), position(random));
      velocities[i] = Vec3(normal(random), normal(random), normal(random)).normalized();
    }
    hybridsim::Broadphase broadphase(model);
    broadphase.update(poses);
    const double dt = 1e-3;
    const double us = median_us(
        [&](int) {
          // Reflected at the walls of the cube, so that the density stays as set.
          for (int i = 0; i < count; ++i) {
            Vec3& p = poses[i].translation;
            p += dt * velocities[i];
            for (int axis = 0; axis < 3; ++axis) {
              if (std::abs(p[axis]) > half_side) velocities[i][axis] = -velocities[i][axis];
            }
          }
          broadphase.update(poses);
        },
        200);
    print_row(fmt::format("{} spheres", count), us, broadphase.candidate_pair_count(), count,
              previous);
    // For scale: the brute-force check of every pair's AABBs at the same poses.
    std::vector<hybridsim::Aabb> boxes(count);
    std::size_t brute_pairs = 0;
    const double brute_us = median_us(
        [&](int) {
          for (int i = 0; i < count; ++i)
            boxes[i] = hybridsim::compute_aabb(model.shapes[i], poses[i]);
          brute_pairs = 0;
          for (int a = 0; a < count; ++a) {
            for (int b = a + 1; b < count; ++b)
              brute_pairs += hybridsim::aabbs_overlap(boxes[a], boxes[b]);
          }
        },
        count <= 1000 ? 20 : 1);
    std::printf("%-44s %12.1f %12zu\n", fmt::format("  brute force, {} spheres", count).c_str(),
                brute_us, brute_pairs);
  }
}

void bench_resting_spheres() {
  std::printf("\n%-44s %12s %12s\n", "z1/z2 evaluation, resting spheres", "us/eval", "contacts");
  Previous previous;
  Previous previous_rhs;
  std::vector<std::string> rhs_rows;
  for (const auto& [nx, ny] :
       {std::pair{10, 10}, std::pair{25, 40}, std::pair{56, 56}, std::pair{100, 100}}) {
    const int count = nx * ny;
    // Steel spheres of 0.05 m, 0.12 m apart, each about 1 um into the floor (a jitter of 0.1 um
    // in height, as a settled grid has, so that no two endpoints tie).
    const std::string scene = fmt::format(R"(
bodies:
  - {{name: floor, fixed: true, shapes: [{{type: halfspace, material: Steel}}]}}
  - name: ball
    position: [0, 0, 0.049999]
    array: {{counts: [{}, {}, 1], spacing: [0.12, 0.12, 0], jitter: [1.0e-3, 1.0e-3, 1.0e-7]}}
    shapes: [{{type: sphere, radius: 0.05, material: Steel}}]
)",
                                          nx, ny);
    const hybridsim::Model model = hybridsim::load_scene_text(scene, "resting_grid.yaml");
    hybridsim::MultibodySystem system(model);
    hybridsim::VectorX x(system.state_size()), z(system.crossing_count());
    system.initial_state(x);
    system.initialize(0.0, x);
    const double us = median_us(
        [&](int i) {
          x[2] += (i % 2 == 0 ? 1e-9 : -1e-9);  // the first ball moves: no caching helps
          system.compute_crossings(0.0, x, z);
        },
        std::max(10, 20000 / count));
    print_row(fmt::format("{} spheres ({} x {})", count, nx, ny), us,
              static_cast<std::size_t>(count), count, previous);
    // The right-hand side at the same state: every ball's contact force, kinematics and
    // Newton-Euler derivatives (the contacts are the ones the crossings above keep).
    hybridsim::VectorX xdot(system.state_size());
    const double rhs_us = median_us(
        [&](int i) {
          x[2] += (i % 2 == 0 ? 1e-9 : -1e-9);
          system.compute_derivatives(0.0, x, xdot);
        },
        std::max(20, 100000 / count));
    rhs_rows.push_back(fmt::format("{} spheres ({} x {})", count, nx, ny));
    rhs_rows.back() = fmt::format("{:<44} {:12.1f} {:12}", rhs_rows.back(), rhs_us, count);
    if (previous_rhs.count > 0) {
      rhs_rows.back() +=
          fmt::format("   x{:.1f} for x{:.1f} spheres (N log N: x{:.1f})", rhs_us / previous_rhs.us,
                      static_cast<double>(count) / previous_rhs.count,
                      n_log_n(count) / n_log_n(previous_rhs.count));
    }
    previous_rhs = {count, rhs_us};
  }
  std::printf("\n%-44s %12s %12s\n", "right-hand side, resting spheres", "us/eval", "contacts");
  for (const std::string& row : rhs_rows) std::printf("%s\n", row.c_str());
}

}  // namespace

// Runs both parts, or the one named (moving, resting) for profiling.
int main(int argc, char** argv) {
  const std::string part = argc > 1 ? argv[1] : "";
  if (part.empty() || part == "moving") bench_moving_spheres();
  if (part.empty() || part == "resting") bench_resting_spheres();
  return 0;
}
