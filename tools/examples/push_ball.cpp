// A C++ host with a feedback controller. The scene is built in code: a rubber-like ball resting on
// a floor, pushed along x by a force input. Every 20 ms the host reads the ball's state and sets
// the force of a PD controller that drives the ball to x = 1 m; each change is a time event with
// an integrator restart.
//
// A rolling ball of mass m and radius r driven at its centre has the effective mass 7/5 m, so
// the closed loop x'' = (kp (x* - x) - kd x') / (7/5 m) is critically damped for
// kd = 2 sqrt(kp 7/5 m): the ball settles without overshoot. The example checks that it ends
// within 1 mm of the target at rest (to 1 cm/s) and exits non-zero otherwise.
#include <cmath>
#include <cstdio>

#include "hybridsim/hybridsim.hpp"

int main() {
  using hybridsim::Vec3;
  const double radius = 0.05;     // m
  const double density = 1000.0;  // kg/m^3
  const double mass = density * 4.0 / 3.0 * M_PI * radius * radius * radius;
  const double target_x = 1.0;  // m

  hybridsim::ContactMaterial floor_contact;
  floor_contact.material_a = "Ball";
  floor_contact.material_b = "Floor";
  floor_contact.restitution = 0.3;
  floor_contact.friction.model = hybridsim::FrictionModel::regularized_coulomb;
  floor_contact.friction.mu_kinetic = 0.8;

  hybridsim::Signal no_force;  // constant zero until the controller sets it
  const hybridsim::Model model =
      hybridsim::ModelBuilder("push_ball", "a PD controller pushes a ball to x = 1 m")
          .simulation({.stop_time = 8.0, .integrator = "cvode-bdf", .rtol = 1e-7})
          .material(
              {.name = "Ball", .density = density, .youngs_modulus = 1e8, .poisson_ratio = 0.4})
          .material({.name = "Floor", .density = 2000, .youngs_modulus = 1e9, .poisson_ratio = 0.3})
          .contact_material(floor_contact)
          .body({.name = "ground", .fixed = true})
          .halfspace("ground", "floor", Vec3::UnitZ(), 0.0, "Floor")
          .body({.name = "ball", .position_W = Vec3(0.0, 0.0, radius)})
          .sphere("ball", "sphere", radius, "Ball")
          .input("push", "ball", hybridsim::Input::Kind::force, no_force)
          .build();

  hybridsim::Simulator simulator(model);
  const double kp = 2.0;                               // N/m
  const double kd = 2.0 * std::sqrt(kp * 1.4 * mass);  // N s/m, critical damping
  const double period = 0.02;                          // s, controller period
  const double max_force = 1.0;                        // N, actuator limit
  for (double t = period; t <= model.simulation.stop_time + 1e-9; t += period) {
    const hybridsim::BodyState ball = simulator.body_state("ball");
    double force = kp * (target_x - ball.position_W.x()) - kd * ball.linear_velocity_W.x();
    force = std::fmax(-max_force, std::fmin(max_force, force));
    simulator.set_input("push", Vec3(force, 0.0, 0.0));
    const hybridsim::AdvanceResult result = simulator.advance_to(t);
    if (result.status != hybridsim::SimulationStatus::ok) {
      std::fprintf(stderr, "push_ball: %s\n", simulator.status_message().c_str());
      return 1;
    }
  }
  const hybridsim::BodyState ball = simulator.body_state("ball");
  const hybridsim::SimulationResult stats = simulator.statistics();
  std::printf(
      "push_ball: t = %.3f s, x = %.6f m, vx = %.2e m/s, wy = %.3f rad/s, %ld steps, "
      "%ld time events\n",
      simulator.time(), ball.position_W.x(), ball.linear_velocity_W.x(),
      ball.angular_velocity_W.y(), stats.stats.steps, stats.time_events);
  const bool at_target = std::abs(ball.position_W.x() - target_x) < 1e-3 &&
                         std::abs(ball.linear_velocity_W.x()) < 1e-2;
  if (!at_target) std::fprintf(stderr, "push_ball: the ball did not settle at the target\n");
  return at_target ? 0 : 1;
}
