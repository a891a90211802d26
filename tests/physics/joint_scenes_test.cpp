// Jointed scenes of the catalog against closed forms, with CVODE (the ODE form: KKT system with
// Baumgarte stabilisation) and IDA (the DAE form with the multipliers as algebraic variables):
//  - pendulum: the period of a compound pendulum at 170 degrees, 4 sqrt(L_eq/g) K(sin(th0/2));
//  - double pendulum: constraint drift and energy over 100 s of chaotic motion;
//  - slider-crank: the closed-form slider position and rate against the crank angle;
//  - prismatic bounce: the contact events of the free bouncing sphere;
//  - both integrators agree.
#include <doctest/doctest.h>

#include <cmath>
#include <numbers>

#include "physics/pendulum_reference.hpp"
#include "test_support.hpp"

namespace hybridsim {
namespace {

using testing::complete_elliptic_k;
using testing::joint_history;
using testing::JointHistory;
using testing::zero_crossings;

TEST_CASE("pendulum at 170 degrees: period 4 sqrt(L_eq/g) K(sin(theta0/2)) to 1e-8") {
  const Model model =
      load_scene_file("pendulum", {"simulation.rtol=1e-12", "simulation.atol=1e-13"});
  // Compound pendulum: L_eq = I_pivot / (m L), L from the hinge to the centre of mass.
  const Body& bob = model.bodies[1];
  const double L = 1.0, g = 9.81, theta0 = model.joints[0].initial_position;
  const double L_eq = (bob.inertia_com_B(0, 0) + bob.mass * L * L) / (bob.mass * L);
  const double period = 4.0 * std::sqrt(L_eq / g) * complete_elliptic_k(std::sin(theta0 / 2));
  for (const char* integrator : {"cvode-bdf", "ida"}) {
    CAPTURE(std::string(integrator));
    auto run = testing::run_scene(model, integrator, 1e-3);
    REQUIRE(run->result.status == SimulationStatus::ok);
    const std::vector<double> crossings = zero_crossings(joint_history(*run, 0));
    REQUIRE(crossings.size() == 4);  // at T/4, 3T/4, 5T/4 and 7T/4 within 10 s
    CHECK(crossings[0] == testing::relative(period / 4.0, 1e-8));
    CHECK(crossings[2] - crossings[0] == testing::relative(period, 1e-8));
    CHECK(crossings[3] - crossings[1] == testing::relative(period, 1e-8));
  }
}

// Largest joint constraint violation over a run's outputs, m (or rad).
double largest_drift(testing::Run& run) {
  double drift = 0.0;
  for (const VectorX& x : run.recorder.output_states) {
    drift = std::max(drift, run.system->compute_constraint_error(x).position);
  }
  return drift;
}

double relative_energy_error(testing::Run& run) {
  REQUIRE(!run.recorder.output_energies.empty());
  const double initial = run.recorder.output_energies.front();
  const double final = run.recorder.output_energies.back();
  return std::abs(final - initial) / std::abs(initial);
}

TEST_CASE("chaotic double pendulum: drift below 1e-9 m over 100 s, energy to the tolerance") {
  for (const char* integrator : {"cvode-bdf", "ida"}) {
    CAPTURE(std::string(integrator));
    auto run = testing::run_scene(load_scene_file("double_pendulum"), integrator, 0.01);
    REQUIRE(run->result.status == SimulationStatus::ok);
    CHECK(largest_drift(*run) < 1e-9);
    // The energy error is the integrator's: each of the ~1.5e5 steps adds at most about rtol of
    // relative error (rtol = 1e-11 here), so it must stay below 1e5 rtol = 1e-6.
    CHECK(relative_energy_error(*run) < 1e-6);
  }
  // ...and it is the integrator's because it shrinks with the tolerance (a modelling error, such
  // as a wrong constraint bias, would not): about 7x per decade of rtol, measured.
  auto loose = testing::run_scene(
      load_scene_file("double_pendulum", {"simulation.rtol=1e-10", "simulation.atol=1e-12"}),
      "cvode-bdf", 0.01);
  auto tight = testing::run_scene(load_scene_file("double_pendulum"), "cvode-bdf", 0.01);
  CHECK(relative_energy_error(*tight) < relative_energy_error(*loose) / 3.0);
}

TEST_CASE("slider-crank: slider position and rate follow the closed-form kinematics") {
  const double r = 0.1, l = 0.3, theta0 = std::numbers::pi / 3.0;
  for (const char* integrator : {"cvode-bdf", "ida"}) {
    CAPTURE(std::string(integrator));
    auto run = testing::run_scene(load_scene_file("slider_crank"), integrator);
    REQUIRE(run->result.status == SimulationStatus::ok);
    const Model& model = run->model;
    const int crank = model.find_joint("crank_pivot");
    const int slider = model.find_body("slider");
    double position_error = 0.0, rate_error = 0.0, largest_rate = 0.0;
    for (const VectorX& x : run->recorder.output_states) {
      const JointCoordinate q = run->system->compute_joint_coordinates(x)[crank];
      const BodyKinematics& k = run->system->compute_kinematics(x)[slider];
      const double theta = theta0 + q.position, s = std::sin(theta), c = std::cos(theta);
      const double root = std::sqrt(l * l - r * r * s * s);
      const double x_expected = r * c + root;
      const double v_expected = -r * s * q.velocity - r * r * s * c * q.velocity / root;
      position_error = std::max(position_error, std::abs(k.p_WCom.x() - x_expected));
      rate_error = std::max(rate_error, std::abs(k.v_WCom_W.x() - v_expected));
      largest_rate = std::max(largest_rate, std::abs(v_expected));
    }
    // The mechanism holds its joints to the drift bound of the double pendulum test; the closed
    // form is exact, so only that drift separates them: 1e-9 m in position, and in rate the
    // Baumgarte-balanced velocity error (about omega = 50/s times the position error).
    CHECK(position_error < 1e-9);
    CHECK(rate_error < 1e-8);
    // The crank turns: the start projects the given 5 rad/s of the crank alone onto the loop
    // (mass-weighted), which leaves about 2 rad/s.
    CHECK(largest_rate > 0.1);
  }
}

TEST_CASE("sphere on a vertical prismatic joint: the contact events of the free sphere") {
  for (const char* integrator : {"cvode-bdf", "ida"}) {
    CAPTURE(std::string(integrator));
    auto free_run = testing::run_scene(load_scene_file("bouncing_sphere"), integrator);
    const auto expected = free_run->recorder.contact_records();
    REQUIRE(expected.size() >= 20);
    auto run = testing::run_scene(load_scene_file("prismatic_bounce"), integrator);
    REQUIRE(run->result.status == SimulationStatus::ok);
    const auto records = run->recorder.contact_records();
    REQUIRE(records.size() == expected.size());
    for (std::size_t i = 0; i < records.size(); ++i) {
      CAPTURE(i);
      CHECK(records[i].kind == expected[i].kind);
      // Two integrations of the same motion at rtol 1e-8: event times agree to the global
      // error, growing over 16 bounces. Measured: identical with CVODE (the rail's constraint
      // forces are zero), 2.3e-7 s and 2.6e-6 relative in v- with IDA, whose residual differs.
      CHECK(std::abs(records[i].t - expected[i].t) < 1e-6);
      if (records[i].kind == EventRecord::Kind::contact_start) {
        CHECK(records[i].pre_impact_velocity ==
              testing::relative(expected[i].pre_impact_velocity, 1e-5));
      }
    }
  }
}

TEST_CASE("CVODE and IDA agree on the jointed scenes to their tolerance") {
  // Joint coordinates at every output over the first 2 s (before the double pendulum's chaos
  // amplifies the differences): two runs at rtol 1e-10 differ by their global errors, a few
  // hundred rtol over such a horizon.
  for (const char* scene : {"pendulum", "double_pendulum", "slider_crank"}) {
    CAPTURE(scene);
    const Model model = load_scene_file(scene, {"simulation.stop_time=2"});
    auto cvode = testing::run_scene(model, "cvode-bdf");
    auto ida = testing::run_scene(model, "ida");
    REQUIRE(cvode->recorder.output_states.size() == ida->recorder.output_states.size());
    double difference = 0.0;
    for (std::size_t j = 0; j < model.joints.size(); ++j) {
      const JointHistory a = joint_history(*cvode, static_cast<int>(j));
      const JointHistory b = joint_history(*ida, static_cast<int>(j));
      for (std::size_t i = 0; i < a.q.size(); ++i) {
        difference = std::max(difference, std::abs(a.q[i] - b.q[i]));
      }
    }
    CHECK(difference < 1e-7);
  }
}

}  // namespace
}  // namespace hybridsim
