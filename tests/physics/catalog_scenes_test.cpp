// Catalog scenes from the anchor projects, each against its published or closed-form reference
// (the scene files name the source):
//  - rolling_sphere_incline (Drake): a sphere rolls down a 15 degree slope without slipping: after
//    a drop h its speed is sqrt(10 g h / 7) (energy m g h shared as (1/2 + 1/5) m v^2) and its
//    spin w = v / r; the acceleration is (5/7) g sin(theta).
//  - sphere_slip (Gazebo's SphereSlip): 24 models under slip compliance on a gentle slope reach
//    the steady slip v = m g_t c / n with the first-order time constant tau = m c / n.
//  - sphere_spin_walls (Modia3D's BouncingSphereFreeMotion): a spinning sphere's first impact at
//    sqrt(2 h / g), after which it rolls at (2/7) r (w- x n); its hits on an edge and a wall have
//    the normals the geometry gives; energy never rises.
//  - rattleback (Modia3D's Rattleback): the spin reverses, and the state after 6 s is Modia3D's
//    published final state.
#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <numbers>
#include <string>
#include <tuple>
#include <utility>

#include "test_support.hpp"

namespace hybridsim {
namespace {

constexpr double g = 9.81;

TEST_CASE("rolling sphere on a 15 degree incline: v = sqrt(10 g h / 7), w r = v") {
  const double theta = 15.0 * std::numbers::pi / 180.0;
  const double r = 0.05;
  auto run = testing::run_scene(load_scene_file("rolling_sphere_incline"));
  REQUIRE(run->result.status == SimulationStatus::ok);
  CHECK(run->result.contact_ends == 0);  // it never leaves the slope
  const int ball = run->model.find_body("ball");
  const double z0 =
      run->system->compute_kinematics(run->recorder.output_states.front())[ball].p_WCom.z();
  // From 0.3 s on (after the first contact's micrometre settling): the Hertz penetration
  // (~1 um) shortens the rolling radius by ~2e-5 relative and the regularised slip is tiny
  // (v_small 1e-4 m/s); measured deviations stay below 1e-5, 1e-4 bounds them.
  for (std::size_t i = 30; i < run->recorder.output_states.size(); i += 10) {
    const double t = run->recorder.output_times[i];
    CAPTURE(t);
    const BodyKinematics k = run->system->compute_kinematics(run->recorder.output_states[i])[ball];
    const double h = z0 - k.p_WCom.z();
    const double v = k.v_WCom_W.norm();
    CHECK(v == testing::relative(std::sqrt(10.0 * g * h / 7.0), 1e-4));
    CHECK(k.w_WB_W.norm() * r == testing::relative(v, 1e-4));
    CHECK(v / t == testing::relative(5.0 / 7.0 * g * std::sin(theta), 1e-4));
  }
}

TEST_CASE("SphereSlip: 24 models reach the steady slip m g_t c / n, first order with m c / n") {
  // models/scenes/sphere_slip.yaml. Per contact f_t = -v / c, never saturated; n contacts in
  // parallel give m dv/dt = m g_t - n v / c: v = v_inf (1 - exp(-t / tau)), v_inf = m g_t c / n,
  // tau = m c / n. The lowball weeble rocks slowly about its low centre of mass (its contact
  // point then rolls a little), so it is checked on its mean velocity over the last second.
  constexpr double g_t = 2.0;  // the slope component of the scene's gravity, m/s^2
  auto run = testing::run_scene(load_scene_file("sphere_slip"));
  REQUIRE(run->result.status == SimulationStatus::ok);
  // Every sphere and box lands and stays: 6 x (1 + 2 + 3 + 4) contact points (the box's four
  // corners), none ends.
  CHECK(run->result.contact_starts == 60);
  CHECK(run->result.contact_ends == 0);
  const auto& times = run->recorder.output_times;
  const auto& states = run->recorder.output_states;
  const std::size_t last = times.size() - 1;
  std::size_t one_second_before = last;
  while (one_second_before > 0 && times[one_second_before] > times[last] - 1.0 + 1e-9) {
    --one_second_before;
  }
  REQUIRE(times[last] - times[one_second_before] == doctest::Approx(1.0));
  const std::array<std::tuple<const char*, double, double>, 6> models{{{"0.2a", 1.0, 0.2},
                                                                       {"0.2b", 2.0, 0.1},
                                                                       {"0.4a", 2.0, 0.2},
                                                                       {"0.4b", 4.0, 0.1},
                                                                       {"0.6a", 3.0, 0.2},
                                                                       {"0.6b", 6.0, 0.1}}};
  for (const auto& [family, contacts] : {std::pair{"lowball", 1}, std::pair{"twoball", 2},
                                         std::pair{"triball", 3}, std::pair{"boxball", 1}}) {
    for (const auto& [tag, mass, compliance] : models) {
      const std::string name = std::string(family) + "_" + tag;
      CAPTURE(name);
      const int offset = run->model.bodies[run->model.find_body(name)].state_offset;
      const double v_inf = mass * g_t * compliance / contacts;
      const double tau = mass * compliance / contacts;
      // Steady slip: the mean velocity over the last second (5 tau or more after the start of
      // the slowest, e^-8 of the transient left). Measured within 5e-5 (the weeble's rocking).
      const double mean_velocity =
          (states[last][offset + 1] - states[one_second_before][offset + 1]) /
          (times[last] - times[one_second_before]);
      CHECK(mean_velocity == testing::relative(v_inf, 1e-3));
      if (std::string(family) == "lowball") continue;
      // The transient at every output: the normal settling in the first milliseconds leaves
      // 2.8e-5 of v_inf (measured); 1e-4 bounds it.
      double worst = 0.0;
      for (std::size_t i = 0; i < times.size(); ++i) {
        const double expected = v_inf * (1.0 - std::exp(-times[i] / tau));
        worst = std::max(worst, std::abs(states[i][offset + 8] - expected) / v_inf);
      }
      CHECK(worst < 1e-4);
    }
  }
}

TEST_CASE("sphere_spin_walls: impact time, rolling exit (2/7) r (w x n), edge and wall normals") {
  const double r = 0.1, h = 0.9, mu_r = 0.001;
  const Vec3 w0(10.0, 0.0, -5.0), n(0.0, 1.0, 0.0);
  auto run = testing::run_scene(load_scene_file("sphere_spin_walls"));
  REQUIRE(run->result.status == SimulationStatus::ok);
  const std::vector<EventRecord> records = run->recorder.contact_records();
  REQUIRE(records.size() >= 8);
  // Starts and ends alternate (one sphere, never two contacts at once here).
  for (std::size_t i = 0; i < records.size(); ++i) {
    CHECK(records[i].kind ==
          (i % 2 == 0 ? EventRecord::Kind::contact_start : EventRecord::Kind::contact_end));
  }
  // Free fall from rest: the event lands within rtol of the crossing, 1e-9 relative.
  const double t1 = std::sqrt(2.0 * h / g);
  CHECK(records[0].t == testing::relative(t1, 1e-9));
  CHECK(records[0].pre_impact_velocity == testing::relative(g * t1, 1e-9));
  CHECK(records[0].pair_a == "world/ground");  // A is the ledge: the normal points to the sphere
  CHECK(records[0].pair_b == "sphere/ball");
  CHECK((records[0].normal_W - n).norm() < 1e-12);

  // The state when the first contact ends: the slip stopped inside the impact, so the velocity
  // follows from the angular momentum about the contact point, conserved but for the rolling
  // resistance torque mu_r r f_n: v_t = (2/7) r (w- x n) within mu_r (v- + v+) / 1.4 (the
  // angular impulse mu_r r J_n over the rolling body's 7/5 m r, J_n = m (v- + v+)).
  std::size_t end_index = 0;
  for (std::size_t i = 0; i < run->recorder.events.size(); ++i) {
    if (run->recorder.events[i].t == records[1].t) end_index = i;
  }
  const VectorX& x = run->recorder.event_states.at(end_index);
  const int o = run->model.bodies[run->model.find_body("sphere")].state_offset;
  const Vec3 v_after = x.segment<3>(o + 7);
  const Vec3 expected_t = 2.0 / 7.0 * r * w0.cross(n);
  const Vec3 v_t = v_after - v_after.dot(n) * n;
  // J_n also carries the weight over the contact's duration (0.5 ms, 0.08% of J_n). Measured:
  // 4.8e-3 m/s against a bound of 5.1e-3 (the torque keeps nearly one direction).
  const double bound =
      mu_r * (records[0].pre_impact_velocity + v_after.dot(n) + g * (records[1].t - records[0].t)) /
      1.4;
  CHECK((v_t - expected_t).norm() < bound);
  CHECK((v_t - expected_t).norm() > 0.1 * bound);  // the rolling resistance is there
  // ...and the contact point does not slip: v + w x (-r n) has no tangential part left.
  const Quat q(x[o + 3], x[o + 4], x[o + 5], x[o + 6]);
  const Vec3 w_W = q.normalized() * Vec3(x.segment<3>(o + 10));
  const Vec3 slip = v_after + w_W.cross(-r * n);
  CHECK((slip - slip.dot(n) * n).norm() < 1e-3 * expected_t.norm());

  // The third impact is on the ledge's edge (the line y = 0, z = 0.25): the normal runs from the
  // edge point to the sphere's centre. The fourth is on the wall's face z = 0.75.
  CHECK(records[4].pair_a == "world/ground");
  const Vec3 c3 = records[4].point_W;
  CHECK(std::abs(c3.y()) < 1e-9);
  CHECK(std::abs(c3.z() - 0.25) < 1e-9);
  const std::size_t third = [&] {
    for (std::size_t i = 0; i < run->recorder.events.size(); ++i) {
      if (run->recorder.events[i].t == records[4].t) return i;
    }
    return std::size_t{0};
  }();
  const Vec3 centre = run->recorder.event_states.at(third).segment<3>(o);
  CHECK((records[4].normal_W - (centre - Vec3(c3.x(), 0.0, 0.25)).normalized()).norm() < 1e-9);
  CHECK(records[6].pair_a == "world/wall");
  CHECK((records[6].normal_W - Vec3(0.0, 0.0, -1.0)).norm() < 1e-12);

  // Energy (kinetic, potential and elastic) never rises; 1e-6 J of the ~300 J: free flight
  // (constant acceleration) is integrated exactly by BDF and every contact dissipates, so only
  // the contacts' integration error remains (3e-9 relative at most).
  double lowest = run->recorder.output_energies.front();
  for (const double energy : run->recorder.output_energies) {
    CHECK(energy <= lowest + 1e-6);
    lowest = std::min(lowest, energy);
  }
}

TEST_CASE("rattleback: the spin reverses and the state at 6 s is Modia3D's published one") {
  auto run = testing::run_scene(load_scene_file("rattleback"));
  REQUIRE(run->result.status == SimulationStatus::ok);
  CHECK(run->result.contact_starts == 1);  // it never leaves the floor
  CHECK(run->result.contact_ends == 0);
  const int o = run->model.bodies[run->model.find_body("rattleback")].state_offset;
  // The vertical spin w_z (world) starts at +5 rad/s and changes sign exactly once.
  int sign_changes = 0;
  double previous = 5.0;
  for (const VectorX& x : run->recorder.output_states) {
    const Quat q = Quat(x[o + 3], x[o + 4], x[o + 5], x[o + 6]).normalized();
    const double w_z = (q * Vec3(x.segment<3>(o + 10))).z();
    if ((w_z < 0.0) != (previous < 0.0)) ++sign_changes;
    previous = w_z;
  }
  CHECK(sign_changes == 1);
  CHECK(previous < -2.0);
  // Modia3D's test/Collision/Rattleback.jl stores the state its simulation reaches at 6 s
  // (tolerance 1e-8): position, velocity and angular velocity, all in world. Two codes,
  // two integrators, the same equations: the differences measured are 2e-7 m, 4e-7 m/s and
  // 1.4e-4 rad/s after the instability has run its course; 1e-6, 2e-6 and 5e-4 allow for that.
  const VectorX& x = run->final_state;
  const Vec3 p_modia(0.0006642916745069836, -0.0003421601373475422, 0.009999957179380127);
  const Vec3 v_modia(0.00048100224838247405, 0.0001387189555267131, -3.844627131472889e-8);
  const Vec3 w_modia(-0.014944019262829457, 0.05292038717100961, -2.294245213745764);
  CHECK((x.segment<3>(o) - p_modia).norm() < 1e-6);
  CHECK((x.segment<3>(o + 7) - v_modia).norm() < 2e-6);
  const Quat q = Quat(x[o + 3], x[o + 4], x[o + 5], x[o + 6]).normalized();
  CHECK((q * Vec3(x.segment<3>(o + 10)) - w_modia).norm() < 5e-4);
  // Modia3D's attitude: Cardan angles (a, b, c) with R = Rx(a) Ry(b) Rz(c). Measured 2.0e-4,
  // 3e-5 and 7.5e-4 rad apart (the angular velocity's 1.4e-4 rad/s over the run); 2e-3 bounds it.
  const Mat3 R = q.toRotationMatrix();
  const double b = std::asin(R(0, 2));
  const double a = std::atan2(-R(1, 2), R(2, 2));
  const double c = std::atan2(-R(0, 1), R(0, 0));
  CHECK(std::abs(a - 0.08140087449927354) < 2e-3);
  CHECK(std::abs(b - -0.2616224376222781) < 2e-3);
  CHECK(std::abs(c - -1.264936920220031) < 2e-3);
  // Energy (kinetic, potential and elastic) never rises: the contact dissipates all along, so
  // the slack is for rounding only, 1e-12 J of the 1.8e-4 J at the start.
  double lowest = run->recorder.output_energies.front();
  for (const double energy : run->recorder.output_energies) {
    CHECK(energy <= lowest + 1e-12);
    lowest = std::min(lowest, energy);
  }
}

}  // namespace
}  // namespace hybridsim
