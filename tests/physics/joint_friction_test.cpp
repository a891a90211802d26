// Joint friction (core/joint.hpp: Joint::friction) against the closed form of a flywheel braked by
// a constant friction torque: a rotor (I = 0.2 kg m^2, no gravity, centre of mass on the axis)
// spinning at omega0 = 2 rad/s under F = 0.1 N m slows at F / I = 0.5 rad/s^2,
// omega(t) = omega0 - (F / I) t, as long as omega is above the regularisation speed v_s, where
// the effort is exactly -F; it then decays to rest inside the band (rate 3 F / (I v_s) near 0).
#include <doctest/doctest.h>

#include <cmath>

#include "core/errors.hpp"
#include "test_support.hpp"

namespace hybridsim {
namespace {

using testing::relative;

constexpr const char* kFlywheel = R"(
gravity: [0, 0, 0]
simulation: {stop_time: 5.0, integrator: cvode-bdf, rtol: 1.0e-10, atol: 1.0e-12,
             output_interval: 0.5}
bodies:
  - {name: ground, fixed: true}
  - {name: rotor, mass: 1.0, inertia: [0.1, 0.1, 0.2, 0, 0, 0]}
joints:
  - {name: hinge, type: revolute, parent: ground, child: rotor, axis: [0, 0, 1],
     initial: {velocity: 2.0}, friction: 0.1, friction_speed: 0.01}
)";

TEST_CASE("joint friction: a flywheel slows at F / I, the work F dtheta is its lost energy") {
  auto run = testing::run_scene(load_scene_text(kFlywheel, "flywheel.yaml"));
  REQUIRE(run->result.status == SimulationStatus::ok);
  const double inertia = 0.2, friction = 0.1, omega0 = 2.0;
  const auto& times = run->recorder.output_times;
  const auto& states = run->recorder.output_states;
  int checked = 0;
  for (std::size_t i = 0; i < times.size(); ++i) {
    const double t = times[i];
    const JointCoordinate q = run->system->compute_joint_coordinates(states[i])[0];
    if (t <= 3.5) {
      // Above v_s the torque is exactly -F: the rate is linear in t, which BDF of any order
      // integrates exactly; what is left is the Newton iteration's error at rtol 1e-10 on
      // 2 rad/s, far below 1e-8 rad/s.
      CAPTURE(t);
      CHECK(std::abs(q.velocity - (omega0 - friction / inertia * t)) < 1e-8);
      // Kinetic energy lost = F times the angle turned, omega0 t - (F / I) t^2 / 2.
      const double turned = omega0 * t - 0.5 * friction / inertia * t * t;
      CHECK(0.5 * inertia * (omega0 * omega0 - q.velocity * q.velocity) ==
            relative(friction * turned, 1e-8));
      ++checked;
    }
  }
  CHECK(checked == 8);  // t = 0, 0.5, ..., 3.5
  // It reaches v_s at (omega0 - v_s) I / F = 3.98 s; a second later it is at rest.
  const JointCoordinate end = run->system->compute_joint_coordinates(run->final_state)[0];
  CHECK(std::abs(end.velocity) < 1e-9);
}

TEST_CASE("joint friction: bad values are load errors naming the key") {
  std::string scene = kFlywheel;
  const std::string negative =
      std::string(scene).replace(scene.find("friction: 0.1"), 13, "friction: -1");
  CHECK_THROWS_WITH_AS(load_scene_text(negative, "flywheel.yaml"),
                       doctest::Contains("key 'joints[0].friction' = -1: must not be negative"),
                       InputError);
  const std::string zero_speed =
      std::string(scene).replace(scene.find("friction_speed: 0.01"), 20, "friction_speed: 0");
  CHECK_THROWS_WITH_AS(load_scene_text(zero_speed, "flywheel.yaml"),
                       doctest::Contains("joints[0].friction_speed"), InputError);
}

}  // namespace
}  // namespace hybridsim
