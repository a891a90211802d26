// Actuators and moving supports: joint velocity servos (with a gain, and ideal as a constraint
// row), joint position servos, and prescribed bodies, against their closed forms; settable from
// the API while running; bad input.
#include <doctest/doctest.h>

#include <cmath>
#include <numbers>
#include <string>

#include <fmt/format.h>

#include "core/errors.hpp"
#include "hybridsim/hybridsim.h"
#include "hybridsim/simulator.hpp"
#include "test_support.hpp"

namespace hybridsim {
namespace {

using testing::relative;

// A flywheel (I = 0.2 kg m^2 about z) on a revolute joint to the ground, no gravity, a constant
// load torque of -1 N m on the joint, and the given servo.
std::string flywheel(const std::string& servo, double stop_time = 2.0) {
  return fmt::format(R"(
gravity: [0, 0, 0]
simulation: {{stop_time: {}, rtol: 1.0e-10, output_interval: 0.1}}
inputs:
  - {{name: load, signal: {{constant: [-1.0, 0, 0]}}}}
bodies:
  - name: ground
    fixed: true
  - name: wheel
    mass: 1.0
    inertia: [0.15, 0.15, 0.2, 0, 0, 0]
joints:
  - {{name: axle, type: revolute, parent: ground, child: wheel, anchor: [0, 0, 0], axis: [0, 0, 1],
     input: load, servo: {}}}
)",
                     stop_time, servo);
}

// The joint rate and angle at every output of a run.
struct JointSeries {
  std::vector<double> t, q, qd;
};
JointSeries joint_series(testing::Run& run) {
  JointSeries series;
  for (std::size_t i = 0; i < run.recorder.output_times.size(); ++i) {
    const auto q = run.system->compute_joint_coordinates(run.recorder.output_states[i]).front();
    series.t.push_back(run.recorder.output_times[i]);
    series.q.push_back(q.position);
    series.qd.push_back(q.velocity);
  }
  return series;
}

TEST_CASE("servos: a velocity servo's gain gives the first-order response to its load") {
  // I w' = gain (w_cmd - w) + tau: w(t) = w_ss + (w0 - w_ss) exp(-gain t / I), w_ss = w_cmd +
  // tau / gain = 5 - 1/2. rtol 1e-10 gives 1e-8 relative.
  auto run = testing::run_scene(
      load_scene_text(flywheel("{velocity: 5.0, gain: 2.0}"), "velocity_servo.yaml"));
  REQUIRE(run->result.status == SimulationStatus::ok);
  const JointSeries s = joint_series(*run);
  for (std::size_t i = 1; i < s.t.size(); ++i) {
    CHECK(s.qd[i] == relative(4.5 * (1.0 - std::exp(-2.0 * s.t[i] / 0.2)), 1e-8));
  }
}

TEST_CASE("servos: a position servo is a damped oscillator about q_cmd + tau / kp") {
  // I q'' = kp (q_cmd - q) - kd q' + tau from rest at 0: q_ss = 1 - 1/8, omega_n = sqrt(kp / I),
  // zeta = kd / (2 sqrt(kp I)) < 1, q(t) = q_ss (1 - exp(-zeta omega_n t) (cos omega_d t +
  // zeta omega_n / omega_d sin omega_d t)).
  auto run = testing::run_scene(
      load_scene_text(flywheel("{position: 1.0, kp: 8.0, kd: 1.6}", 3.0), "position_servo.yaml"));
  REQUIRE(run->result.status == SimulationStatus::ok);
  const double q_ss = 1.0 - 1.0 / 8.0;
  const double omega_n = std::sqrt(8.0 / 0.2);
  const double zeta = 1.6 / (2.0 * std::sqrt(8.0 * 0.2));
  const double omega_d = omega_n * std::sqrt(1.0 - zeta * zeta);
  const JointSeries s = joint_series(*run);
  for (std::size_t i = 1; i < s.t.size(); ++i) {
    const double decay = std::exp(-zeta * omega_n * s.t[i]);
    const double q = q_ss * (1.0 - decay * (std::cos(omega_d * s.t[i]) +
                                            zeta * omega_n / omega_d * std::sin(omega_d * s.t[i])));
    CHECK(std::abs(s.q[i] - q) < 1e-8);
  }
}

TEST_CASE("servos: an ideal velocity servo holds a sine command exactly against its load") {
  // The command 1 + 2 sin(3 t) rad/s is a constraint row: the joint rate follows it to the
  // integration tolerance whatever the load, and the constraint torque is I q'' - tau.
  auto run = testing::run_scene(load_scene_text(
      flywheel("{velocity: {sine: {amplitude: [2, 0, 0], frequency: 0.477464829275686, offset: "
               "[1, 0, 0]}}, ideal: true}"),
      "ideal_servo.yaml"));
  REQUIRE(run->result.status == SimulationStatus::ok);
  const JointSeries s = joint_series(*run);
  REQUIRE(s.t.size() == 21);
  for (std::size_t i = 0; i < s.t.size(); ++i) {
    CHECK(std::abs(s.qd[i] - (1.0 + 2.0 * std::sin(3.0 * s.t[i]))) < 1e-7);
    // The angle integrates it: t + 2 (1 - cos 3t) / 3, wrapped into (-pi, pi].
    const double angle = s.t[i] + 2.0 * (1.0 - std::cos(3.0 * s.t[i])) / 3.0;
    CHECK(std::abs(std::remainder(s.q[i] - angle, 2.0 * std::numbers::pi)) < 1e-7);
  }
}

TEST_CASE("servos and prescribed bodies: commands set from the API while running") {
  Simulator simulator(load_scene_text(flywheel("{velocity: 2.0, ideal: true}", 2.0), "api.yaml"));
  simulator.advance_to(0.5);
  CHECK(std::abs(simulator.joint_state("axle").velocity - 2.0) < 1e-9);
  simulator.set_input("axle.servo", {7.0, 0.0, 0.0});
  simulator.advance_to(1.0);
  CHECK(std::abs(simulator.joint_state("axle").velocity - 7.0) < 1e-9);
  CHECK(std::abs(simulator.input_value("axle.servo").x() - 7.0) == 0.0);
}

TEST_CASE("prescribed bodies: the pose integrates the velocity signals, contacts ride along") {
  // A platform whose origin moves with v = 0.5 sin(2 pi t) along x (from rest) and turns at
  // 0.3 rad/s about z; a box rests on its centre with friction. Closed forms:
  // x = 0.5 (1 - cos(2 pi t)) / (2 pi), the yaw 0.3 t.
  const std::string text = R"(
simulation: {stop_time: 2.0, rtol: 1.0e-10, output_interval: 0.25}
contact_materials:
  - pair: [Steel, Steel]
    restitution: 0.1
    friction: {model: regularized_coulomb, mu_kinetic: 0.9, v_small: 1.0e-4}
bodies:
  - name: platform
    prescribed:
      linear_velocity: {signal: {sine: {amplitude: [0.5, 0, 0], frequency: 1.0}}}
      angular_velocity: {signal: {constant: [0, 0, 0.3]}}
    shapes: [{name: deck, type: box, size: [2, 2, 0.1], material: Steel}]
  - name: box
    position: [0, 0, 0.1]
    shapes: [{name: block, type: box, size: [0.1, 0.1, 0.1], material: Steel}]
)";
  const Model model = load_scene_text(text, "platform.yaml");
  CHECK(model.bodies[0].prescribed);
  auto run = testing::run_scene(model);
  REQUIRE(run->result.status == SimulationStatus::ok);
  for (std::size_t i = 0; i < run->recorder.output_times.size(); ++i) {
    const double t = run->recorder.output_times[i];
    const VectorX& x = run->recorder.output_states[i];
    const double w = 2.0 * std::numbers::pi;
    CHECK(std::abs(x[0] - 0.5 * (1.0 - std::cos(w * t)) / w) < 1e-8);
    CHECK(std::abs(x[1]) < 1e-12);
    const Quat q(x[3], x[4], x[5], x[6]);
    const double yaw = 2.0 * std::atan2(q.z(), q.w());
    CHECK(std::abs(std::remainder(yaw - 0.3 * t, 2.0 * std::numbers::pi)) < 1e-8);
    // The platform's velocity states hold the signals' values.
    CHECK(std::abs(x[7] - 0.5 * std::sin(w * t)) < 1e-8);
  }
  // The box, held by friction (mu g = 8.8 m/s^2 > the peak 3.1 m/s^2), moves with the platform:
  // regularised Coulomb creeps at most v_small * 3.1 / 8.8 = 3.6e-5 m/s, 7e-5 m in 2 s.
  const VectorX& x = run->final_state;
  const int box = model.bodies[1].state_offset;
  CHECK(std::hypot(x[box] - x[0], x[box + 1] - x[1]) < 1e-4);
  // The energy is the box's alone (kinetic, potential, and an elastic part below 1e-3 J at
  // micrometre penetrations): the platform's 94 J of rotation at t = 2 s are external work.
  const auto kinematics = run->system->compute_kinematics(x);
  const BodyKinematics& k = kinematics[1];
  const Body& box_body = model.bodies[1];
  const Vec3 w_B = k.X_WB.rotation.transpose() * k.w_WB_W;
  const double box_energy = 0.5 * box_body.mass * k.v_WCom_W.squaredNorm() +
                            0.5 * w_B.dot(box_body.inertia_com_B * w_B) -
                            box_body.mass * model.gravity_W.dot(k.p_WCom);
  CHECK(std::abs(run->system->compute_energy(x) - box_energy) < 1e-3);
}

// The error message of loading a scene, or "" when it loads.
std::string load_error(const std::string& text) {
  try {
    load_scene_text(text, "bad.yaml");
  } catch (const InputError& error) {
    return error.what();
  }
  return "";
}

TEST_CASE("wheels, servos and prescribed bodies: bad input names the key") {
  const std::string head = R"(
bodies:
  - name: ground
    fixed: true
    shapes: [{type: halfspace, material: Steel}]
  - name: chassis
    position: [0, 0, 0.5]
    shapes: [{name: deck, type: box, size: [0.4, 0.4, 0.05], material: Steel}]
  - name: ball
    position: [0, 0, 0.1]
    shapes: [{name: tyre, type: sphere, radius: 0.1, material: Steel},
             {name: hub, type: sphere, radius: 0.01, material: Steel, collision: false}]
)";
  const std::string axle =
      "joints:\n  - {name: axle, type: revolute, parent: chassis, child: ball, axis: [0, 1, 0]}\n";
  struct Case {
    std::string text;
    std::string expected;
  };
  const Case cases[] = {
      {head + "wheels:\n  - {name: w, body: ball, axis: [0, 1, 0], shapes: [hub]}\n",
       "wheels[0].shapes[0]"},
      {head + "wheels:\n  - {name: w, body: chassis, axis: [0, 1, 0], shapes: []}\n",
       "has no shape that touches the ground"},
      {head + axle +
           "  - {name: axle2, type: revolute, parent: ground, child: ball, axis: [0, 1, 0]}\n"
           "wheels:\n  - {name: w, body: ball, axis: [0, 1, 0]}\n",
       "the child of 2 joints"},
      {head + "wheels:\n  - {name: w, body: ball, axis: [0, 0, 0]}\n", "key 'wheels[0].axis'"},
      {head + "wheels:\n  - {name: w, body: ball, axis: [0, 1, 0], normal_force: 5,\n"
              "     slip_compliance: {lateral: -1.0}}\n",
       "wheels[0].slip_compliance.lateral"},
      {head + "wheels:\n  - {name: w, body: ball, axis: [0, 1, 0],\n"
              "     plowing: {max_angle: 0.1, deadband: 0.6, saturation: 0.6}}\n",
       "wheels[0].plowing.deadband"},
      {head + "wheels:\n  - {name: w, body: ball, axis: [0, 1, 0], slip_compliance: {}}\n",
       "wheels[0].normal_force"},
      {head + "wheels:\n  - {name: w, body: ground, axis: [0, 1, 0]}\n", "must be free"},
      {head + "joints:\n  - {name: axle, type: revolute, parent: chassis, child: ball, axis: [0, "
              "1, 0], servo: {velocity: 1.0}}\n",
       "joints[0].servo.gain"},
      {head + "joints:\n  - {name: axle, type: revolute, parent: chassis, child: ball, axis: [0, "
              "1, 0], servo: {position: 1.0, ideal: true, kp: 1}}\n",
       "joints[0].servo.ideal"},
      {head + "joints:\n  - {name: axle, type: spherical, parent: chassis, child: ball, servo: "
              "{velocity: 1.0, ideal: true}}\n",
       "joints[0].servo"},
      {head + "  - name: drum\n    fixed: true\n    prescribed: {}\n", "bodies[3].prescribed"},
      {head + "  - name: drum\n    prescribed: {}\n    shapes: [{type: sphere, radius: 1, "
              "material: Steel}]\njoints:\n  - {name: j, type: fixed, parent: drum, child: ball}\n",
       "joints[0].parent"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.text);
    const std::string error = load_error(c.text);
    CHECK(error.find(c.expected) != std::string::npos);
    CHECK(error.find("bad.yaml") != std::string::npos);
  }
}

TEST_CASE("wheels: the C API reads a wheel's frame and slip") {
  hybridsim_simulator* sim = hybridsim_create();
  REQUIRE(hybridsim_load_file(sim, "tricycles_uphill") == HYBRIDSIM_OK);
  REQUIRE(hybridsim_advance_to(sim, 4.0, 0, nullptr) == HYBRIDSIM_OK);
  hybridsim_wheel_state wheel{};
  wheel.size = sizeof wheel;
  REQUIRE(hybridsim_get_wheel_state(sim, "rear_left", &wheel) == HYBRIDSIM_OK);
  // The catalog's c = 1: S_a = T / N_est = 14.5 / 32 in steady climbing, R omega = 0.9 m/s.
  CHECK(std::abs(wheel.S_a - 14.5 / 32.0) < 1e-5);
  CHECK(std::abs(wheel.r_omega - 0.9) < 1e-5);
  CHECK(wheel.normal_force > 0.0);
  CHECK(hybridsim_get_wheel_state(sim, "nowhere", &wheel) == HYBRIDSIM_ERROR_NOT_FOUND);
  hybridsim_free(sim);
}

}  // namespace
}  // namespace hybridsim
