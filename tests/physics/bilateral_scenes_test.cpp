// Bilateral contacts switched at run time (seed 003: a gripper on a ladder rung) and the wrenches
// constraints transmit, against closed forms: a pendulum's swing time by quadrature, a weld that
// carries a weight, free fall after release, a plastic capture that conserves momentum, the
// tension of a pendulum's hinge.
#include <doctest/doctest.h>

#include <cmath>
#include <numbers>
#include <optional>
#include <string>
#include <tuple>

#include <fmt/format.h>

#include "core/errors.hpp"
#include "hybridsim/simulator.hpp"
#include "test_support.hpp"

namespace hybridsim {
namespace {

using testing::relative;

constexpr double kArmLength = 0.5;  // m, pivot to gripper centre (ladder_grasp.yaml)

// The time the arm of ladder_grasp takes from rest at the horizontal to angle phi below it:
// t = integral_0^phi dphi / omega, omega^2 = k sin(phi), k = 2 m g L / I_P. With phi = u^2 the
// integrand 2u / sqrt(k sin u^2) is smooth (-> 2 / sqrt(k) at 0); Simpson's rule on 20,000
// intervals is exact to 1e-13 s here.
double swing_time(double phi, double k) {
  const int n = 20000;
  const double upper = std::sqrt(phi);
  const double h = upper / n;
  auto f = [k](double u) {
    return u == 0.0 ? 2.0 / std::sqrt(k) : 2.0 * u / std::sqrt(k * std::sin(u * u));
  };
  double sum = f(0.0) + f(upper);
  for (int i = 1; i < n; ++i) sum += (i % 2 == 1 ? 4.0 : 2.0) * f(i * h);
  return sum * h / 3.0;
}

const EventRecord* find_record(const std::vector<EventRecord>& events, EventRecord::Kind kind,
                               const std::string& bilateral) {
  for (const EventRecord& record : events) {
    if (record.kind == kind && record.bilateral == bilateral) return &record;
  }
  return nullptr;
}

void check_ladder_grasp(const std::string& integrator) {
  SimulatorConfig config;
  config.integrator = integrator;
  Simulator simulator(load_scene_file("ladder_grasp"), config);
  const Model& model = simulator.model();
  const Body& arm = model.bodies[model.find_body("arm")];
  const double g = 9.81;
  const double m = arm.mass;
  // I_P about the pivot's y axis: the gripper's own inertia plus m L^2 (the centre of mass is the
  // gripper's centre, L from the pivot).
  const double inertia_pivot = arm.inertia_com_B(1, 1) + m * kArmLength * kArmLength;
  const double k = 2.0 * m * g * kArmLength / inertia_pivot;

  // The swing: the energy of a pendulum is conserved until the grasp (rtol 1e-10 on a 3 J
  // motion: 1e-8 relative).
  const double energy0 = simulator.energy();
  simulator.advance_to(0.5);
  CHECK(simulator.energy() == relative(energy0, 1e-8));

  // The grasp: the gripper (r = 0.03) meets the rung (r = 0.02), whose axis lies on the
  // gripper's circle at 150 degrees, when their centres are 0.05 m apart: a chord of 2 L
  // sin(dphi / 2), so at phi = 150 deg - 2 asin(0.05 / (2 L)). The event is located to the
  // root finder's 1e-10 relative time and the state carries rtol 1e-10: 1e-8 s.
  simulator.advance_to(1.0);
  REQUIRE(simulator.status() == SimulationStatus::ok);
  // A copy: later advances append to events() and may move its records (found by ASan).
  const EventRecord* found =
      find_record(simulator.events(), EventRecord::Kind::bilateral_on, "grasp");
  REQUIRE(found != nullptr);
  const std::optional<EventRecord> grasp = *found;
  const double phi_contact = 150.0 * std::numbers::pi / 180.0 - 2.0 * std::asin(0.05 / 1.0);
  CHECK(grasp->t == doctest::Approx(swing_time(phi_contact, k)).epsilon(1e-8));
  // Welded on all six directions to a fixed rung: the capture stops the arm.
  const BodyState held = simulator.body_state("arm");
  CHECK(held.linear_velocity_W.norm() < 1e-9);
  CHECK(held.angular_velocity_W.norm() < 1e-9);

  // The pivot lets go at 1.5 s: the arm hangs from the rung alone, without relative motion
  // (the issue's 1e-9 m), and the weld carries its weight m g and the moment of it about the
  // weld's anchor a: F = -m g_W, tau = -(c - a) x m g_W (the weld's multipliers, solved to the
  // regularisation's 1e-10).
  simulator.advance_to(1.5 + 1e-6);
  const Vec3 gripper_held = simulator.body_state("arm").com_position_W;
  double largest_motion = 0.0;
  for (double t = 1.55; t < 1.99; t += 0.05) {
    simulator.advance_to(t);
    largest_motion = std::max(largest_motion,
                              (simulator.body_state("arm").com_position_W - gripper_held).norm());
  }
  CHECK(largest_motion < 1e-9);
  CHECK_FALSE(simulator.bilateral_on("pivot"));
  CHECK(simulator.bilateral_on("grasp"));
  const Simulator::ConstraintWrench weld = simulator.bilateral_wrench("grasp");
  const Vec3 weight_W = m * model.gravity_W;
  const double scale = m * g;
  CHECK((weld.force_W + weight_W).norm() < 1e-8 * scale);
  const Vec3 c_W = simulator.body_state("arm").com_position_W;
  CHECK((weld.torque_W + (c_W - weld.point_W).cross(weight_W)).norm() < 1e-8 * scale * kArmLength);
  CHECK((weld.point_W - grasp->point_W).norm() < 1e-9);

  // The rung lets go at 2 s: free fall from rest, z = z0 - g (t - 2)^2 / 2, no rotation. The
  // contact at the weld carried no force (it started at zero depth), so nothing pushes; rtol
  // 1e-10 on a 1 m scale: 1e-8 m.
  simulator.advance_to(2.0 + 1e-9);
  const Vec3 c0 = simulator.body_state("arm").com_position_W;
  for (double t : {2.1, 2.3, 2.5}) {
    simulator.advance_to(t);
    const BodyState s = simulator.body_state("arm");
    const double dt = t - 2.0;
    CHECK((s.com_position_W - (c0 + 0.5 * dt * dt * model.gravity_W)).norm() < 1e-8);
    CHECK(s.angular_velocity_W.norm() < 1e-9);
  }
  CHECK(simulator.statistics().bilateral_switches == 4);
  const EventRecord* release =
      find_record(simulator.events(), EventRecord::Kind::bilateral_off, "grasp");
  REQUIRE(release != nullptr);
  CHECK(release->t == 2.0);
}

TEST_CASE("bilateral contacts: ladder_grasp swings, is welded on contact start, hangs, falls") {
  // The ODE form (Baumgarte stabilisation) and the DAE form (multipliers as algebraic states).
  SUBCASE("cvode-bdf") {
    check_ladder_grasp("cvode-bdf");
  }
  SUBCASE("ida") {
    check_ladder_grasp("ida");
  }
}

// Two free steel spheres (r = 0.1 m) in zero gravity, 1 m apart on x, B flying at A, and a
// bilateral contact switched by the host.
std::string two_spheres(const std::string& directions) {
  return fmt::format(R"(
gravity: [0, 0, 0]
simulation: {{stop_time: 5.0, rtol: 1.0e-10, atol: 1.0e-12, output_interval: 0.1}}
bodies:
  - name: a
    position: [0, 0, 0]
    shapes: [{{type: sphere, radius: 0.1, material: Steel}}]
  - name: b
    position: [1, 0, 0]
    linear_velocity: [-0.2, 0.3, 0]
    shapes: [{{type: sphere, radius: 0.1, material: Steel}}]
bilateral_contacts:
  - {{name: link, bodies: [a, b], directions: {}, on: api}}
)",
                     directions);
}

TEST_CASE("bilateral contacts: a weld switched by the host is a plastic capture") {
  // Welding two equal spheres, B moving at (-0.2, 0.3, 0): the impulses are internal, so
  // momentum and angular momentum are conserved; the pair then turns as one rigid body about its
  // centre of mass with w = L / I, I = 2 (2/5 m r^2) + 2 m (d/2)^2 about z, d the separation at
  // the weld.
  Simulator simulator(load_scene_text(two_spheres("all"), "two_spheres.yaml"));
  simulator.advance_to(1.0);
  const double m = simulator.model().bodies[0].mass;
  const BodyState a0 = simulator.body_state("a");
  const BodyState b0 = simulator.body_state("b");
  const Vec3 momentum = m * (a0.com_velocity_W + b0.com_velocity_W);
  const Vec3 centre = 0.5 * (a0.com_position_W + b0.com_position_W);
  const Vec3 angular_momentum = m * ((a0.com_position_W - centre).cross(a0.com_velocity_W) +
                                     (b0.com_position_W - centre).cross(b0.com_velocity_W));
  simulator.set_bilateral("link", true);
  CHECK(simulator.bilateral_on("link"));
  const std::size_t events = simulator.events().size();
  simulator.set_bilateral("link", true);  // already on: harmless, no event
  CHECK(simulator.events().size() == events);
  simulator.advance_to(2.0);
  const BodyState a = simulator.body_state("a");
  const BodyState b = simulator.body_state("b");
  // Momenta to the projection's round-off and the integrator's 1e-10.
  CHECK((m * (a.com_velocity_W + b.com_velocity_W) - momentum).norm() < 1e-9 * momentum.norm());
  const double d = (b0.com_position_W - a0.com_position_W).norm();
  const double r = 0.1;
  const double inertia = 2.0 * (0.4 * m * r * r) + 2.0 * m * (d / 2) * (d / 2);
  CHECK(a.angular_velocity_W.z() == relative(angular_momentum.z() / inertia, 1e-8));
  CHECK((a.angular_velocity_W - b.angular_velocity_W).norm() < 1e-9);
  CHECK((b.com_position_W - a.com_position_W).norm() == relative(d, 1e-9));

  // Released: each flies on with the velocity it had, in a straight line.
  simulator.set_bilateral("link", false);
  const BodyState released = simulator.body_state("b");
  simulator.advance_to(3.0);
  const BodyState later = simulator.body_state("b");
  CHECK((later.com_position_W - (released.com_position_W + 1.0 * released.com_velocity_W)).norm() <
        1e-9);
  int on = 0;
  int off = 0;
  for (const EventRecord& record : simulator.events()) {
    on += record.kind == EventRecord::Kind::bilateral_on ? 1 : 0;
    off += record.kind == EventRecord::Kind::bilateral_off ? 1 : 0;
  }
  CHECK(on == 1);
  CHECK(off == 1);
  CHECK_THROWS_AS(simulator.set_bilateral("nonesuch", true), InputError);
}

TEST_CASE("bilateral contacts: held directions hold, free ones stay free") {
  // Only x held (body a's x axis, at b's origin), switched on at t = 0 when b lies on a's x axis:
  // the x velocities are captured to the common value (m v_a + m v_b) / 2m = -0.1 by impulses
  // along the line of the centres, b's y velocity is untouched and nothing turns; the held row's
  // force stays zero as b slides along y (no velocity-dependent term without rotation).
  Simulator simulator(load_scene_text(two_spheres("[x]"), "two_spheres_x.yaml"));
  simulator.set_bilateral("link", true);
  simulator.advance_to(1.5);
  const BodyState a = simulator.body_state("a");
  const BodyState b = simulator.body_state("b");
  CHECK(a.com_velocity_W.x() == relative(-0.1, 1e-9));
  CHECK(b.com_velocity_W.x() == relative(-0.1, 1e-9));
  CHECK(b.com_velocity_W.y() == relative(0.3, 1e-9));
  CHECK(std::abs(a.com_velocity_W.y()) < 1e-9);
  CHECK(a.angular_velocity_W.norm() < 1e-9);
  CHECK(b.angular_velocity_W.norm() < 1e-9);
  CHECK(b.com_position_W.x() - a.com_position_W.x() == relative(1.0, 1e-9));
}

TEST_CASE("bilateral contacts: a rotation subset captures only its own axes' spin") {
  // Two equal spheres (I the same about every axis), a spinning at (1, 0, 2) rad/s, b at rest;
  // held about z only (a's z axis): the capture shares the z spin, (I 2 + I 0) / 2I = 1 each, and
  // leaves a's x spin and every linear velocity alone. Held about x and y: the x spins share,
  // 0.5 each, and the z spin stays with a. A swapped axis order would share the wrong component.
  for (const auto& entry : {std::tuple{"[rz]", Vec3(1.0, 0.0, 1.0), Vec3(0.0, 0.0, 1.0)},
                            std::tuple{"[rx, ry]", Vec3(0.5, 0.0, 2.0), Vec3(0.5, 0.0, 0.0)}}) {
    // Not a structured binding: clang 14 cannot capture one in a lambda (CAPTURE does).
    const auto& directions = std::get<0>(entry);
    const auto& a_expected = std::get<1>(entry);
    const auto& b_expected = std::get<2>(entry);
    CAPTURE(directions);
    std::string scene = two_spheres(directions);
    const std::string a_line = "    position: [0, 0, 0]\n";
    scene.replace(scene.find(a_line), a_line.size(), a_line + "    angular_velocity: [1, 0, 2]\n");
    Simulator simulator(load_scene_text(scene, "spin.yaml"));
    simulator.set_bilateral("link", true);
    const BodyState a = simulator.body_state("a");
    const BodyState b = simulator.body_state("b");
    // Right after the capture (the projection's round-off, 1e-12).
    CHECK((a.angular_velocity_W - a_expected).norm() < 1e-12);
    CHECK((b.angular_velocity_W - b_expected).norm() < 1e-12);
    CHECK(a.com_velocity_W.norm() < 1e-12);
    CHECK((b.com_velocity_W - Vec3(-0.2, 0.3, 0.0)).norm() < 1e-12);
  }
}

TEST_CASE("joint wrenches: a pendulum's hinge at rest carries the closed-form force") {
  // The catalog pendulum (a steel ball on a 1 m rod at 170 degrees, at rest): with w = 0 the
  // centre of mass accelerates only tangentially, a = alpha L, alpha = m g_t L / I_P. So the
  // hinge's force on the ball is F = -m g_r along the rod plus m g_t (m L^2 / I_P - 1) across
  // it, and the revolute joint passes no torque about the anchor for this planar motion.
  Simulator simulator(load_scene_file("pendulum"));
  const Model& model = simulator.model();
  const Body& bob = model.bodies[model.find_body("bob")];
  const Simulator::ConstraintWrench hinge = simulator.joint_wrench("hinge");
  const Vec3 c = simulator.body_state("bob").com_position_W;
  const Vec3 rod = c - hinge.point_W;
  const double L = rod.norm();
  const Vec3 e_r = rod / L;
  const Vec3 g_W = model.gravity_W;
  const Vec3 g_t = g_W - g_W.dot(e_r) * e_r;
  const double inertia_pivot = bob.inertia_com_B(0, 0) + bob.mass * L * L;
  const Vec3 expected =
      -bob.mass * g_W.dot(e_r) * e_r + bob.mass * (bob.mass * L * L / inertia_pivot - 1.0) * g_t;
  // The multipliers are solved to the regularisation's 1e-10 relative.
  CHECK((hinge.force_W - expected).norm() < 1e-8 * bob.mass * 9.81);
  CHECK(hinge.torque_W.norm() < 1e-8 * bob.mass * 9.81 * L);
  CHECK_THROWS_AS((void)simulator.joint_wrench("nonesuch"), InputError);
}

TEST_CASE("bilateral contacts: scene errors name the key and value") {
  auto load = [](const std::string& entry) {
    return load_scene_text(two_spheres("all") + "  - " + entry + "\n", "bad_bilateral.yaml");
  };
  CHECK_THROWS_WITH_AS(load("{name: link, bodies: [a, b]}"),
                       doctest::Contains("duplicate bilateral contact name"), InputError);
  CHECK_THROWS_WITH_AS(load("{name: l2, bodies: [a, c]}"), doctest::Contains("unknown body"),
                       InputError);
  CHECK_THROWS_WITH_AS(load("{name: l2, bodies: [a, a]}"), doctest::Contains("must differ"),
                       InputError);
  CHECK_THROWS_WITH_AS(load("{name: l2, bodies: [a, b], directions: [x, q]}"),
                       doctest::Contains("not a direction"), InputError);
  CHECK_THROWS_WITH_AS(load("{name: l2, bodies: [a, b], on: never}"),
                       doctest::Contains("contact_start, {time: T} or api"), InputError);
  CHECK_THROWS_WITH_AS(load("{name: l2, bodies: [a, b], on: {time: 2}, off: {time: 1}}"),
                       doctest::Contains("must come after the on time"), InputError);
  CHECK_THROWS_WITH_AS(load("{name: l2, bodies: [a, b], on: {time: -1}}"),
                       doctest::Contains("bilateral_contacts[1].on.time"), InputError);
  std::string prescribed = two_spheres("all") + "  - {name: l2, bodies: [a, pusher]}\n";
  prescribed.insert(prescribed.find("bilateral_contacts:"), R"(  - name: pusher
    position: [3, 0, 0]
    prescribed: {linear_velocity: {signal: {constant: [1, 0, 0]}}}
    shapes: [{type: sphere, radius: 0.1, material: Steel}]
)");
  CHECK_THROWS_WITH_AS(load_scene_text(prescribed, "prescribed.yaml"),
                       doctest::Contains("a prescribed body cannot take a bilateral contact"),
                       InputError);
}

}  // namespace
}  // namespace hybridsim
