// Boxes on faces with contact manifolds (design.md §4b): a resting box carries its weight on four
// corners at the Hertz depth of a quarter load, a box slides down an incline at g (sin - mu cos)
// without pitching, and a tower of five boxes stands still; a cylinder stands on four rim points,
// lies on two, slides upright without pitching and tips over past the statics' angle only. The
// references are statics and the contact law's closed form: each corner is an elastic point f =
// c_res c_geo delta^1.5 (design.md §5; box against a flat: r_geo = the box's half smallest edge;
// two boxes: r1 r2 / (r1 + r2)).
#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <numbers>
#include <vector>

#include <fmt/format.h>

#include "collision/contact_manifold.hpp"
#include "test_support.hpp"

namespace hybridsim {
namespace {

constexpr double g = 9.81;
constexpr double kEps = 1e-13;  // the scenes' contact_eps
// Steel on steel: c = E / (1 - nu^2), c_res = c c / (c + c).
const double c_res = 2.0e11 / (1.0 - 0.09) / 2.0;

// The stiffness c_res c_geo of a corner with contact radius r_geo.
double corner_stiffness(double r_geo) {
  return c_res * 4.0 / 3.0 * std::sqrt(r_geo);
}

// Penetration delta of a corner that carries `force` (N): force = k delta^1.5.
double corner_depth(double force, double r_geo) {
  return std::pow(force / corner_stiffness(r_geo), 2.0 / 3.0);
}

// Steel, regularised Coulomb friction mu (exact above v_small = 1e-4 m/s), contact points `points`.
std::string steel(double mu, const char* points = "manifold") {
  return fmt::format(
      R"(materials: {{Steel: {{density: 8000, youngs_modulus: 2.0e11, poisson_ratio: 0.3}}}}
contact: {{contact_eps: 1.0e-13, points: {}}}
contact_materials:
  - pair: [Steel, Steel]
    restitution: 0.5
    friction: {{model: regularized_coulomb, mu_kinetic: {}, v_small: 1.0e-4}}
)",
      points, mu);
}

// Runs a body started at rest on `count` points in equilibrium: nothing happens, each point
// carries `load` at `depth` (the start's rounding, 1e-17 m of 1.5e-6, aside: 1e-6), and the body
// stays at `height` (1e-12 m is rounding of the force balance).
void check_resting(const Model& model, std::size_t count, double load, double depth,
                   double height) {
  const auto run = testing::run_scene(model);
  REQUIRE(run->result.status == SimulationStatus::ok);
  CHECK(run->result.contact_starts == static_cast<long>(count));  // at initialisation
  CHECK(run->result.state_events == 0);
  const auto results = run->system->compute_contact_results(run->final_state);
  REQUIRE(results.size() == count);
  for (const ContactResult& r : results) {
    CAPTURE(r.slot);
    CHECK(r.normal_force == testing::relative(load, 1e-6));
    CHECK(r.penetration == testing::relative(depth, 1e-6));
    CHECK(r.feature_b[0] == static_cast<int>(FeatureKind::vertex));
  }
  const int offset = run->model.bodies[1].state_offset;
  CHECK(std::abs(run->final_state[offset + 2] - height) < 1e-12);
}

TEST_CASE("manifold: a box resting on a plane carries m g / 4 on each corner at its Hertz depth") {
  // 0.2 x 0.16 x 0.1 m steel box, turned 0.3 rad about z, started at the depth where four corners
  // carry m g / 4 each: nothing moves, nothing happens.
  const double mass = 8000.0 * 0.2 * 0.16 * 0.1;
  const double depth = corner_depth(mass * g / 4.0, 0.05);
  const std::string scene =
      steel(0.5) +
      fmt::format(R"(simulation: {{stop_time: 0.5, rtol: 1.0e-10, output_interval: 0.05}}
bodies:
  - {{name: ground, fixed: true, shapes: [{{type: halfspace, material: Steel}}]}}
  - name: box
    position: [0.3, -0.2, {z}]
    orientation: {{rpy: [0, 0, 0.3]}}
    shapes: [{{type: box, size: [0.2, 0.16, 0.1], material: Steel}}]
)",
                  fmt::arg("z", 0.05 - depth - kEps));
  check_resting(load_scene_text(scene, "box_rest"), 4, mass * g / 4.0, depth, 0.05 - depth - kEps);
}

// The sliding box's pose in the incline's frame (x down the slope, z its normal): height z of
// its centre and pitch phi about y at which the corners carry the weight's normal part and the
// friction's moment about the centre of mass is balanced by the normal forces, found by Newton's
// method on these two equations of statics.
struct SlidingPose {
  double z;
  double phi;
};

SlidingPose solve_sliding_pose(double mass, double theta, double mu, const Vec3& size) {
  const double k = corner_stiffness(0.5 * size.minCoeff());
  const auto residual = [&](double z, double phi) {
    Eigen::Vector2d r(-mass * g * std::cos(theta), 0.0);
    for (int i = 0; i < 4; ++i) {
      const Vec3 corner_B(((i & 1) ? 0.5 : -0.5) * size.x(), ((i & 2) ? 0.5 : -0.5) * size.y(),
                          -0.5 * size.z());
      const Vec3 p = Eigen::AngleAxisd(phi, Vec3::UnitY()) * corner_B + Vec3(0, 0, z);
      const double delta = -(p.z() + kEps);
      const double f = delta > 0.0 ? k * std::pow(delta, 1.5) : 0.0;
      // The force acts at C, midway between the corner and its foot on the plane.
      const Vec3 lever(p.x(), p.y(), 0.5 * p.z() - z);
      const Vec3 force(-mu * f, 0.0, f);  // sliding in +x
      r[0] += f;
      r[1] += lever.cross(force).y();
    }
    return r;
  };
  double z = 0.5 * size.z() - corner_depth(mass * g * std::cos(theta) / 4.0, 0.5 * size.z());
  double phi = 0.0;
  for (int iteration = 0; iteration < 50; ++iteration) {
    const Eigen::Vector2d r = residual(z, phi);
    Eigen::Matrix2d J;
    const double hz = 1e-12, hphi = 1e-11;
    J.col(0) = (residual(z + hz, phi) - residual(z - hz, phi)) / (2 * hz);
    J.col(1) = (residual(z, phi + hphi) - residual(z, phi - hphi)) / (2 * hphi);
    const Eigen::Vector2d step = J.fullPivLu().solve(r);
    z -= step[0];
    phi -= step[1];
  }
  return {z, phi};
}

// The box of a sliding run (body 1) from output `first` on: its largest angular speed (rad/s),
// and its acceleration along x between output `first` and the last (m/s^2).
struct SlidingMotion {
  double largest_angular_speed = 0.0;
  double acceleration = 0.0;
};
SlidingMotion measure_sliding(const testing::Run& run, std::size_t first) {
  const int offset = run.model.bodies[1].state_offset;
  const auto& states = run.recorder.output_states;
  const auto& times = run.recorder.output_times;
  SlidingMotion motion;
  for (std::size_t i = first; i < states.size(); ++i) {
    motion.largest_angular_speed =
        std::max(motion.largest_angular_speed, states[i].segment<3>(offset + 10).norm());
  }
  const std::size_t last = states.size() - 1;
  motion.acceleration =
      (states[last][offset + 7] - states[first][offset + 7]) / (times[last] - times[first]);
  return motion;
}

TEST_CASE("manifold: a box slides down an incline at g (sin - mu cos) without pitching") {
  // 30 degrees, mu = 0.3, sliding from 0.5 m/s: the incline is the floor under tilted gravity.
  // Started in the sliding equilibrium, the corners keep their depths: the acceleration is
  // g (sin theta - mu cos theta) exactly, and the box never pitches. With one point per pair it
  // rocks (the one point moves along the face as the box tilts).
  const double theta = std::numbers::pi / 6.0, mu = 0.3;
  const Vec3 size(0.2, 0.16, 0.1);
  const double mass = 8000.0 * size.prod();
  const SlidingPose pose = solve_sliding_pose(mass, theta, mu, size);
  CAPTURE(pose.phi);
  const std::string scene =
      steel(mu) + fmt::format(R"(gravity: [{gx}, 0, {gz}]
simulation: {{stop_time: 1.0, rtol: 1.0e-8, output_interval: 0.01}}
bodies:
  - {{name: ground, fixed: true, shapes: [{{type: halfspace, material: Steel}}]}}
  - name: box
    position: [0, 0, {z}]
    orientation: {{rpy: [0, {phi}, 0]}}
    linear_velocity: [0.5, 0, 0]
    shapes: [{{type: box, size: [0.2, 0.16, 0.1], material: Steel}}]
)",
                              fmt::arg("gx", g * std::sin(theta)),
                              fmt::arg("gz", -g * std::cos(theta)),
                              fmt::arg("z", fmt::format("{:.17g}", pose.z)),
                              fmt::arg("phi", fmt::format("{:.17g}", pose.phi)));
  const auto run = testing::run_scene(load_scene_text(scene, "box_incline"));
  REQUIRE(run->result.status == SimulationStatus::ok);
  CHECK(run->result.state_events == 0);
  CHECK(run->result.contact_starts == 4);
  // Fewer than 2,000 steps per simulated second (box_incline with one point per pair: 81,449).
  CHECK(run->result.stats.steps < 2000);
  // From the start the pitch rate stays below 1e-9 rad/s (measured 3e-12); the acceleration from
  // 0.1 s to 1 s: the steady state is exact, rtol 1e-8 bounds it.
  CHECK(measure_sliding(*run, 0).largest_angular_speed < 1e-9);
  CHECK(measure_sliding(*run, 10).acceleration ==
        testing::relative(g * (std::sin(theta) - mu * std::cos(theta)), 1e-6));
}

// A steel cylinder (r = 0.1 m, length 0.3 m) on the floor, at the given pose and height.
std::string cylinder_scene(double stop_time, const std::string& orientation, double z,
                           const char* points = "manifold") {
  return steel(0.5, points) +
         fmt::format(R"(simulation: {{stop_time: {}, rtol: 1.0e-8, output_interval: 0.01}}
bodies:
  - {{name: ground, fixed: true, shapes: [{{type: halfspace, material: Steel}}]}}
  - name: can
    position: [0, 0, {:.17g}]
    orientation: {}
    shapes: [{{type: cylinder, radius: 0.1, length: 0.3, material: Steel}}]
)",
                     stop_time, z, orientation);
}

TEST_CASE("manifold: a cylinder standing on its flat carries m g / 4 on four rim points") {
  // Its contact radius is half the smaller of its diameter and length, 0.1 m (design.md §5).
  const double mass = 8000.0 * std::numbers::pi * 0.01 * 0.3;
  const double depth = corner_depth(mass * g / 4.0, 0.1);
  check_resting(
      load_scene_text(cylinder_scene(0.5, "{rpy: [0, 0, 0.4]}", 0.15 - depth - kEps), "can"), 4,
      mass * g / 4.0, depth, 0.15 - depth - kEps);
  // Lying on its side: one point on each rim, m g / 2 each.
  const double side_depth = corner_depth(mass * g / 2.0, 0.1);
  check_resting(
      load_scene_text(
          cylinder_scene(0.5, "{rpy: [0, 1.5707963267948966, 0]}", 0.1 - side_depth - kEps), "can"),
      2, mass * g / 2.0, side_depth, 0.1 - side_depth - kEps);
}

TEST_CASE("manifold: a cylinder wheel and a frustum rounded to a point keep one point") {
  // A wheel's law applies its normal-force estimate at each point: a cylinder tyre lying on the
  // floor keeps one point (two rims would double the slip force, or halve it as it tilts).
  const double mass = 8000.0 * std::numbers::pi * 0.01 * 0.3;
  const double depth = corner_depth(mass * g, 0.1);
  std::string wheel = cylinder_scene(0.01, "{rpy: [1.5707963267948966, 0, 0]}", 0.1 - depth - kEps);
  wheel +=
      "wheels: [{name: tyre, body: can, axis: [0, 0, 1], normal_force: 100.0,\n"
      "          slip_compliance: {lateral: 0.01, longitudinal: 0.01}}]\n";
  const auto wheel_run = testing::run_scene(load_scene_text(wheel, "wheel"));
  REQUIRE(wheel_run->result.status == SimulationStatus::ok);
  CHECK(wheel_run->system->compute_contact_results(wheel_run->final_state).size() == 1);
  // The same cylinder as no wheel: a point on each rim.
  const auto can_run = testing::run_scene(load_scene_text(
      cylinder_scene(0.01, "{rpy: [1.5707963267948966, 0, 0]}", 0.1 - depth - kEps), "can"));
  CHECK(can_run->system->compute_contact_results(can_run->final_state).size() == 2);
  // A frustum standing on its narrow end (radius 2 mm), rounded by 1 cm: its core ends there in
  // an apex, one point (four would stack there at four times the stiffness).
  Shape frustum;
  frustum.type = ShapeType::cone;
  frustum.radius = 0.002;
  frustum.top_radius = 0.1;
  frustum.length = 0.1;
  frustum.smoothing_radius = 0.01;
  CHECK_FALSE(has_round_flats(frustum));
  frustum.smoothing_radius = 0.0;
  CHECK(has_round_flats(frustum));
}

TEST_CASE("manifold: a standing cylinder slides down an incline at g (sin - mu cos)") {
  // 30 degrees, mu = 0.3, sliding from 0.5 m/s, started upright at the depth of a quarter of the
  // normal load per point. Friction tilts it forwards by a few microradians, onto its downhill
  // rim point and its two side points; once that settles the acceleration is
  // g (sin theta - mu cos theta) exactly. With one point per pair (contact.points: single) the
  // same run takes 218,618 steps and still pitches at 0.065 rad/s after 1 s.
  const double theta = std::numbers::pi / 6.0, mu = 0.3;
  const double mass = 8000.0 * std::numbers::pi * 0.01 * 0.3;
  const double depth = corner_depth(mass * g * std::cos(theta) / 4.0, 0.1);
  std::string scene = cylinder_scene(2.0, "{rpy: [0, 0, 0]}", 0.15 - depth - kEps);
  scene =
      fmt::format("gravity: [{:.17g}, 0, {:.17g}]\n", g * std::sin(theta), -g * std::cos(theta)) +
      scene;
  scene.replace(scene.find("mu_kinetic: 0.5"), 15, "mu_kinetic: 0.3");
  scene.replace(scene.find("    orientation"), 0, "    linear_velocity: [0.5, 0, 0]\n");
  const auto run = testing::run_scene(load_scene_text(scene, "can_incline"));
  REQUIRE(run->result.status == SimulationStatus::ok);
  CHECK(run->result.state_events == 0);
  CHECK(run->result.stats.steps < 4000);  // fewer than 2,000 per simulated second (measured 329)
  // From 1 s to 2 s: no pitching (measured 2e-14 rad/s), the steady state's acceleration to the
  // rtol (1e-8) that bounds it.
  CHECK(measure_sliding(*run, 100).largest_angular_speed < 1e-9);
  CHECK(measure_sliding(*run, 100).acceleration ==
        testing::relative(g * (std::sin(theta) - mu * std::cos(theta)), 1e-6));
}

TEST_CASE("manifold: a cylinder tipped onto its rim falls over past atan(r / (L / 2)) only") {
  // Released at rest on its rim, tilted by theta0 about y: past the critical angle
  // atan(0.1 / 0.15) = 0.588 rad its centre of mass is beyond the rim point and it falls onto its
  // side; short of it, gravity brings it back onto its flat. Friction (mu 0.5 > tan of the lean)
  // keeps the rim from sliding. 0.03 rad either side: the Hertz depth (1e-6 m) moves the pivot
  // by far less than 0.03 x 0.18 m.
  const double critical = std::atan2(0.1, 0.15);
  for (const double lean : {critical - 0.03, critical + 0.03}) {
    CAPTURE(lean);
    // The lowest rim point just on the floor: centre height (L/2) cos + r sin.
    const double z = 0.15 * std::cos(lean) + 0.1 * std::sin(lean) - 1e-9;
    const auto run = testing::run_scene(load_scene_text(
        cylinder_scene(1.5, fmt::format("{{rpy: [0, {:.17g}, 0]}}", lean), z), "can"));
    REQUIRE(run->result.status == SimulationStatus::ok);
    const int offset = run->model.bodies[1].state_offset;
    const double height = run->final_state[offset + 2];
    if (lean < critical) {
      CHECK(height == doctest::Approx(0.15).epsilon(1e-4));  // back on its flat
    } else {
      CHECK(height == doctest::Approx(0.1).epsilon(1e-4));  // on its side
    }
  }
}

TEST_CASE("manifold: a tower of five boxes stands for 10 s with drift below 1e-6 m") {
  // Five 0.1 m steel cubes on the floor; interface j (0: the floor) carries the 5 - j cubes above
  // it, a quarter on each corner, at the Hertz depth of that load (r_geo 0.05 m on the floor,
  // 0.05 * 0.05 / 0.1 m between cubes). Started there, nothing moves.
  const double mass = 8000.0 * 1e-3;
  std::array<double, 5> z{};
  std::string bodies;
  for (int j = 0; j < 5; ++j) {
    const double load = (5 - j) * mass * g / 4.0;
    const double depth = corner_depth(load, j == 0 ? 0.05 : 0.025);
    z[static_cast<std::size_t>(j)] =
        (j == 0 ? 0.05 : z[static_cast<std::size_t>(j - 1)] + 0.1) - depth - kEps;
    bodies += fmt::format(
        "  - {{name: cube{}, position: [0, 0, {:.17g}], shapes: [{{type: box, size: [0.1, 0.1, "
        "0.1], material: Steel}}]}}\n",
        j, z[static_cast<std::size_t>(j)]);
  }
  const std::string scene = steel(0.5) +
                            R"(simulation: {stop_time: 10.0, rtol: 1.0e-10, output_interval: 0.1}
bodies:
  - {name: ground, fixed: true, shapes: [{type: halfspace, material: Steel}]}
)" + bodies;
  const auto run = testing::run_scene(load_scene_text(scene, "box_tower"));
  REQUIRE(run->result.status == SimulationStatus::ok);
  CHECK(run->result.contact_starts == 20);  // four corners on each of five interfaces
  CHECK(run->result.state_events == 0);
  double drift = 0.0;
  for (const VectorX& x : run->recorder.output_states) {
    for (int j = 0; j < 5; ++j) {
      const int offset = run->model.bodies[static_cast<std::size_t>(j + 1)].state_offset;
      drift = std::max(drift,
                       (x.segment<3>(offset) - Vec3(0, 0, z[static_cast<std::size_t>(j)])).norm());
    }
  }
  CHECK(drift < 1e-6);
  // Each corner carries its share of the weight above it.
  for (const ContactResult& r : run->system->compute_contact_results(run->final_state)) {
    const int interface = run->model.shapes[static_cast<std::size_t>(r.shape_b)].body - 1;
    CAPTURE(interface);
    CHECK(r.normal_force == testing::relative((5 - interface) * mass * g / 4.0, 1e-6));
  }
}

TEST_CASE(
    "box_incline: settles onto four corners, then slides at g (sin - mu cos) without rocking") {
  // models/scenes/box_incline.yaml: started touching, the corners settle by 1.4 um within 0.1 s
  // (contact damping); from then on the sliding equilibrium above holds.
  const double theta = std::numbers::pi / 6.0, mu = 0.3;
  const auto run = testing::run_scene(load_scene_file("box_incline"));
  REQUIRE(run->result.status == SimulationStatus::ok);
  CHECK(run->result.contact_starts == 4);
  CHECK(run->result.contact_ends == 0);
  CHECK(run->result.stats.steps < 2000);
  const auto& times = run->recorder.output_times;
  std::size_t settled = 0;
  while (times[settled] < 0.1 - 1e-9) ++settled;
  // Settled: pitch rate below 1e-9 rad/s (measured 1.5e-10); the acceleration from 0.2 s on
  // within 1e-6 (measured 6e-11, rtol 1e-8).
  CHECK(measure_sliding(*run, settled).largest_angular_speed < 1e-9);
  CHECK(measure_sliding(*run, 2 * settled).acceleration ==
        testing::relative(g * (std::sin(theta) - mu * std::cos(theta)), 1e-6));
}

TEST_CASE("box_tower: five turned blocks stand on their corners for 10 s") {
  // models/scenes/box_tower.yaml: released touching, the blocks settle within 0.1 s; from then on
  // none moves by more than 1e-6 m, each corner carries a quarter of the weight above it (the
  // corners of a square about its centre, the centres of mass on one vertical), and energy
  // never rises beyond the integration's rounding (rtol of the potential energy, 98 J).
  const auto run = testing::run_scene(load_scene_file("box_tower"));
  REQUIRE(run->result.status == SimulationStatus::ok);
  CHECK(run->result.contact_starts == 20);
  CHECK(run->result.contact_ends == 0);
  const auto& states = run->recorder.output_states;
  const auto& times = run->recorder.output_times;
  std::size_t settled = 0;
  while (times[settled] < 0.1 - 1e-9) ++settled;
  double drift = 0.0;
  for (std::size_t i = settled; i < states.size(); ++i) {
    for (std::size_t body = 1; body < run->model.bodies.size(); ++body) {
      const int offset = run->model.bodies[body].state_offset;
      drift = std::max(drift,
                       (states[i].segment<3>(offset) - states[settled].segment<3>(offset)).norm());
    }
  }
  CHECK(drift < 1e-6);
  std::vector<double> weight_on(run->model.bodies.size(), 0.0);  // of the blocks above, N
  for (std::size_t body = run->model.bodies.size() - 1; body >= 1; --body) {
    weight_on[body] = run->model.bodies[body].mass * g +
                      (body + 1 < run->model.bodies.size() ? weight_on[body + 1] : 0.0);
  }
  const auto results = run->system->compute_contact_results(run->final_state);
  REQUIRE(results.size() == 20);
  for (const ContactResult& r : results) {
    const int upper = run->model.shapes[static_cast<std::size_t>(r.shape_b)].body;
    CAPTURE(upper);
    CHECK(r.normal_force ==
          testing::relative(weight_on[static_cast<std::size_t>(upper)] / 4.0, 1e-6));
  }
  double lowest = run->recorder.output_energies.front();
  for (const double energy : run->recorder.output_energies) {
    CHECK(energy <= lowest + 98.0 * 1e-8);
    lowest = std::min(lowest, energy);
  }
}

TEST_CASE("manifold: corners that slide over an edge hand over to the crossings, same contacts") {
  // A 0.1 m steel cube slides at 1 m/s along a table (mu = 0.1) whose edge is 0.1 m ahead of
  // its front face. Friction decelerates it at mu g (the corners carry m g in all), so its front
  // face reaches the edge at t = (1 - sqrt(1 - 2 mu g d)) / (mu g), d = 0.1 m: there its two
  // front corners leave the table's face and the points where the table's edge crosses the
  // cube's side edges take over their contacts (design.md §4b): an event with no start or end,
  // the same slots, the stored pre-impact velocity kept.
  // Started at the depth where its corners carry m g / 4 each (two boxes: r_geo 0.025 m).
  const double mu = 0.1;
  const double depth = corner_depth(8000.0 * 1e-3 * g / 4.0, 0.025);
  const std::string scene =
      steel(mu) +
      fmt::format(R"(simulation: {{stop_time: 0.12, rtol: 1.0e-10, output_interval: 0.01}}
bodies:
  - {{name: table, fixed: true, position: [0, 0, -0.05],
     shapes: [{{type: box, size: [1.0, 1.0, 0.1], material: Steel}}]}}
  - name: cube
    position: [0.35, 0, {:.17g}]
    linear_velocity: [1.0, 0, 0]
    shapes: [{{type: box, size: [0.1, 0.1, 0.1], material: Steel}}]
)",
                  0.05 - depth - kEps);
  const auto run = testing::run_scene(load_scene_text(scene, "over_edge"));
  REQUIRE(run->result.status == SimulationStatus::ok);
  const auto& events = run->recorder.events;
  // Initialisation, then the handover.
  REQUIRE(events.size() == 2);
  const EventInstant& handover = events.back();
  const double deceleration = mu * g;
  const double expected = (1.0 - std::sqrt(1.0 - 2.0 * deceleration * 0.1)) / deceleration;
  // 1e-6: the friction's moment about the centre loads the front corners more, which pitches
  // the cube by 1.2e-6 rad and moves its lower front edge 6e-8 m back (6.4e-7 of the time,
  // measured); the position is integrated to rtol 1e-10, the event located to 1e-12 s.
  CHECK(handover.t == testing::relative(expected, 1e-6));
  CHECK(handover.outcome.records.empty());  // no contact started or ended
  CHECK(run->result.contact_starts == 4);
  CHECK(run->result.contact_ends == 0);
  // The four slots are still there, two of them now made by the table's edge and the cube's side
  // edges.
  const ContactDict& contacts = run->system->contact_handler().contacts();
  REQUIRE(contacts.size() == 4);
  int crossings = 0;
  for (const auto& [id, point] : contacts) {
    CHECK(id.slot < 4);
    if (point.feature_b.kind == FeatureKind::edge || point.feature_a.kind == FeatureKind::edge) {
      ++crossings;
    }
  }
  CHECK(crossings == 2);
}

TEST_CASE("a sphere in a V-groove of two planes at +-beta carries m g / (2 cos beta) on each") {
  // Two half-spaces of the ground, inclined by +-30 degrees about y, meet at x = 0. The ball's
  // weight is carried by the two normal forces, whose horizontal parts cancel:
  // 2 N cos(beta) = m g. Started where each contact has the Hertz depth of N (r_geo = r against a
  // flat), nothing moves.
  const double beta = std::numbers::pi / 6.0, r = 0.05;
  const double mass = 8000.0 * 4.0 / 3.0 * std::numbers::pi * r * r * r;
  const double normal_force = mass * g / (2.0 * std::cos(beta));
  const double depth = corner_depth(normal_force, r);
  const double z = (r - depth - kEps) / std::cos(beta);
  const std::string scene =
      steel(0.5) +
      fmt::format(R"(simulation: {{stop_time: 0.5, rtol: 1.0e-10, output_interval: 0.05}}
bodies:
  - name: ground
    fixed: true
    shapes:
      - {{type: halfspace, normal: [{s}, 0, {c}], offset: 0, material: Steel}}
      - {{type: halfspace, normal: [{ms}, 0, {c}], offset: 0, material: Steel}}
  - {{name: ball, position: [0, 0, {z}], shapes: [{{type: sphere, radius: {r}, material: Steel}}]}}
)",
                  fmt::arg("s", std::sin(beta)), fmt::arg("ms", -std::sin(beta)),
                  fmt::arg("c", std::cos(beta)), fmt::arg("z", fmt::format("{:.17g}", z)),
                  fmt::arg("r", r));
  const auto run = testing::run_scene(load_scene_text(scene, "v_groove"));
  REQUIRE(run->result.status == SimulationStatus::ok);
  CHECK(run->result.contact_starts == 2);
  CHECK(run->result.state_events == 0);
  const auto results = run->system->compute_contact_results(run->final_state);
  REQUIRE(results.size() == 2);
  for (const ContactResult& result : results) {
    // 1e-6: the start's rounding of the depth (1e-17 m of 2e-6 m) and rtol 1e-10.
    CHECK(result.normal_force == testing::relative(normal_force, 1e-6));
    CHECK(std::abs(result.normal_W.z()) == testing::relative(std::cos(beta), 1e-12));
  }
  const int offset = run->model.bodies[1].state_offset;
  CHECK(std::abs(run->final_state[offset + 2] - z) < 1e-12);
}

TEST_CASE("manifold: contact.points single keeps one point per pair") {
  const std::string scene = R"(
simulation: {stop_time: 0.05, rtol: 1.0e-8}
bodies:
  - {name: ground, fixed: true, shapes: [{type: halfspace, material: Steel}]}
  - name: box
    position: [0, 0, 0.0499999]
    shapes: [{type: box, size: [0.2, 0.16, 0.1], material: Steel}]
)";
  for (const char* points : {"single", "manifold"}) {
    CAPTURE(points);
    const Model model = load_scene_text(steel(0.5, points) + scene, "box");
    MultibodySystem system(model);
    VectorX x(system.state_size());
    system.initial_state(x);
    system.initialize(0.0, x);
    const auto results = system.compute_contact_results(x);
    REQUIRE(results.size() == (points == std::string("single") ? 1u : 4u));
    double total = 0.0;
    for (const ContactResult& r : results) total += r.normal_force;
    // One point carries at the box's r_geo what four carry in quarters: the depth (1e-7 m) is
    // the same, so the one point's force is a quarter of the four's sum.
    const double one = corner_stiffness(0.05) * std::pow(1e-7 - kEps, 1.5);
    CHECK(total == testing::relative(static_cast<double>(results.size()) * one, 1e-6));
  }
}

}  // namespace
}  // namespace hybridsim
