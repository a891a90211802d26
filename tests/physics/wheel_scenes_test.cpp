// Wheels on the ground (the wheel contact frame, slip ratios, wheel-slip compliance, plowing,
// rolling resistance), checked against closed forms and the set-ups of Gazebo's wheel tests
// (WheelSlip TricyclesUphill, TireDrum, TriballDrift, PlowingEffectSpheres) with tighter
// tolerances than Gazebo's.
#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <numbers>
#include <string>
#include <tuple>

#include <fmt/format.h>

#include "core/wheel_contact.hpp"
#include "hybridsim/simulator.hpp"
#include "test_support.hpp"

namespace hybridsim {
namespace {

using testing::relative;

constexpr double kDegree = std::numbers::pi / 180.0;

// The state of the run's final instant, for a wheel, after a run of the scene.
MultibodySystem::WheelOutput final_wheel(testing::Run& run, const std::string& wheel) {
  const auto outputs = run.system->compute_wheel_outputs(run.final_state);
  return outputs.at(static_cast<std::size_t>(run.model.find_wheel(wheel)));
}

// The velocity of a body's origin along world x at the final state.
double final_velocity_x(testing::Run& run, const std::string& body) {
  const auto kinematics = run.system->compute_kinematics(run.final_state);
  const BodyKinematics& k = kinematics[static_cast<std::size_t>(run.model.find_body(body))];
  return (k.v_WCom_W + k.w_WB_W.cross(k.X_WB.translation - k.p_WCom)).x();
}

// One steel sphere wheel (R = 0.1 m) on steel ground, gravity along -z, its centre at height
// `height`, its spin axis the body's y axis turned by `yaw` about z. No run: the wheel frame is
// read at the initial state with the given velocities.
MultibodySystem::WheelOutput wheel_at(double height, double yaw, const Vec3& v_W, double omega) {
  const std::string text = fmt::format(R"(
bodies:
  - name: ground
    fixed: true
    shapes: [{{type: halfspace, material: Steel}}]
  - name: wheel
    position: [0, 0, {}]
    orientation: {{axis_angle: [0, 0, 1, {:.17g}]}}
    linear_velocity: [{:.17g}, {:.17g}, {:.17g}]
    angular_velocity: [{:.17g}, {:.17g}, 0]
    shapes: [{{name: tyre, type: sphere, radius: 0.1, material: Steel}}]
wheels:
  - {{name: w, body: wheel, axis: [0, 1, 0]}}
)",
                                       height, yaw, v_W.x(), v_W.y(), v_W.z(),
                                       -omega * std::sin(yaw), omega * std::cos(yaw));
  const Model model = load_scene_text(text, "wheel.yaml");
  MultibodySystem system(model);
  VectorX x(model.state_size);
  system.initial_state(x);
  system.initialize(0.0, x);
  REQUIRE(system.contact_handler().contacts().size() == 1);
  return system.compute_wheel_outputs(x).front();
}

TEST_CASE("wheels: slip ratios at the definitions of Yoshida and Hamano (2002), to 1e-9") {
  // The centre 1 um into the ground. The contact point lies halfway between the two surfaces,
  // 0.5 um below the ground's: R = 0.1 - 0.5e-6 m from the axle.
  const double height = 0.1 - 1e-6;
  const double R = 0.1 - 0.5e-6;
  CHECK(wheel_at(height, 0.0, Vec3::Zero(), 0.0).state.radius == relative(R, 1e-14));

  SUBCASE("a wheel rolling freely reads s_a = s_b = 0 and alpha = 0") {
    const auto w = wheel_at(height, 0.0, {1.5, 0, 0}, 1.5 / R);
    CHECK(w.state.R_omega == relative(1.5, 1e-12));
    CHECK(std::abs(w.state.s_a) < 1e-9);
    CHECK(std::abs(w.state.s_b) < 1e-9);
    CHECK(std::abs(w.state.alpha) < 1e-9);
    CHECK(std::abs(w.state.v_t_lon) < 1e-9);
  }
  SUBCASE("a wheel spun in place reads s_a = 1") {
    const auto w = wheel_at(height, 0.0, Vec3::Zero(), 20.0);
    CHECK(std::abs(w.state.s_a - 1.0) < 1e-9);
    CHECK(w.state.s_b == 0.0);
    CHECK(std::abs(w.state.S_a - 1.0) < 1e-9);
  }
  SUBCASE("a locked wheel that slides reads s_b = -1") {
    const auto w = wheel_at(height, 0.0, {0.7, 0, 0}, 0.0);
    CHECK(std::abs(w.state.s_b + 1.0) < 1e-9);
    CHECK(w.state.s_a == 0.0);
    CHECK(w.state.S_a == 0.0);  // undefined at omega = 0: reported as 0, never NaN
  }
  SUBCASE("a wheel driven forward while sliding back reads s_a > 1") {
    // R omega = 1 m/s forward, the centre sliding back at 0.25 m/s: s_a = (1 + 0.25) / 1.
    const auto w = wheel_at(height, 0.0, {-0.25, 0, 0}, 1.0 / R);
    CHECK(std::abs(w.state.s_a - 1.25) < 1e-9);
    CHECK(w.state.s_a > 1.0);
  }
  SUBCASE("reverse driving: the generalised definitions") {
    // Both negative, |R omega| > |v|: accelerating in reverse, s_a = (-1 + 0.5) / -1 = 0.5.
    const auto accelerating = wheel_at(height, 0.0, {-0.5, 0, 0}, -1.0 / R);
    CHECK(std::abs(accelerating.state.s_a - 0.5) < 1e-9);
    // Braking in reverse: s_b = (-0.5 + 1) / -1 = -0.5.
    const auto braking = wheel_at(height, 0.0, {-1.0, 0, 0}, -0.5 / R);
    CHECK(std::abs(braking.state.s_b + 0.5) < 1e-9);
  }
  SUBCASE("a wheel rolling at a set yaw to its velocity reads that alpha") {
    // The axis turned by +psi about z, the centre moving along x: t_lon = (cos psi, sin psi, 0),
    // t_lat = (-sin psi, cos psi, 0), so alpha = atan(-sin psi / cos psi) = -psi.
    const double psi = 7.0 * kDegree;
    const auto w = wheel_at(height, psi, {2.0, 0, 0}, 2.0 * std::cos(psi) / R);
    CHECK(std::abs(w.state.alpha + psi) < 1e-9);
    CHECK(std::abs(w.state.s_a) < 1e-9);
    CHECK(std::abs(w.state.v_W_lat + 2.0 * std::sin(psi)) < 1e-9);
  }
  SUBCASE("no NaN where a ratio is undefined") {
    const auto at_rest = wheel_at(height, 0.0, Vec3::Zero(), 0.0);
    CHECK(at_rest.state.s_a == 0.0);
    CHECK(at_rest.state.s_b == 0.0);
    CHECK(at_rest.state.S_a == 0.0);
    CHECK(at_rest.state.alpha == 0.0);
    const auto sideways = wheel_at(height, 0.0, {0, 0.3, 0}, 0.0);
    CHECK(std::abs(sideways.state.alpha) == doctest::Approx(0.5 * std::numbers::pi));
  }
}

// The catalog's tricycle with every unitless compliance set to c.
std::unique_ptr<testing::Run> run_tricycle(double compliance) {
  std::vector<std::string> overrides;
  for (const char* wheel : {"front", "rear_left", "rear_right"}) {
    for (const char* direction : {"lateral", "longitudinal"}) {
      overrides.push_back(
          fmt::format("wheels.{}.slip_compliance.{}={}", wheel, direction, compliance));
    }
  }
  return testing::run_scene(load_scene_file("tricycles_uphill", overrides));
}

TEST_CASE("wheels: tricycles uphill climb at R omega (1 - c T / N_est) (Gazebo WheelSlip)") {
  // Steady climb: the free front wheel carries no longitudinal force, so each rear wheel pushes
  // T = 14.5 kg * 2 m/s^2 / 2 = 14.5 N, its slip is S_a = c T / N_est = 0.453125 c, and the
  // speed is R omega (1 - S_a) with R omega = 0.9 m/s. Tolerance 1e-4 m/s (Gazebo: 5e-3): the
  // Hertz penetration (~4e-7 m under 39 N) shortens R by 3e-6 relative and the floor
  // min_slip_compliance adds 1.5e-7 m/s of slip; both are far below it.
  const double T = 14.5;
  for (const double c : {0.0, 1.0}) {
    CAPTURE(c);
    auto run = run_tricycle(c);
    REQUIRE(run->result.status == SimulationStatus::ok);
    const double expected = 0.9 * (1.0 - c * T / 32.0);
    CHECK(std::abs(final_velocity_x(*run, "frame") - expected) < 1e-4);
    const auto rear = final_wheel(*run, "rear_left");
    CHECK(std::abs(rear.state.S_a - c * T / 32.0) < 1e-5);
    CHECK(std::abs(rear.state.R_omega - 0.9) < 1e-5);
    // The free front wheel rolls: no longitudinal slip, no drift to the side.
    CHECK(std::abs(final_wheel(*run, "front").state.S_a) < 1e-6);
    CHECK(std::abs(final_wheel(*run, "front").state.alpha) < 1e-6);
  }
}

// A wheel pressed with 1000 N onto a drum of surface speed 11.176 m/s, its axle steered by
// `steer` from the drum's axis, lateral compliance `lateral`, longitudinal 0.1, mu 0.9.
Model tire_drum(double steer, double lateral, std::vector<std::string> overrides = {}) {
  overrides.push_back(
      fmt::format("joints.axle.axis=[{:.17g}, {:.17g}, 0]", -std::sin(steer), std::cos(steer)));
  overrides.push_back(
      fmt::format("wheels.tire.axis=[{:.17g}, {:.17g}, 0]", -std::sin(steer), std::cos(steer)));
  overrides.push_back(fmt::format("wheels.tire.slip_compliance.lateral={}", lateral));
  return load_scene_file("tire_drum", overrides);
}

// The friction force on the wheel along its axle and along the rolling direction at the end.
struct TireForces {
  double lateral;
  double longitudinal;
  double along_drum_axis;
  double normal;
  double radius;
};

TireForces tire_forces(testing::Run& run, const VectorX& x) {
  const auto results = run.system->compute_contact_results(x);
  REQUIRE(results.size() == 1);
  const ContactResult& r = results.front();
  REQUIRE(r.wheel == 0);
  // The wheel is shape B (the drum comes first): friction_force_W acts on it.
  return {r.friction_force_W.dot(r.wheel_state.t_lat_W),
          r.friction_force_W.dot(r.wheel_state.t_lon_W), r.friction_force_W.y(), r.normal_force,
          r.wheel_state.radius};
}

TEST_CASE("wheels: a tire on a drum (Gazebo TireDrum), to 1 N") {
  const double N = 1000.0;
  const double V = 11.176;
  SUBCASE("3 degrees of steer, lateral compliance 0.1: the linear law") {
    auto run = testing::run_scene(tire_drum(3.0 * kDegree, 0.1));
    REQUIRE(run->result.status == SimulationStatus::ok);
    // One contact from start to end: the recorded states may be read with the final contact set.
    REQUIRE(run->result.contact_starts == 1);
    REQUIRE(run->result.contact_ends == 0);
    const auto& times = run->recorder.output_times;
    const auto forces_at = [&](double t) {
      for (std::size_t i = 0; i < times.size(); ++i) {
        if (std::abs(times[i] - t) < 1e-9) return tire_forces(*run, run->recorder.output_states[i]);
      }
      FAIL("no output at ", t);
      return TireForces{};
    };
    // Rolling freely (0.9 s): R omega = V cos 3 deg and the lateral slip is V sin 3 deg, so
    // F = -V sin / (c R |omega| / N + c_min), i.e. -N tan(3 deg) / c up to the floor c_min.
    const TireForces rolling = forces_at(0.9);
    CHECK(rolling.normal == relative(N, 1e-6));  // the slide's force balance
    const double c = 0.1 * V * std::cos(3.0 * kDegree) / N + 1e-8;
    CHECK(std::abs(rolling.lateral - (-V * std::sin(3.0 * kDegree) / c)) < 1e-3);
    CHECK(std::abs(rolling.lateral - (-N * std::tan(3.0 * kDegree) / 0.1)) < 1.0);  // -524.08 N
    CHECK(std::abs(rolling.longitudinal) < 1e-6);
    // Its component along the drum's axis is the Gazebo test's -N sin(3 deg) / c = -523.4 N.
    CHECK(std::abs(rolling.along_drum_axis - (-N * std::sin(3.0 * kDegree) / 0.1)) < 1.0);
    // The two torque states, 75 N m (1.9 s) and 180 N m (2.9 s): in steady spin T R = tau.
    for (const auto& [t, torque, force] : {std::tuple{1.9, 75.0, 250.0}, {2.9, 180.0, 600.0}}) {
      const TireForces driven = forces_at(t);
      CHECK(std::abs(std::abs(driven.longitudinal) - torque / driven.radius) < 1e-3);
      CHECK(std::abs(std::abs(driven.longitudinal) - force) < 1.0);
    }
  }
  SUBCASE("10 degrees of steer, lateral compliance 0.01: saturated at mu N") {
    auto run = testing::run_scene(tire_drum(10.0 * kDegree, 0.01));
    REQUIRE(run->result.status == SimulationStatus::ok);
    const TireForces f = tire_forces(*run, run->final_state);
    // The linear law would ask N tan(10 deg) / 0.01 = 17,633 N; the pyramid clamps at mu N.
    CHECK(std::abs(f.lateral - (-0.9 * f.normal)) < 1e-6);
    CHECK(std::abs(f.lateral - (-0.9 * N)) < 1.0);
  }
  SUBCASE("a wheel's own mu for one direction: the other keeps the material's") {
    auto run =
        testing::run_scene(tire_drum(10.0 * kDegree, 0.01, {"wheels.tire.mu={lateral: 0.7}"}));
    REQUIRE(run->result.status == SimulationStatus::ok);
    CHECK(run->model.wheels[0].mu_longitudinal < 0.0);
    const TireForces f = tire_forces(*run, run->final_state);
    CHECK(std::abs(f.lateral - (-0.7 * f.normal)) < 1e-6);
    // 180 N m still drives 600 N along t_lon, within the material's mu N = 900 N.
    CHECK(std::abs(std::abs(f.longitudinal) - 180.0 / f.radius) < 1e-3);
  }
}

TEST_CASE(
    "wheels: a braked wheel-slip vehicle parked on a slope does not creep (Gazebo "
    "TriballDrift)") {
  // A 2 kg chassis on three steel ball wheels (R = 0.1 m, 0.2 kg) held at omega = 0 by ideal
  // velocity servos, unitless compliances 1, under gravity (1, 0, -9.8). With omega = 0 the
  // compliance is its floor, 1e-8 m/s/N: under about 0.9 N per wheel it creeps 1e-8 m/s, 3e-8 m
  // in 3 s. Gazebo's test allows 3e-4 m; we ask 1e-6 m.
  std::string wheels, bodies, joints;
  const double positions[3][2] = {{0.3, 0.0}, {-0.2, 0.25}, {-0.2, -0.25}};
  for (int i = 0; i < 3; ++i) {
    const double x = positions[i][0];
    const double y = positions[i][1];
    bodies += fmt::format(R"(
  - name: ball_{0}
    position: [{1}, {2}, 0.1]
    mass: 0.2
    shapes: [{{name: tyre, type: sphere, radius: 0.1, material: Steel}}])",
                          i, x, y);
    joints += fmt::format(R"(
  - {{name: axle_{0}, type: revolute, parent: chassis, child: ball_{0}, anchor: [{1}, {2}, 0.1],
     axis: [0, 1, 0], servo: {{velocity: 0.0, ideal: true}}}})",
                          i, x, y);
    wheels += fmt::format(R"(
  - {{name: wheel_{0}, body: ball_{0}, axis: [0, 1, 0], normal_force: 8.0,
     slip_compliance: {{lateral: 1.0, longitudinal: 1.0}}}})",
                          i);
  }
  const std::string text = fmt::format(R"(
gravity: [1.0, 0.0, -9.8]
simulation: {{stop_time: 3.0, rtol: 1.0e-9, output_interval: 0.1}}
contact_materials:
  - pair: [Steel, Steel]
    restitution: 0.1
    friction: {{model: regularized_coulomb, mu_kinetic: 0.8, v_small: 1.0e-3}}
bodies:
  - name: ground
    fixed: true
    shapes: [{{type: halfspace, material: Steel}}]
  - name: chassis
    position: [0, 0, 0.2]
    mass: 2.0
    shapes: [{{name: deck, type: box, size: [0.4, 0.4, 0.05], material: Steel, collision: false}}]
{}
joints:{}
wheels:{}
)",
                                       bodies, joints, wheels);
  auto run = testing::run_scene(load_scene_text(text, "triball.yaml"));
  REQUIRE(run->result.status == SimulationStatus::ok);
  const auto& states = run->recorder.output_states;
  const int x_chassis = run->model.bodies[run->model.find_body("chassis")].state_offset;
  const double drift = states.back()[x_chassis] - states.front()[x_chassis];
  CHECK(std::abs(drift) < 1e-6);
  for (const char* wheel : {"wheel_0", "wheel_1", "wheel_2"}) {
    CHECK(std::abs(final_wheel(*run, wheel).state.omega) < 1e-9);
  }
}

TEST_CASE(
    "wheels: plowing spheres tilt their normals backward and roll on the reduced slope "
    "(Gazebo PlowingEffectSpheres)") {
  auto run = testing::run_scene(load_scene_file("plowing_spheres"));
  REQUIRE(run->result.status == SimulationStatus::ok);
  // The recorded states are read after the run with its final contact set: valid because each
  // sphere's one contact lasts from the start to the end.
  REQUIRE(run->result.contact_starts == 4);
  REQUIRE(run->result.contact_ends == 0);
  const double g = std::hypot(4.0, 9.75);
  const double phi = std::atan2(4.0, 9.75);
  const auto& times = run->recorder.output_times;
  const auto& states = run->recorder.output_states;
  const std::array<double, 4> angles{0.0, 5.0 * kDegree, 10.0 * kDegree, 15.0 * kDegree};
  // Every output above the saturation speed: each normal (on the sphere, up) tilts by exactly
  // its maximum angle, toward -x (backward: the spheres roll toward +x).
  int checked = 0;
  for (std::size_t i = 0; i < times.size(); ++i) {
    const auto kinematics = run->system->compute_kinematics(states[i]);
    const auto results = run->system->compute_contact_results(states[i]);
    for (const ContactResult& r : results) {
      REQUIRE(r.wheel >= 0);
      const BodyKinematics& k = kinematics[static_cast<std::size_t>(r.wheel + 1)];
      if (k.v_WCom_W.x() <= 0.6) continue;
      const double tilt = std::atan2(-r.normal_W.x(), r.normal_W.z());
      CHECK(std::abs(tilt - angles[static_cast<std::size_t>(r.wheel)]) < 1e-12);
      if (r.wheel == 0) CHECK(r.normal_W.x() == 0.0);  // no plowing: exactly the ground normal
      ++checked;
    }
  }
  CHECK(checked > 100);
  // The acceleration between 0.5 s and 1 s (all saturated): in the tilted normal's tangent plane
  // the sphere rolls as on a slope of phi - theta, a cos(theta) = g sin(phi - theta) / (1 + 2/5).
  // 1e-6 relative: the Hertz penetration (1e-7 m) shortens the rolling radius by 3e-7 relative.
  const auto at = [&](double t) {
    for (std::size_t i = 0; i < times.size(); ++i) {
      if (std::abs(times[i] - t) < 1e-9) return i;
    }
    FAIL("no output at ", t);
    return std::size_t{0};
  };
  for (int w = 0; w < 4; ++w) {
    const int offset = run->model.bodies[static_cast<std::size_t>(w + 1)].state_offset;
    const double a = (states[at(1.0)][offset + 7] - states[at(0.5)][offset + 7]) / 0.5;
    const double theta = angles[static_cast<std::size_t>(w)];
    CHECK(a == relative(g * std::sin(phi - theta) / (1.4 * std::cos(theta)), 1e-6));
  }
}

TEST_CASE("wheels: rolling resistance decelerates a coasting wheel at C_rr g / (1 + I / (m R^2))") {
  // A solid steel sphere (R = 0.1 m, 1 kg) rolling at 2 m/s on a stiff linear contact
  // (kp = 1e9 N/m: 1e-8 m of penetration, 1e-7 of R) with C_rr = 0.02. The torque C_rr N R is a
  // couple against the spin; rolling without slip gives a = C_rr g / (1 + 2/5). 1e-6 relative.
  const std::string text = R"(
simulation: {stop_time: 1.0, rtol: 1.0e-10, output_interval: 0.5}
contact_materials:
  - pair: [Steel, Steel]
    normal_law: linear
    kp: 1.0e9
    kd: 1.0e4
    friction: {model: regularized_coulomb, mu_kinetic: 0.5, v_small: 1.0e-5}
bodies:
  - name: ground
    fixed: true
    shapes: [{type: halfspace, material: Steel}]
  - name: ball
    position: [0, 0, 0.09999999019]
    linear_velocity: [2.0, 0, 0]
    angular_velocity: [0, 20.0, 0]
    mass: 1.0
    shapes: [{name: tyre, type: sphere, radius: 0.1, material: Steel}]
wheels:
  - {name: w, body: ball, axis: [0, 1, 0], rolling_resistance: 0.02}
)";
  auto run = testing::run_scene(load_scene_text(text, "coasting.yaml"));
  REQUIRE(run->result.status == SimulationStatus::ok);
  const auto& states = run->recorder.output_states;
  REQUIRE(states.size() == 3);
  const double a = (states[2][7] - states[1][7]) / 0.5;
  CHECK(a == relative(-0.02 * 9.81 / 1.4, 1e-6));
}

TEST_CASE("wheels: slope-dependent slip compliance scales the climb's slip by its factor") {
  // The tricycle's ground slopes by beta = atan(2 / 9.8) = 11.53 deg against gravity. With the
  // factor rising from 1 at 5 deg to 2 at 15 deg, the rear wheels' unitless compliance is
  // m = 1 + (beta - 5 deg) / 10 deg and the climb speed 0.9 (1 - m T / N_est).
  std::vector<std::string> overrides;
  for (const char* wheel : {"rear_left", "rear_right"}) {
    overrides.push_back(
        fmt::format("wheels.{}.slope_compliance={{start: {:.17g}, end: {:.17g}, factor: 2.0}}",
                    wheel, 5.0 * kDegree, 15.0 * kDegree));
  }
  auto run = testing::run_scene(load_scene_file("tricycles_uphill", overrides));
  REQUIRE(run->result.status == SimulationStatus::ok);
  const double beta = std::atan2(2.0, 9.8);
  const double factor = 1.0 + (beta - 5.0 * kDegree) / (10.0 * kDegree);
  CHECK(std::abs(final_velocity_x(*run, "frame") - 0.9 * (1.0 - factor * 14.5 / 32.0)) < 1e-4);
  CHECK(final_wheel(*run, "rear_left").state.S_a == relative(factor * 14.5 / 32.0, 1e-5));
  CHECK(slope_compliance_factor({0.1, 0.3, 4.0}, 0.05) == 1.0);
  CHECK(slope_compliance_factor({0.1, 0.3, 4.0}, 0.2) == relative(2.5, 1e-15));
  CHECK(slope_compliance_factor({0.1, 0.3, 4.0}, 0.5) == 4.0);
}

TEST_CASE("wheels: the Janosi-Hanamoto traction law's steady slip under a drawbar pull") {
  // A wheel (R = 0.1 m) on a hub that slides vertically on a carriage that slides along x; an
  // ideal servo spins it at 10 rad/s and a 6 N drawbar force holds the carriage back. In steady
  // motion the traction balances the pull: mu N (1 - K / (s L) (1 - exp(-s L / K))) = 6 N with
  // N = 2 kg g, which fixes s, and the carriage moves at R omega (1 - s).
  const std::string text = R"(
simulation: {stop_time: 3.0, rtol: 1.0e-10, output_interval: 0.5}
contact_materials:
  - pair: [Steel, Steel]
    restitution: 0.1
    friction: {model: regularized_coulomb, mu_kinetic: 0.8, v_small: 1.0e-4}
inputs:
  - {name: drawbar, target: {body: carriage, kind: force}, signal: {constant: [-6.0, 0, 0]}}
bodies:
  - name: ground
    fixed: true
    shapes: [{type: halfspace, material: Steel}]
  - name: carriage
    position: [0, 0, 0.3]
    mass: 1.0
    inertia: [0.01, 0.01, 0.01, 0, 0, 0]
  - name: hub
    position: [0, 0, 0.0999999]
    mass: 1.0
    inertia: [0.01, 0.01, 0.01, 0, 0, 0]
  - name: wheel
    position: [0, 0, 0.0999999]
    mass: 1.0
    shapes: [{name: tyre, type: sphere, radius: 0.1, material: Steel}]
joints:
  - {name: rail, type: prismatic, parent: ground, child: carriage, axis: [1, 0, 0]}
  - {name: suspension, type: prismatic, parent: carriage, child: hub, axis: [0, 0, 1]}
  - {name: axle, type: revolute, parent: hub, child: wheel, anchor: [0, 0, 0.0999999],
     axis: [0, 1, 0], servo: {velocity: 10.0, ideal: true}}
wheels:
  - name: w
    body: wheel
    axis: [0, 1, 0]
    traction: {model: janosi_hanamoto, shear_deformation: 0.02, contact_length: 0.1}
)";
  auto run = testing::run_scene(load_scene_text(text, "drawbar.yaml"));
  REQUIRE(run->result.status == SimulationStatus::ok);
  const double mu_N = 0.8 * 2.0 * 9.81;
  // The slip by bisection on the law's closed form (increasing in s).
  double lo = 1e-9, hi = 1.0;
  for (int i = 0; i < 200; ++i) {
    const double s = 0.5 * (lo + hi);
    const double pull = mu_N * (1.0 - 0.02 / (s * 0.1) * (1.0 - std::exp(-s * 0.1 / 0.02)));
    (pull < 6.0 ? lo : hi) = s;
  }
  const double s = 0.5 * (lo + hi);
  const auto wheel = final_wheel(*run, "w");
  CHECK(wheel.normal_force == relative(2.0 * 9.81, 1e-6));
  CHECK(wheel.state.s_a == relative(s, 1e-6));
  CHECK(final_velocity_x(*run, "carriage") ==
        relative(wheel.state.radius * 10.0 * (1.0 - s), 1e-6));
  // The law itself: odd, linear at small slip (slope L / (2 K)), saturating at 1.
  CHECK(janosi_hanamoto_coefficient(-0.3, 0.02, 0.1) ==
        -janosi_hanamoto_coefficient(0.3, 0.02, 0.1));
  CHECK(janosi_hanamoto_coefficient(1e-7, 0.02, 0.1) == relative(1e-7 * 0.1 / 0.04, 1e-6));
  CHECK(janosi_hanamoto_coefficient(1.0, 1e-4, 1.0) == relative(1.0, 1e-3));
}

TEST_CASE("catalog rover_terrain: no wheel falls through the bumps, slip stays finite") {
  // Read through the API while the run is at each instant (the wheel outputs use the contact
  // set of that moment).
  Simulator simulator(load_scene_file("rover_terrain"));
  const Model& model = simulator.model();
  const auto terrain = testing::pgm_terrain(
      std::string(HYBRIDSIM_MODELS_DIR) + "/scenes/meshes/bumps.pgm", 8.0, 4.0, 0.06);
  double lowest = kInfinity;   // the smallest height of a wheel centre above the terrain, m
  double largest_force = 0.0;  // the largest normal force on a wheel, N
  const double start_x = simulator.body_state("chassis").position_W.x();
  for (int k = 1; k <= 200; ++k) {
    REQUIRE(simulator.advance_to(0.02 * k).status == SimulationStatus::ok);
    for (const Wheel& wheel : model.wheels) {
      const Vec3 p =
          simulator.body_state(model.bodies[static_cast<std::size_t>(wheel.body)].name).position_W;
      lowest = std::min(lowest, p.z() - terrain(p.x(), p.y()));
      const Simulator::WheelState w = simulator.wheel_state(wheel.name);
      for (const double value :
           {w.s_a, w.s_b, w.S_a, w.alpha, w.v_W_lon, w.v_W_lat, w.R_omega, w.normal_force}) {
        REQUIRE(std::isfinite(value));
      }
      largest_force = std::max(largest_force, w.normal_force);
    }
  }
  // A ball's centre lies at least R above the surface under it (more on a slope), less the
  // rubber's Hertz penetration under the largest load, delta = (F / K)^(2/3) with
  // K = (4/3) sqrt(R) E / (2 (1 - nu^2)) (E = 1e7 Pa, nu = 0.49; a few mm): a fall-through would
  // lose the whole 0.15 m.
  const double K = 4.0 / 3.0 * std::sqrt(0.15) * 1e7 / (2.0 * (1.0 - 0.49 * 0.49));
  const double penetration = std::pow(largest_force / K, 2.0 / 3.0);
  MESSAGE("lowest wheel centre above the terrain: ", lowest, " m; largest wheel load ",
          largest_force, " N, Hertz penetration ", penetration, " m");
  CHECK(lowest > 0.15 - penetration - 1e-4);
  CHECK(penetration < 0.01);
  const double advance = simulator.body_state("chassis").position_W.x() - start_x;
  CHECK(advance > 1.5);  // R omega = 0.6 m/s for 4 s, less the slip and the climbs
  CHECK(advance < 2.4);
}

TEST_CASE("wheels: the actual normal force in place of N_est") {
  // With `normal_force: actual` the rear wheels' compliance uses their own contact force N: in
  // steady climbing S_a = c T / N and the speed is 0.9 (1 - T / N) for c = 1.
  auto run = testing::run_scene(load_scene_file(
      "tricycles_uphill",
      {"wheels.rear_left.normal_force=actual", "wheels.rear_right.normal_force=actual"}));
  REQUIRE(run->result.status == SimulationStatus::ok);
  const auto rear = final_wheel(*run, "rear_left");
  CHECK(rear.normal_force > 30.0);  // about 39 N with this frame's mass distribution
  CHECK(rear.state.S_a == relative(14.5 / rear.normal_force, 1e-5));
  CHECK(std::abs(final_velocity_x(*run, "frame") - 0.9 * (1.0 - 14.5 / rear.normal_force)) < 1e-4);
}

TEST_CASE("wheels: lateral plowing tilts the normal against the lateral motion") {
  // Two of the plowing spheres turned so that their axes lie along the slope (x): they roll down
  // it sideways to the wheel frame, v_W,lat = v. With lateral plowing the 10-degree sphere tilts
  // about t_lon and rolls exactly as the longitudinal one did; without, it does not tilt.
  auto run = testing::run_scene(load_scene_file(
      "plowing_spheres", {"wheels.wheel_10.axis=[1, 0, 0]", "wheels.wheel_10.plowing.lateral=true",
                          "wheels.wheel_5.axis=[1, 0, 0]"}));
  REQUIRE(run->result.status == SimulationStatus::ok);
  const double g = std::hypot(4.0, 9.75);
  const double phi = std::atan2(4.0, 9.75);
  const double theta = 10.0 * kDegree;
  const auto& states = run->recorder.output_states;
  const auto velocity = [&](const char* body, std::size_t output) {
    return states[output][run->model.bodies[run->model.find_body(body)].state_offset + 7];
  };
  // Outputs every 0.01 s: 50 is 0.5 s, 100 is 1 s (both past the saturation speed).
  REQUIRE(states.size() == 101);
  const double a_lateral = (velocity("sphere_10", 100) - velocity("sphere_10", 50)) / 0.5;
  CHECK(a_lateral == relative(g * std::sin(phi - theta) / (1.4 * std::cos(theta)), 1e-6));
  const double a_plain = (velocity("sphere_5", 100) - velocity("sphere_5", 50)) / 0.5;
  CHECK(a_plain == relative(g * std::sin(phi) / 1.4, 1e-6));
}

}  // namespace
}  // namespace hybridsim
