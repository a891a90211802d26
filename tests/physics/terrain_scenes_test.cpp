// Balls on triangle meshes and heightmaps (design.md §4b), against independent references: a
// triangulated plane is the half-space it lies in (same trajectory, no event at triangle
// boundaries), a V-groove's statics, a ball rolling in a spherical bowl (the rolling pendulum's
// period), and fall-through over ridges (every contact starts and ends at the crossing, never
// by a jump).
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <numbers>
#include <random>
#include <string>

#include <fmt/format.h>

#include "collision/terrain_contact.hpp"
#include "collision/triangle_surface.hpp"
#include "core/errors.hpp"
#include "physics/mesh_fixtures.hpp"
#include "test_support.hpp"

namespace hybridsim {
namespace {

constexpr double g = 9.81;

// Steel, regularised Coulomb friction mu 0.5 (exact above v_small = 1e-4 m/s).
std::string steel_scene_head(double stop_time, double rtol, double output_interval) {
  return fmt::format(
      R"(materials: {{Steel: {{density: 8000, youngs_modulus: 2.0e11, poisson_ratio: 0.3}}}}
contact: {{contact_eps: 1.0e-13}}
contact_materials:
  - pair: [Steel, Steel]
    restitution: 0.5
    friction: {{model: regularized_coulomb, mu_kinetic: 0.5, v_small: 1.0e-4}}
simulation: {{stop_time: {}, rtol: {}, output_interval: {}}}
)",
      stop_time, rtol, output_interval);
}

std::filesystem::path scratch_dir() {
  const auto dir = std::filesystem::temp_directory_path() / "hybridsim_terrain_scenes";
  std::filesystem::create_directories(dir);
  return dir;
}

// A ball (r = 0.05 m) launched rolling and spinning across the ground shape.
Model rolling_ball_scene(const std::string& ground_shape) {
  return load_scene_text(steel_scene_head(1.0, 1e-10, 0.01) + fmt::format(R"(bodies:
  - {{name: ground, fixed: true, shapes: [{}]}}
  - name: ball
    position: [-0.6, -0.3, 0.05]
    linear_velocity: [1.0, 0.4, 0]
    angular_velocity: [0, 0, 3]
    shapes: [{{type: sphere, radius: 0.05, material: Steel}}]
)",
                                                                          ground_shape),
                         "rolling_ball");
}

TEST_CASE("terrain: a ball rolls over a triangulated floor and a flat heightmap as on a plane") {
  // The reference is the same ball on a half-space: the floor (1,058 random triangles) and the
  // heightmap lie in its plane, so the trajectories agree to 1e-8 m (rounding of the plane
  // distances is 1e-17 m: in practice they agree exactly), and the point crossing triangles
  // makes no event: one contact start, at initialisation.
  const auto plane = testing::run_scene(rolling_ball_scene("{type: halfspace, material: Steel}"));
  REQUIRE(plane->result.status == SimulationStatus::ok);
  const auto floor = testing::run_scene(rolling_ball_scene(testing::random_floor_yaml(23, 4)));
  const auto grid = testing::run_scene(rolling_ball_scene(
      "{type: heightmap, grid: [[0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]], size: [2.4, 2.4], "
      "material: Steel}"));
  REQUIRE(floor->model.shapes[0].surface->triangles.size() == 1058);
  for (const auto* run : {floor.get(), grid.get()}) {
    REQUIRE(run->result.status == SimulationStatus::ok);
    CHECK(run->result.contact_starts == 1);
    CHECK(run->result.contact_ends == 0);
    CHECK(run->result.state_events == plane->result.state_events);
    REQUIRE(run->recorder.output_states.size() == plane->recorder.output_states.size());
    double largest = 0.0;
    for (std::size_t k = 0; k < plane->recorder.output_states.size(); ++k) {
      largest =
          std::max(largest, (run->recorder.output_states[k] - plane->recorder.output_states[k])
                                .head(run->model.bodies[1].state_offset + 3)
                                .cwiseAbs()
                                .maxCoeff());
    }
    CHECK(largest <= 1e-8);
  }
  // The ball did roll across many triangles: 0.8 m over cells of 0.087 m.
  const int offset = floor->model.bodies[1].state_offset;
  CHECK(floor->final_state[offset] > 0.0);
}

TEST_CASE("terrain: a box and a capsule rest on a triangulated floor as on a plane") {
  // Corners and segment ends are the points that touch terrain: a box on a randomly triangulated
  // floor stands on four corners, each carrying m g / 4 at its Hertz depth (corner on flat:
  // r_geo = the box's half smallest edge), and a capsule lying on a flat heightmap on its two
  // ends, m g / 2 each (r_geo = its radius). Both are started at those depths: nothing moves,
  // no event (the reference is the statics, as for the half-space in manifold_scenes_test).
  const double c_res = 2.0e11 / (1.0 - 0.09) / 2.0;
  const auto depth = [&](double force, double r_geo) {
    return std::pow(force / (c_res * 4.0 / 3.0 * std::sqrt(r_geo)), 2.0 / 3.0);
  };
  const double box_mass = 8000.0 * 0.2 * 0.16 * 0.1;
  const double box_depth = depth(box_mass * g / 4.0, 0.05);
  const double r = 0.03, length = 0.2;
  const double capsule_mass = 8000.0 * std::numbers::pi * r * r * (length + 4.0 / 3.0 * r);
  const double capsule_depth = depth(capsule_mass * g / 2.0, r);
  const std::string scene = steel_scene_head(0.3, 1e-10, 0.05) +
                            fmt::format(R"(bodies:
  - {{name: ground, fixed: true, shapes: [{floor}]}}
  - {{name: flat, fixed: true, position: [0, 0, -0.5], shapes: [{{type: heightmap, grid: [[0, 0, 0], [0, 0, 0], [0, 0, 0]], size: [2, 2], material: Steel}}]}}
  - name: box
    position: [0.1, -0.2, {zb}]
    orientation: {{rpy: [0, 0, 0.3]}}
    shapes: [{{type: box, size: [0.2, 0.16, 0.1], material: Steel}}]
  - name: capsule
    position: [-0.3, 0.4, {zc}]
    orientation: {{rpy: [0, 1.5707963267948966, 0.7]}}
    shapes: [{{type: capsule, radius: {r}, length: {length}, material: Steel}}]
)",
                                        fmt::arg("floor", testing::random_floor_yaml(12, 8)),
                                        fmt::arg("zb", 0.05 - box_depth - 1e-13),
                                        fmt::arg("zc", -0.5 + r - capsule_depth - 1e-13),
                                        fmt::arg("r", r), fmt::arg("length", length));
  const auto run = testing::run_scene(load_scene_text(scene, "box_and_capsule"));
  REQUIRE(run->result.status == SimulationStatus::ok);
  CHECK(run->result.contact_starts == 6);  // at initialisation
  CHECK(run->result.state_events == 0);
  const auto results = run->system->compute_contact_results(run->final_state);
  REQUIRE(results.size() == 6);
  int box_points = 0;
  for (const ContactResult& result : results) {
    const bool on_box =
        run->model.shapes[static_cast<std::size_t>(result.shape_b)].type == ShapeType::box;
    box_points += on_box ? 1 : 0;
    CHECK(result.normal_force ==
          testing::relative((on_box ? box_mass / 4.0 : capsule_mass / 2.0) * g, 1e-6));
  }
  CHECK(box_points == 4);
}

TEST_CASE("terrain: a box and a box mesh slide over a triangulated floor as on a plane") {
  // Their corners cross the floor's triangles under the surface (about 1.5 um deep); each stays
  // one contact with no event, and the trajectory is the same shape's on a half-space. A box's
  // plane distances agree to rounding on both (1e-8 in every state). The mesh meets the
  // half-space with its hull's manifold, another code path, whose rounding gives the integrator
  // other steps: the two differ by its global error at rtol 1e-9, the position within 1e-9 m
  // (measured 1.2e-11), the quaternion within 1e-8 (1.8e-9: the spin's error integrated) and the
  // velocities within 1e-7 (2.5e-8 rad/s in the spin of 2 rad/s at t = 0.1 s).
  const auto box_scene = [](const std::string& ground, const std::string& box) {
    return load_scene_text(steel_scene_head(0.5, 1e-9, 0.01) + fmt::format(R"(bodies:
  - {{name: ground, fixed: true, shapes: [{}]}}
  - name: box
    position: [-0.5, -0.2, 0.05]
    orientation: {{rpy: [0, 0, 0.3]}}
    linear_velocity: [1.5, 0.5, 0]
    angular_velocity: [0, 0, 2]
    shapes: [{{{}, material: Steel}}]
)",
                                                                           ground, box),
                           "sliding_box");
  };
  for (const bool mesh : {false, true}) {
    CAPTURE(mesh);
    const std::string box =
        mesh ? testing::box_mesh_keys(Vec3(0.1, 0.08, 0.05)) : "type: box, size: [0.2, 0.16, 0.1]";
    const auto plane = testing::run_scene(box_scene("{type: halfspace, material: Steel}", box));
    const auto floor = testing::run_scene(box_scene(testing::random_floor_yaml(15, 21), box));
    REQUIRE(plane->result.status == SimulationStatus::ok);
    REQUIRE(floor->result.status == SimulationStatus::ok);
    CHECK(floor->result.contact_starts == plane->result.contact_starts);
    CHECK(floor->result.contact_ends == plane->result.contact_ends);
    CHECK(floor->result.state_events == plane->result.state_events);
    REQUIRE(floor->recorder.output_states.size() == plane->recorder.output_states.size());
    Eigen::Vector3d largest = Eigen::Vector3d::Zero();  // position, quaternion, velocities
    for (std::size_t k = 0; k < plane->recorder.output_states.size(); ++k) {
      const VectorX d =
          (floor->recorder.output_states[k] - plane->recorder.output_states[k]).cwiseAbs();
      largest = largest.cwiseMax(
          Eigen::Vector3d(d.head(3).maxCoeff(), d.segment(3, 4).maxCoeff(), d.tail(6).maxCoeff()));
    }
    CHECK(largest.x() <= (mesh ? 1e-9 : 1e-8));
    CHECK(largest.y() <= 1e-8);
    CHECK(largest.z() <= (mesh ? 1e-7 : 1e-8));
    const int offset = floor->model.bodies[1].state_offset;
    CHECK(floor->final_state[offset] > -0.3);  // it slid 0.2 m, over triangles of 0.13 m
  }
}

TEST_CASE("terrain: a box and a hull rest on four peaks under their faces, m g / 4 each") {
  // Heightmaps of 5 x 5 points over 0.2 x 0.2 m, flat but for four spikes 2 cm high at
  // (+-0.05, +-0.05); a box 0.3 x 0.3 x 0.1 m (and a hull of the same corners) rests on them with
  // its bottom face, its corners beyond the heightmap. Statics gives each peak m g / 4; the elastic
  // law (a sharp peak on a flat face: r_geo = the box's, half its smallest width, 0.05 m) gives the
  // depth, where the shapes are started: nothing moves, no event. Force and depth within 1e-6
  // (the start's rounding).
  const double c_res = 2.0e11 / (1.0 - 0.09) / 2.0;
  const double mass = 8000.0 * 0.3 * 0.3 * 0.1;
  const double force = mass * g / 4.0;
  const double depth = std::pow(force / (c_res * 4.0 / 3.0 * std::sqrt(0.05)), 2.0 / 3.0);
  const std::string spikes =
      "type: heightmap, grid: [[0, 0, 0, 0, 0], [0, 0.02, 0, 0.02, 0], [0, 0, 0, 0, 0], "
      "[0, 0.02, 0, 0.02, 0], [0, 0, 0, 0, 0]], size: [0.2, 0.2], material: Steel";
  const std::string scene =
      steel_scene_head(0.3, 1e-10, 0.05) + fmt::format(R"(bodies:
  - {{name: left, fixed: true, position: [-1, 0, 0], shapes: [{{{spikes}}}]}}
  - {{name: right, fixed: true, position: [1, 0, 0], shapes: [{{{spikes}}}]}}
  - name: box
    position: [-1, 0, {z}]
    orientation: {{rpy: [0, 0, 0.2]}}
    shapes: [{{type: box, size: [0.3, 0.3, 0.1], material: Steel}}]
  - name: hull
    position: [1, 0, {z}]
    orientation: {{rpy: [0, 0, -0.3]}}
    shapes:
      - type: convex
        material: Steel
        vertices: [[-0.15, -0.15, -0.05], [0.15, -0.15, -0.05], [-0.15, 0.15, -0.05], [0.15, 0.15, -0.05],
                   [-0.15, -0.15, 0.05], [0.15, -0.15, 0.05], [-0.15, 0.15, 0.05], [0.15, 0.15, 0.05]]
)",
                                                       fmt::arg("spikes", spikes),
                                                       fmt::arg("z", 0.02 + 0.05 - depth - 1e-13));
  const auto results = testing::run_at_rest(load_scene_text(scene, "peaks"), 8);
  for (const ContactResult& result : results) {
    CHECK(result.normal_force == testing::relative(force, 1e-6));
    CHECK(result.penetration == testing::relative(depth, 1e-6));
    // At a peak: 0.05 m from the heightmap's centre along both axes (1e-9 m: the witness lies
    // half the depth, 1.5e-6 m, above the peak, straight above it).
    const double x = result.point_W.x() - (result.point_W.x() < 0.0 ? -1.0 : 1.0);
    CHECK(std::abs(std::abs(x) - 0.05) < 1e-9);
    CHECK(std::abs(std::abs(result.point_W.y()) - 0.05) < 1e-9);
  }
}

TEST_CASE("terrain: a box dropped flat onto peaks comes to rest on them") {
  // The spikes above with the box dropped from 5 cm: without the peaks' points it fell past them
  // (its corners lie beyond the heightmap). It bounces on them and settles: after 1 s, at rest
  // (below 1e-4 m/s), its bottom at the spikes' height less the Hertz depth of m g / 4 (1e-7 m),
  // each of the four peaks carrying m g / 4 (1e-3: what is left of the bounces' oscillation).
  const double c_res = 2.0e11 / (1.0 - 0.09) / 2.0;
  const double mass = 8000.0 * 0.3 * 0.3 * 0.1;
  const double depth = std::pow(mass * g / 4.0 / (c_res * 4.0 / 3.0 * std::sqrt(0.05)), 2.0 / 3.0);
  const auto run = testing::run_scene(load_scene_text(steel_scene_head(1.0, 1e-8, 0.05) + R"(bodies:
  - name: spikes
    fixed: true
    shapes: [{type: heightmap, grid: [[0, 0, 0, 0, 0], [0, 0.02, 0, 0.02, 0], [0, 0, 0, 0, 0], [0, 0.02, 0, 0.02, 0], [0, 0, 0, 0, 0]], size: [0.2, 0.2], material: Steel}]
  - name: box
    position: [0, 0, 0.12]
    orientation: {rpy: [0, 0, 0.2]}
    shapes: [{type: box, size: [0.3, 0.3, 0.1], material: Steel}]
)",
                                                      "dropped_on_peaks"));
  REQUIRE(run->result.status == SimulationStatus::ok);
  CHECK(run->result.contact_starts >= 4);
  CHECK(run->final_state.segment<3>(7).norm() < 1e-4);
  CHECK(std::abs(run->final_state[2] - (0.02 + 0.05 - depth)) < 1e-7);
  const auto results = run->system->compute_contact_results(run->final_state);
  REQUIRE(results.size() == 4);
  for (const ContactResult& result : results) {
    CHECK(result.normal_force == testing::relative(mass * g / 4.0, 1e-3));
  }
}

TEST_CASE("terrain: a ball in a V-groove mesh carries m g / (2 cos beta) on each face") {
  // Faces at +-beta (a valley along y): statics gives each face's normal force
  // m g / (2 cos beta); the elastic law f = k delta^1.5 (k = c_res 4/3 sqrt(r), ball on flat)
  // gives the depth, so the ball is placed at rest there and nothing moves.
  const double beta = 0.4, r = 0.05;
  const double mass = 8000.0 * 4.0 / 3.0 * std::numbers::pi * r * r * r;
  const double c_res = 2.0e11 / (1.0 - 0.09) / 2.0;
  const double force = mass * g / (2.0 * std::cos(beta));
  const double depth = std::pow(force / (c_res * 4.0 / 3.0 * std::sqrt(r)), 2.0 / 3.0);
  const std::string scene =
      steel_scene_head(0.3, 1e-10, 0.05) +
      fmt::format(R"(bodies:
  - {{name: ground, fixed: true, shapes: [{groove}]}}
  - name: ball
    position: [0, 0.1, {z}]
    shapes: [{{type: sphere, radius: {r}, material: Steel}}]
)",
                  fmt::arg("groove", testing::v_groove_yaml(beta)), fmt::arg("r", r),
                  fmt::arg("z", (r - depth - 1e-13) / std::cos(beta)));
  for (const ContactResult& result : testing::run_at_rest(load_scene_text(scene, "v_groove"), 2)) {
    // Static balance to the integration tolerance (rtol 1e-10 on a state that stays put).
    CHECK(result.normal_force == testing::relative(force, 1e-6));
    CHECK(std::abs(result.normal_W.x()) == testing::relative(std::sin(beta), 1e-9));
  }
}

// A spherical bowl of radius R = 1 m (heights R - sqrt(R^2 - x^2 - y^2)) sampled every `spacing`
// m over [-half, half]^2, as a CSV heightmap or an OBJ mesh of the same triangles.
std::filesystem::path write_bowl(double spacing, double half, bool mesh) {
  const int n = static_cast<int>(std::lround(2.0 * half / spacing)) + 1;
  const auto height = [](double x, double y) { return 1.0 - std::sqrt(1.0 - x * x - y * y); };
  const auto path = scratch_dir() / (mesh ? "bowl.obj" : "bowl.csv");
  std::ofstream file(path);
  for (int j = 0; j < n; ++j) {
    for (int i = 0; i < n; ++i) {
      const double x = -half + i * spacing, y = -half + j * spacing;
      if (mesh) {
        file << fmt::format("v {:.17g} {:.17g} {:.17g}\n", x, y, height(x, y));
      } else {
        file << fmt::format("{}{:.17g}", i > 0 ? "," : "", height(x, y));
      }
    }
    if (!mesh) file << "\n";
  }
  for (int j = 0; mesh && j + 1 < n; ++j) {
    for (int i = 0; i + 1 < n; ++i) {
      // OBJ indices from 1; the heightmap's split: diagonal from (i, j) to (i + 1, j + 1).
      const int a = j * n + i + 1, b = a + 1, c = a + n + 1, d = a + n;
      file << fmt::format("f {} {} {}\nf {} {} {}\n", a, b, c, a, c, d);
    }
  }
  return path;
}

// The times at which x(t) crosses zero, from the outputs (cubic interpolation, bisection).
std::vector<double> zero_crossings(const testing::Recorder& recorder, int index) {
  std::vector<double> crossings;
  const auto& t = recorder.output_times;
  const auto x = [&](std::size_t k) { return recorder.output_states[k][index]; };
  for (std::size_t k = 2; k + 1 < t.size(); ++k) {
    if ((x(k - 1) > 0.0) == (x(k) > 0.0)) continue;
    const auto lagrange = [&](double time) {
      double sum = 0.0;
      for (std::size_t i = k - 2; i <= k + 1; ++i) {
        double term = x(i);
        for (std::size_t j = k - 2; j <= k + 1; ++j) {
          if (j != i) term *= (time - t[j]) / (t[i] - t[j]);
        }
        sum += term;
      }
      return sum;
    };
    double low = t[k - 1], high = t[k];
    for (int i = 0; i < 60; ++i) {
      const double mid = 0.5 * (low + high);
      ((lagrange(low) > 0.0) == (lagrange(mid) > 0.0) ? low : high) = mid;
    }
    crossings.push_back(0.5 * (low + high));
  }
  return crossings;
}

TEST_CASE(
    "terrain: a ball rolling in a bowl, as a heightmap and as a mesh, has the rolling period") {
  // A ball (r = 0.05 m) rolling without slipping on a sphere of radius R = 1 m: a pendulum of
  // length R - r with inertia 7/5 m, period T0 = 2 pi sqrt(7 (R - r) / (5 g)), at amplitude
  // theta0 = 0.05 rad T0 (1 + theta0^2 / 16 + 11 theta0^4 / 3072) (1.6e-4 above T0).
  // The bowl is faceted at 1 mm (its facets stand up to 1.25e-7 m above the sphere, and the
  // ball crosses valleys between them, each face holding its own point): measured 5e-5 off;
  // 1e-4 allows for that.
  const double R = 1.0, r = 0.05, theta0 = 0.05;
  const double T0 = 2.0 * std::numbers::pi * std::sqrt(7.0 * (R - r) / (5.0 * g));
  const double T = T0 * (1.0 + theta0 * theta0 / 16.0 + 11.0 * std::pow(theta0, 4) / 3072.0);
  for (const bool mesh : {false, true}) {
    CAPTURE(mesh);
    const auto file = write_bowl(0.001, 0.06, mesh);
    const std::string ground =
        mesh ? fmt::format("{{type: mesh, mesh: '{}', material: Steel}}", file.string())
             : fmt::format("{{type: heightmap, csv: '{}', size: [0.12, 0.12], material: Steel}}",
                           file.string());
    const std::string scene =
        steel_scene_head(1.4 * T, 1e-9, 5e-4) + fmt::format(R"(bodies:
  - {{name: ground, fixed: true, shapes: [{}]}}
  - name: ball
    position: [{:.17g}, 0, {:.17g}]
    shapes: [{{type: sphere, radius: {}, material: Steel}}]
)",
                                                            ground, (R - r) * std::sin(theta0),
                                                            R - (R - r) * std::cos(theta0), r);
    const auto run = testing::run_scene(load_scene_text(scene, "bowl"));
    REQUIRE(run->result.status == SimulationStatus::ok);
    const auto crossings = zero_crossings(run->recorder, run->model.bodies[1].state_offset);
    REQUIRE(crossings.size() >= 3);
    CHECK(crossings[2] - crossings[0] == testing::relative(T, 1e-4));
  }
}

TEST_CASE("terrain: a small ball launched over ridges never falls through, no contact jumps") {
  // Ridges and valleys along x every 0.1 m (heights 0 and 0.03 m in alternate rows), a ball of
  // r = 0.02 m (smaller than the spacing) launched from above the middle in 100 random
  // directions at 1 m/s. References: the ball's centre stays above the surface at its own
  // (x, y) (it is never below any face it is over), and every contact starts and ends where its
  // distance crosses the hysteresis (-3 eps, -eps) to the root finder's tolerance: a contact
  // that ended because its point jumped would end deep in the surface.
  std::string rows;
  for (int row = 0; row < 13; ++row) {
    rows +=
        fmt::format("[{}], ", fmt::join(std::vector<double>(13, row % 2 == 1 ? 0.03 : 0.0), ", "));
  }
  std::mt19937 random(17);
  std::uniform_real_distribution<double> angle(0.0, 2.0 * std::numbers::pi);
  int launches_touching = 0;  // launches that met the ridges
  for (int launch = 0; launch < 100; ++launch) {
    CAPTURE(launch);
    const double a = angle(random);
    const std::string scene =
        steel_scene_head(0.6, 1e-8, 0.002) + fmt::format(R"(bodies:
  - {{name: ground, fixed: true, shapes: [{{type: heightmap, grid: [{}], size: [1.2, 1.2], material: Steel}}]}}
  - name: ball
    position: [0.013, 0.021, 0.1]
    linear_velocity: [{:.17g}, {:.17g}, 0]
    shapes: [{{type: sphere, radius: 0.02, material: Steel}}]
)",
                                                         rows, std::cos(a), std::sin(a));
    const auto run = testing::run_scene(load_scene_text(scene, "ridges"));
    REQUIRE(run->result.status == SimulationStatus::ok);
    // The surface's height under the centre: rows are level along x, so it is linear in y
    // between rows (0.1 m apart from y = -0.6).
    const auto surface_height = [](double y) {
      const double row = (y + 0.6) / 0.1;
      const double below = std::floor(row);
      const auto level = [](double r) { return std::fmod(r, 2.0) == 1.0 ? 0.03 : 0.0; };
      return level(below) + (row - below) * (level(below + 1.0) - level(below));
    };
    const int offset = run->model.bodies[1].state_offset;
    for (const VectorX& x : run->recorder.output_states) {
      const Vec3 c(x[offset], x[offset + 1], x[offset + 2]);
      if (std::abs(c.x()) > 0.58 || std::abs(c.y()) > 0.58) continue;  // off the grid
      CHECK(c.z() > surface_height(c.y()));
    }
    for (const EventRecord& record : run->recorder.contact_records()) {
      if (record.t == 0.0) continue;
      const double expected = record.kind == EventRecord::Kind::contact_start ? -2e-13 : 0.0;
      CHECK(std::abs(record.crossing_distance - expected) < 1e-10);
    }
    launches_touching += run->result.contact_starts > 0 ? 1 : 0;
  }
  CHECK(launches_touching == 100);
}

TEST_CASE("terrain: scenes with bad terrain are refused naming file, key and place") {
  const auto message = [](const std::string& shape, bool fixed = true) {
    try {
      load_scene_text(steel_scene_head(0.1, 1e-6, 0.1) +
                          fmt::format(R"(bodies:
  - {{name: ground, fixed: {}, {}shapes: [{}]}}
  - {{name: ball, position: [0, 0, 1], shapes: [{{type: sphere, radius: 0.1, material: Steel}}]}}
)",
                                      fixed, fixed ? "" : "mass: 1, inertia: [1, 1, 1], ", shape),
                      "terrain");
    } catch (const std::exception& error) {
      return std::string(error.what());
    }
    return std::string("accepted");
  };
  const auto csv = scratch_dir() / "bad.csv";
  std::ofstream(csv) << "0, 0, 0\n0, nan, 0\n";
  CHECK(message(fmt::format("{{type: heightmap, csv: '{}', size: [1, 1], material: Steel}}",
                            csv.string()))
            .find("row 1, column 1: ' nan' is not a finite height") != std::string::npos);
  CHECK(message("{type: heightmap, grid: [[0, 0], [0, .inf]], size: [1, 1], material: Steel}")
            .find("grid[1][1]") != std::string::npos);
  CHECK(message("{type: heightmap, grid: [[0, 0], [0, 0]], size: [1, 1, 1], material: Steel}")
            .find("a grid needs size [x, y]") != std::string::npos);
  CHECK(message("{type: mesh, mesh: no_such.obj, material: Steel}").find("no_such.obj") !=
        std::string::npos);
  CHECK(message("{type: mesh, vertices: [[0, 0, 0], [1, 0, 0], [0, 1, 0]], triangles: [[0, 1, "
                "5]], material: Steel}")
            .find("triangle 0 names vertex 5") != std::string::npos);
  CHECK(message("{type: heightmap, grid: [[0, 0], [0, 0]], size: [1, 1], material: Steel}", false)
            .find("a heightmap belongs to a fixed body") != std::string::npos);
  // A heightmap and a cylinder: not supported yet, said so.
  try {
    load_scene_text(steel_scene_head(0.1, 1e-6, 0.1) + R"(bodies:
  - {name: ground, fixed: true, shapes: [{type: heightmap, grid: [[0, 0], [0, 0]], size: [1, 1], material: Steel}]}
  - {name: can, position: [0, 0, 1], shapes: [{type: cylinder, radius: 0.1, length: 0.1, material: Steel}]}
)",
                    "terrain_cylinder");
    FAIL("accepted");
  } catch (const NotSupportedError& error) {
    CHECK(std::string(error.what()).find("not supported yet") != std::string::npos);
  }
  // Degenerate triangles are kept out and reported as a warning.
  const Model model = load_scene_text(steel_scene_head(0.1, 1e-6, 0.1) + R"(bodies:
  - {name: ground, fixed: true, shapes: [{type: mesh, vertices: [[0, 0, 0], [1, 0, 0], [0, 1, 0], [2, 0, 0]], triangles: [[0, 1, 2], [0, 1, 3]], material: Steel}]}
  - {name: ball, position: [0.2, 0.2, 1], shapes: [{type: sphere, radius: 0.1, material: Steel}]}
)",
                                      "degenerate");
  REQUIRE(model.warnings.size() == 1);
  CHECK(model.warnings[0].kind == "degenerate_mesh");
  CHECK(model.warnings[0].message.find("1 degenerate triangles skipped") != std::string::npos);
}

}  // namespace
}  // namespace hybridsim

namespace hybridsim {
namespace {

// The largest rise of the energy between outputs, relative to its first value.
double largest_energy_rise(const testing::Recorder& recorder) {
  double rise = 0.0;
  const auto& energy = recorder.output_energies;
  for (std::size_t k = 1; k < energy.size(); ++k) rise = std::max(rise, energy[k] - energy[k - 1]);
  return rise / std::abs(energy.front());
}

TEST_CASE("catalog heightmap_hills: energy never rises, every ball stays above the hills") {
  const auto run = testing::run_scene(load_scene_file("heightmap_hills"));
  REQUIRE(run->result.status == SimulationStatus::ok);
  CHECK(run->result.contact_starts > 20);
  MESSAGE("largest energy rise ", largest_energy_rise(run->recorder));
  CHECK(largest_energy_rise(run->recorder) < 1e-6);
  const auto terrain = testing::pgm_terrain(
      std::string(HYBRIDSIM_MODELS_DIR) + "/scenes/meshes/hills.pgm", 4.0, 4.0, 0.3);
  for (std::size_t body = 1; body < run->model.bodies.size(); ++body) {
    const int offset = run->model.bodies[body].state_offset;
    for (const VectorX& x : run->recorder.output_states) {
      if (std::abs(x[offset]) > 2.0 || std::abs(x[offset + 1]) > 2.0) continue;
      CHECK(x[offset + 2] > terrain(x[offset], x[offset + 1]));
    }
  }
}

TEST_CASE("terrain: the default contact_eps keeps grazes along valleys from chattering") {
  // heightmap_hills gives no contact_eps: with terrain it is 1e-7 of the smallest moving shape,
  // its balls' radius 0.1 m (a scene without terrain keeps 1e-13 m, a given one stays).
  const Model hills = load_scene_file("heightmap_hills");
  CHECK(hills.contact.contact_eps == kTerrainGrazeHysteresis * 0.1);
  CHECK(load_scene_file("bouncing_sphere").contact.contact_eps == 1e-13);
  // Balls rolling along the valleys graze the faces beside them. With eps 1e-12 m at rtol 1e-6
  // the graze's vibration starts and ends contacts until the Zeno guard stops the run (it is what
  // the default is for); with the default every rtol from 1e-2 to 1e-6 runs through.
  const auto chattering = testing::run_scene(
      load_scene_file("heightmap_hills", {"contact.contact_eps=1e-12", "simulation.rtol=1e-6"}));
  CHECK(chattering->result.status == SimulationStatus::zeno_guard);
  for (const double rtol : {1e-2, 1e-4, 1e-6}) {
    CAPTURE(rtol);
    const auto run = testing::run_scene(
        load_scene_file("heightmap_hills", {fmt::format("simulation.rtol={:g}", rtol),
                                            fmt::format("simulation.atol={:g}", rtol * 1e-3)}));
    CHECK(run->result.status == SimulationStatus::ok);
  }
}

TEST_CASE("catalog mesh_bowl: energy never rises, every marble stays inside the bowl") {
  const auto run = testing::run_scene(load_scene_file("mesh_bowl"));
  REQUIRE(run->result.status == SimulationStatus::ok);
  CHECK(run->result.contact_starts > 20);
  MESSAGE("largest energy rise ", largest_energy_rise(run->recorder));
  CHECK(largest_energy_rise(run->recorder) < 1e-6);
  // The facets are chords of the sphere (centre (0, 0, 0.5), R = 0.5 m): a marble (r = 0.02 m)
  // on them has its centre within R - r of the centre; the penetration (1e-6 m) aside.
  for (std::size_t body = 1; body < run->model.bodies.size(); ++body) {
    const int offset = run->model.bodies[body].state_offset;
    for (const VectorX& x : run->recorder.output_states) {
      CHECK((Vec3(x[offset], x[offset + 1], x[offset + 2]) - Vec3(0, 0, 0.5)).norm() < 0.48 + 1e-5);
    }
  }
}

TEST_CASE("terrain: a ball rolls off the border of a heightmap over its edge, with no jump") {
  // An open surface ends at its border: the ball rolls over the border edge (its distance to the
  // edge line, continuous) and falls. The energy never rises and the contact ends where its
  // distance crosses -eps, not by a jump to the plane beyond the border.
  // Slow enough (v^2 / r < g) to roll over the edge rather than fly off it.
  const Model model = load_scene_text(steel_scene_head(1.5, 1e-8, 0.002) + R"(bodies:
  - {name: plate, fixed: true, shapes: [{type: heightmap, grid: [[0, 0, 0], [0, 0, 0], [0, 0, 0]], size: [1, 1], material: Steel}]}
  - name: ball
    position: [0.4, 0.05, 0.05]
    linear_velocity: [0.2, 0, 0]
    angular_velocity: [0, 4, 0]
    shapes: [{type: sphere, radius: 0.05, material: Steel}]
)",
                                      "off_the_border");
  const auto run = testing::run_scene(model);
  REQUIRE(run->result.status == SimulationStatus::ok);
  CHECK(largest_energy_rise(run->recorder) < 1e-6);
  const auto records = run->recorder.contact_records();
  REQUIRE(records.size() >= 2);
  CHECK(records.back().kind == EventRecord::Kind::contact_end);
  CHECK(std::abs(records.back().crossing_distance) < 1e-10);
  // It left the plate: below it at the end.
  CHECK(run->final_state[run->model.bodies[1].state_offset + 2] < 0.0);
}

}  // namespace
}  // namespace hybridsim
