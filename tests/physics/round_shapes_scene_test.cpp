// Scenes with the round shapes against half-spaces:
//  - rolling_cylinder: a cylinder on its side rolls down a slope at (2/3) g sin(theta), its
//    energy never increasing;
//  - a tilted ellipsoid dropped on a plane first touches at sqrt(2 h / g), h the height of its
//    lowest point, and bounces with the contact events logged in pairs.
#include <doctest/doctest.h>

#include <cmath>
#include <numbers>

#include <fmt/format.h>

#include "test_support.hpp"

namespace hybridsim {
namespace {

constexpr double g = 9.81;

TEST_CASE("rolling cylinder: rolls down a 15 degree slope at (2/3) g sin(theta)") {
  const double theta = 15.0 * std::numbers::pi / 180.0;
  auto run = testing::run_scene(load_scene_file("rolling_cylinder"));
  REQUIRE(run->result.status == SimulationStatus::ok);
  const int body = run->model.find_body("cylinder");
  const Vec3 downhill(std::cos(theta), 0.0, -std::sin(theta));
  auto speed_at = [&](double t) {
    const auto i = static_cast<std::size_t>(std::lround(t / 0.01));
    REQUIRE(std::abs(run->recorder.output_times[i] - t) < 1e-12);
    return run->system->compute_kinematics(run->recorder.output_states[i])[body].v_WCom_W.dot(
        downhill);
  };
  // Rolling on a line contact: I = m r^2 / 2 about the axis. The regularized slip is constant
  // once rolling, so the acceleration is that of pure rolling about the contact point, whose
  // radius the Hertz penetration (~1 um on r = 5 cm) shortens by 1e-5 relative (measured
  // -1.6e-5); 1e-4 bounds it.
  const double a = (speed_at(0.9) - speed_at(0.3)) / 0.6;
  CHECK(a == testing::relative(2.0 / 3.0 * g * std::sin(theta), 1e-4));
  // It rolls along the slope without turning aside (the sideways speed stays at the integrator's
  // error, rtol 1e-9 of the 1.7 m/s it reaches; measured 3.1e-9 m/s) or lifting off.
  const VectorX& last = run->recorder.output_states.back();
  CHECK(std::abs(run->system->compute_kinematics(last)[body].v_WCom_W.y()) < 1e-8);
  CHECK(run->result.contact_ends == 0);
  // Energy never increases (beyond the integrator's tolerance on ~1 J).
  REQUIRE(!run->recorder.output_energies.empty());
  double previous = run->recorder.output_energies.front();
  for (const double energy : run->recorder.output_energies) {
    CHECK(energy <= previous + 1e-7);
    previous = std::min(previous, energy);
  }
}

TEST_CASE(
    "a tilted ellipsoid dropped on a plane: first contact at sqrt(2 h / g), events in pairs") {
  // models/scenes/ellipsoid_drop.yaml: semi-axes (0.1, 0.06, 0.04) m, centre 0.5 m above the
  // plane; the lowest point sits sqrt(e_z^T R A^2 R^T e_z) below the centre.
  const Model model = load_scene_file("ellipsoid_drop");
  const Mat3 R = model.bodies[1].q_WB.toRotationMatrix();
  const double reach = R.row(2).transpose().cwiseProduct(Vec3(0.1, 0.06, 0.04)).norm();
  // The egg bounces and tumbles, it never sticks in this time; the floor is A, its normal up.
  testing::check_drop_and_bounce(model, 0.5 - reach, Vec3::UnitZ());
}

}  // namespace
}  // namespace hybridsim
