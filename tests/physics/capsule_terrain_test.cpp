// A capsule's side on terrain ridges (design.md §4b), against independent references: a capsule
// lying over a table's edge shares its weight between its end and the edge by the lever rule, each
// point at the Hertz depth of its load; a capsule sliding along a ridge rolls at the speed that
// conservation of angular momentum about the contact line gives, with no event where the ridge
// passes from cell to cell, as on a one-edge roof; capsules dropped onto hills never gain energy
// and never pass through.
#include <doctest/doctest.h>

#include <cmath>
#include <numbers>
#include <string>

#include <fmt/format.h>

#include "core/errors.hpp"
#include "physics/mesh_fixtures.hpp"
#include "test_support.hpp"

namespace hybridsim {
namespace {

constexpr double g = 9.81;
constexpr double kDensity = 8000.0;
std::string scene_head(double stop_time, double rtol) {
  return testing::steel_head(stop_time, rtol, rtol * 1e-3);
}

// The Hertz depth (m) under `force` (N) of a point whose law has the capsule's radius r_geo.
double hertz_depth(double force, double r_geo) {
  return testing::steel_hertz_depth(force, r_geo);
}

double capsule_mass(double r, double length) {
  return kDensity * std::numbers::pi * r * r * (length + 4.0 / 3.0 * r);
}

// About its axis: the cylinder's m r^2 / 2 and the two hemispheres' 2/5 m r^2.
double capsule_axial_inertia(double r, double length) {
  return kDensity * std::numbers::pi * std::pow(r, 4) * (length / 2.0 + 8.0 / 15.0 * r);
}

TEST_CASE("capsule on terrain: lying over a table's edge it rests on its end and the edge") {
  // A capsule (r = 0.05 m, 0.6 m) lies along x on a table (a closed box mesh, top at z = 0,
  // x <= 0.2), its end 0 on the top at x = -0.25, its centre of mass at x = 0.05 and end 1 out
  // in the air. Statics: the end and the edge share m g by the lever rule, the edge
  // (0.05 + 0.25) / 0.45 = 2/3 of it; each point at the Hertz depth of its load. Friction is
  // below 1e-5 N (the creep of a 3e-6 rad tilt): its moment about the centre, against the
  // lever's 40 N m, is below 1e-6 of it. Dropped from 0.1 um, settled by the impact's damping
  // within 0.5 s. Without the side the capsule tips over the edge and falls.
  const double r = 0.05, length = 0.6;
  const double mass = capsule_mass(r, length);
  const std::string scene =
      scene_head(0.5, 1e-8) +
      fmt::format(
          R"(bodies:
  - {{name: table, fixed: true, shapes: [{{{table}, material: Steel}}]}}
  - name: rod
    position: [0.05, 0, {z}]
    orientation: {{rpy: [0, 1.5707963267948966, 0]}}
    shapes: [{{type: capsule, radius: {r}, length: {length}, material: Steel}}]
)",
          fmt::arg("table", testing::box_mesh_keys(Vec3(0.35, 0.5, 0.1), Vec3(-0.15, 0, -0.1))),
          fmt::arg("z", r + 1e-7), fmt::arg("r", r), fmt::arg("length", length));
  const auto run = testing::run_scene(load_scene_text(scene, "capsule_over_edge"));
  REQUIRE(run->result.status == SimulationStatus::ok);
  const auto results = run->system->compute_contact_results(run->final_state);
  REQUIRE(results.size() == 2);
  for (const ContactResult& result : results) {
    const bool side = result.feature_b[0] == static_cast<int>(FeatureKind::edge);
    CAPTURE(side);
    const double share = side ? 2.0 / 3.0 : 1.0 / 3.0;
    CHECK(result.point_W.x() == doctest::Approx(side ? 0.2 : -0.25).epsilon(1e-4));
    CHECK(result.normal_force == testing::relative(share * mass * g, 1e-6));
    CHECK(result.penetration == testing::relative(hertz_depth(share * mass * g, r), 1e-6));
    CHECK(result.normal_W.z() == doctest::Approx(1.0).epsilon(1e-9));
  }
}

// A ridge along y at x = 0, z = 0.3, its faces falling 0.3 m over 1 m: a heightmap of 20 x 40
// cells of 0.1 m (the ridge a chain of 40 edges, its vertices on no peak) or a mesh of two
// rectangles (one edge).
std::string ridge_heightmap() {
  std::string rows;
  for (int row = 0; row < 41; ++row) {
    std::string heights;
    for (int column = 0; column < 21; ++column) {
      heights += fmt::format("{}{:.17g}", column == 0 ? "" : ", ",
                             0.3 - 0.3 * std::abs(-1.0 + 0.1 * column));
    }
    rows += fmt::format("{}[{}]", row == 0 ? "" : ", ", heights);
  }
  return fmt::format("{{type: heightmap, material: Steel, size: [2, 4], grid: [{}]}}", rows);
}

constexpr const char* kRidgeMesh =
    "{type: mesh, material: Steel, vertices: [[-1, -2, 0], [0, -2, 0.3], [1, -2, 0], [-1, 2, 0], "
    "[0, 2, 0.3], [1, 2, 0]], triangles: [[0, 1, 4], [0, 4, 3], [1, 2, 5], [1, 5, 4]]}";

TEST_CASE("capsule on terrain: sliding along a ridge it rolls, one contact across the cells") {
  // A capsule (r = 0.05 m, 0.6 m) lies across the ridge, balanced on it, and is launched along
  // it at v0 = 1 m/s. Friction at the ridge (mu 0.5) slows it and spins it up until it rolls:
  // angular momentum about the contact line is conserved, so it rolls on at
  // v0 / (1 + I / (m rho^2)), rho = r - delta / 2 the lever of the contact point (the midpoint of
  // the overlap, delta the Hertz depth of m g). Regularised friction leaves e^(-60) of the slip
  // after 1 s. Started between two of the heightmap's rows (tests/collision's side tests cross a
  // vertex right over it), the point walks along 7 of the ridge's edges and their vertices:
  // no event at all (started at its static depth), and the same motion as on the one-edge roof
  // (1e-9 m: the two differ by rounding only).
  const double r = 0.05, length = 0.6, v0 = 1.0;
  const double mass = capsule_mass(r, length);
  const double delta = hertz_depth(mass * g, r);
  const auto ridge_scene = [&](const std::string& ground) {
    return load_scene_text(
        scene_head(1.0, 1e-9) + fmt::format(R"(bodies:
  - {{name: ground, fixed: true, shapes: [{ground}]}}
  - name: rod
    position: [0, -1.45, {z}]
    orientation: {{rpy: [0, 1.5707963267948966, 0]}}
    linear_velocity: [0, {v0}, 0]
    shapes: [{{type: capsule, radius: {r}, length: {length}, material: Steel}}]
)",
                                            fmt::arg("ground", ground),
                                            fmt::arg("z", 0.3 + r - delta), fmt::arg("v0", v0),
                                            fmt::arg("r", r), fmt::arg("length", length)),
        "capsule_on_ridge");
  };
  const auto grid = testing::run_scene(ridge_scene(ridge_heightmap()));
  const auto roof = testing::run_scene(ridge_scene(kRidgeMesh));
  for (const auto* run : {grid.get(), roof.get()}) {
    REQUIRE(run->result.status == SimulationStatus::ok);
    CHECK(run->result.contact_starts == 1);  // at initialisation
    CHECK(run->result.contact_ends == 0);
    CHECK(run->result.state_events == 0);
  }
  const double lever = r - delta / 2.0;
  const double v_rolling = v0 / (1.0 + capsule_axial_inertia(r, length) / (mass * lever * lever));
  const int offset = grid->model.bodies[1].state_offset;
  CHECK(grid->final_state[offset + 8] == testing::relative(v_rolling, 1e-6));
  CHECK(grid->final_state[offset + 1] > -0.85);  // crossed 6 cells of the grid at least
  REQUIRE(grid->recorder.output_states.size() == roof->recorder.output_states.size());
  double largest = 0.0;
  for (std::size_t k = 0; k < grid->recorder.output_states.size(); ++k) {
    largest = std::max(largest, (grid->recorder.output_states[k].segment(offset, 3) -
                                 roof->recorder.output_states[k].segment(offset, 3))
                                    .cwiseAbs()
                                    .maxCoeff());
  }
  CHECK(largest <= 1e-9);
}

TEST_CASE("capsule on terrain: capsules dropped onto hills never gain energy nor pass through") {
  // Six capsules (r = 0.04 m, 0.5 m), tumbling, dropped from 0.6-0.9 m onto the sine-wave hills
  // of heightmap_hills: friction and the impacts' damping only take energy (largest rise between
  // outputs below 1e-6 of the start: the integration error at rtol 1e-6); the axis stays at least
  // r above the surface less 0.1 mm (a point at distance r from the surface lies at least r
  // above it; 0.1 mm is 2.5 times the Hertz depth of a whole capsule landing at 4 m/s on one
  // point). Without the side they sink onto the crests and the run meets the Zeno guard.
  const double r = 0.04;
  std::string bodies;
  const double poses[6][9] = {
      {0.57, -0.76, 0.71, -2.3, 0.4, 1.1, 0.2, -0.3, 1.5},
      {-0.87, 0.95, 0.64, 0.7, 2.1, -0.6, -0.4, 0.1, -2.2},
      {0.12, 0.33, 0.88, 1.9, -1.2, 2.8, 0.3, 0.4, 0.8},
      {-1.05, -0.62, 0.77, -0.2, 1.4, 0.5, 0.0, -0.2, -1.1},
      {1.02, 0.58, 0.69, 2.6, 0.9, -1.7, -0.5, 0.0, 2.4},
      {-0.31, -1.14, 0.83, -1.4, -0.7, 0.3, 0.1, 0.5, -0.6},
  };
  for (int k = 0; k < 6; ++k) {
    const auto& p = poses[k];
    bodies += fmt::format(R"(  - name: rod_{}
    position: [{}, {}, {}]
    orientation: {{rpy: [{}, {}, {}]}}
    linear_velocity: [{}, {}, 0]
    angular_velocity: [0, 0, {}]
    shapes: [{{type: capsule, radius: {}, length: 0.5, material: Steel}}]
)",
                          k, p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], r);
  }
  const std::string hills = std::string(HYBRIDSIM_MODELS_DIR) + "/scenes/meshes/hills.pgm";
  const std::string scene =
      scene_head(3.0, 1e-6) +
      fmt::format(
          "bodies:\n  - {{name: hills, fixed: true, shapes: [{{type: heightmap, image: {}, size: "
          "[4, 4, 0.3], material: Steel}}]}}\n",
          hills) +
      bodies;
  const auto run = testing::run_scene(load_scene_text(scene, "capsule_hills"));
  REQUIRE(run->result.status == SimulationStatus::ok);
  CHECK(run->result.contact_starts > 20);
  const auto& energy = run->recorder.output_energies;
  double rise = 0.0;
  for (std::size_t k = 1; k < energy.size(); ++k) rise = std::max(rise, energy[k] - energy[k - 1]);
  MESSAGE("largest energy rise ", rise / energy.front());
  CHECK(rise / energy.front() < 1e-6);
  const auto terrain = testing::pgm_terrain(hills, 4.0, 4.0, 0.3);
  double lowest = kInfinity;
  for (std::size_t body = 1; body < run->model.bodies.size(); ++body) {
    const int offset = run->model.bodies[body].state_offset;
    for (const VectorX& x : run->recorder.output_states) {
      const Quat q(x[offset + 3], x[offset + 4], x[offset + 5], x[offset + 6]);
      const Vec3 axis = q.normalized() * Vec3::UnitZ();
      for (int i = 0; i <= 20; ++i) {
        const Vec3 p = x.segment<3>(offset) + (-0.25 + 0.025 * i) * axis;
        if (std::abs(p.x()) > 2.0 || std::abs(p.y()) > 2.0) continue;
        lowest = std::min(lowest, p.z() - terrain(p.x(), p.y()) - r);
      }
    }
  }
  MESSAGE("lowest axis point above the hills, less r: ", lowest, " m");
  CHECK(lowest > -1e-4);
}

}  // namespace
}  // namespace hybridsim
