// MultibodySystem as a HybridSystem: contacts present at the start, the right-hand side and the
// crossing functions allocate nothing, and runs are bit-for-bit repeatable.
#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <numbers>

#include "counting_allocator.hpp"
#include "test_support.hpp"

namespace hybridsim {
namespace {

TEST_CASE("multibody system: a sphere resting at its static penetration at t = 0 stays there") {
  // delta_s = (m g / K)^(2/3): placed there with zero velocity, the initial contact is found at
  // initialisation (v- = 0, so d = d_max), no event follows and the sphere does not move.
  const double radius = 0.1, mass = 8000.0 * 4.0 / 3.0 * std::numbers::pi * 1e-3;
  const double stiffness = 0.5 * 2.0e11 / 0.91 * 4.0 / 3.0 * std::sqrt(radius);
  const double penetration = std::pow(mass * 9.81 / stiffness, 2.0 / 3.0);
  const Model model = load_scene_file(
      "bouncing_sphere",
      {fmt::format("bodies.ball.position=[0, 0, {}]", radius - penetration - 1e-13)});
  const auto run = testing::run_scene(model);
  REQUIRE(run->result.status == SimulationStatus::ok);
  REQUIRE(run->recorder.events.size() == 1);
  CHECK(run->recorder.events[0].kind == EventInstantKind::initialization);
  CHECK(run->recorder.events[0].outcome.records[0].d_res == 2000.0);
  CHECK(run->result.state_events == 0);
  const double z = run->final_state[run->model.bodies[1].state_offset + 2];
  // Equilibrium to the rounding of the static penetration (3.7e-6 m): nothing moves.
  CHECK(std::abs(z - (radius - penetration - 1e-13)) < 1e-12);
}

// Allocations in 100 right-hand sides and crossing evaluations of `model`, started in contact at
// the state its initial state becomes after `place` (one pair in contactDict, with one point or
// a manifold's).
long count_evaluation_allocations(const Model& model, const std::function<void(VectorX&)>& place) {
  MultibodySystem system(model);
  VectorX x(system.state_size()), xdot(system.state_size()), z(2);
  system.initial_state(x);
  place(x);
  system.initialize(0.0, x);
  REQUIRE(!system.contact_handler().contacts().empty());
  testing::start_counting_allocations();
  for (int i = 0; i < 100; ++i) {
    system.compute_derivatives(0.0, x, xdot);
    system.compute_crossings(0.0, x, z);
  }
  return testing::stop_counting_allocations();
}

TEST_CASE("multibody system: the right-hand side and crossing functions allocate nothing") {
  const Model model = load_scene_file("bouncing_sphere");
  // The ball 1e-6 m into the floor: in contact after the rebuild.
  CHECK(count_evaluation_allocations(model, [](VectorX& x) { x[2] = 0.1 - 1e-6; }) == 0);
}

TEST_CASE("multibody system: the general convex narrowphase (GJK, MPR) allocates nothing") {
  // box_on_box: the tilted cube's lowest corner 1e-6 m into the slab, so that the pair is in
  // contact and every evaluation runs GJK, MPR and the refinement.
  const Model model = load_scene_file("box_on_box");
  const Body& cube = model.bodies[model.find_body("cube")];
  const double reach = 0.05 * cube.q_WB.toRotationMatrix().row(2).cwiseAbs().sum();
  CHECK(count_evaluation_allocations(
            model, [&](VectorX& x) { x[cube.state_offset + 2] = 0.1 + reach - 1e-6; }) == 0);
}

TEST_CASE("multibody system: a convex hull on a box (hull support, restarts) allocates nothing") {
  // convex_mesh_on_box: the gem's lowest corner 1e-6 m into the slab (the hull's frame is the
  // body's, up to the centroid's rounding).
  const Model model = load_scene_file("convex_mesh_on_box");
  const Body& gem = model.bodies[model.find_body("gem")];
  const Shape& hull = model.shapes[gem.shapes[0]];
  const Mat3 R = gem.q_WB.toRotationMatrix();
  double reach = 0.0;
  for (const Vec3& v : hull.hull->vertices_S) {
    reach = std::max(reach, -(R * hull.X_BS.transform_point(v)).z());
  }
  CHECK(count_evaluation_allocations(
            model, [&](VectorX& x) { x[gem.state_offset + 2] = 0.1 + reach - 1e-6; }) == 0);
}

TEST_CASE(
    "multibody system: rounded boxes face on face (manifold, or cores and overlap centroid) "
    "allocate nothing") {
  // box_resting_flat: the rounded cube's face 1e-6 m into the rounded slab, so that every
  // evaluation runs the cores' manifold (four corners, clipping in the crossing functions) or,
  // with one point per pair, the cores' narrowphase and the sharp boxes' overlap centroid.
  for (const char* points : {"manifold", "single"}) {
    CAPTURE(points);
    const Model model =
        load_scene_file("box_resting_flat", {fmt::format("contact.points={}", points)});
    const Body& cube = model.bodies[model.find_body("cube")];
    CHECK(count_evaluation_allocations(
              model, [&](VectorX& x) { x[cube.state_offset + 2] = 0.15 - 1e-6; }) == 0);
  }
}

TEST_CASE("the allocation counter counts operator new, malloc and Eigen's allocations") {
  if (!testing::kCountingAllocations) {
    MESSAGE("a sanitizer build: allocations are not counted (the Release suite checks them)");
    return;
  }
  testing::start_counting_allocations();
  auto* number = new int(3);
  VectorX vector = VectorX::Zero(100);
  vector.conservativeResize(200);
  const long counted = testing::stop_counting_allocations();
  delete number;
  CHECK(counted >= 3);
}

// Allocations in 100 rounds of the ODE right-hand side, the DAE residual (at zero multipliers and
// rates) and the crossing functions at x.
long count_constrained_allocations(MultibodySystem& system, const VectorX& x) {
  const int n = system.state_size(), m = system.algebraic_size();
  VectorX xdot(n), z(2), y(n + m), yp(n + m), residual(n + m);
  y << x, VectorX::Zero(m);
  yp.setZero();
  testing::start_counting_allocations();
  for (int i = 0; i < 100; ++i) {
    system.compute_derivatives(0.0, x, xdot);
    system.compute_residual(0.0, y, yp, residual);
    system.compute_crossings(0.0, x, z);
  }
  return testing::stop_counting_allocations();
}

TEST_CASE("multibody system: with joints, the ODE and DAE forms allocate nothing") {
  // A loop: redundant rows, refinement; with the dense and the sparse factorisation.
  for (const char* factorization : {"dense", "sparse"}) {
    CAPTURE(std::string(factorization));
    const Model model = load_scene_file(
        "slider_crank", {fmt::format("simulation.constraint_factorization={}", factorization)});
    MultibodySystem system(model);
    REQUIRE(system.algebraic_size() == 20);
    VectorX x(system.state_size());
    system.initial_state(x);
    system.initialize(0.0, x);
    CHECK(count_constrained_allocations(system, x) == 0);
  }
}

TEST_CASE("multibody system: bilateral contacts, on and off, allocate nothing") {
  // ladder_grasp: the pivot's three rows on at the start, the grasp's six off (inert rows); then
  // both on (a redundant set); with the dense and the sparse factorisation.
  for (const char* factorization : {"dense", "sparse"}) {
    CAPTURE(std::string(factorization));
    const Model model = load_scene_file(
        "ladder_grasp", {fmt::format("simulation.constraint_factorization={}", factorization)});
    MultibodySystem system(model);
    REQUIRE(system.algebraic_size() == 9);
    VectorX x(system.state_size());
    system.initial_state(x);
    system.initialize(0.0, x);
    CHECK(count_constrained_allocations(system, x) == 0);
    REQUIRE(system.request_bilateral(model.find_bilateral_contact("grasp"), true));
    system.handle_time_event(0.0, x);
    REQUIRE(system.bilateral_on(1));
    CHECK(count_constrained_allocations(system, x) == 0);
  }
}

TEST_CASE("multibody system: wheels, servos and prescribed bodies allocate nothing") {
  // The tricycle (wheel-slip compliance, ideal velocity and position servos), the plowing
  // spheres (tilted normals) and the drum (a prescribed body, a wheel with a joint input).
  for (const char* scene : {"tricycles_uphill", "plowing_spheres", "tire_drum"}) {
    CAPTURE(std::string(scene));
    const Model model = load_scene_file(scene);
    MultibodySystem system(model);
    const int n = system.state_size(), m = system.algebraic_size();
    VectorX x(n), xdot(n), z(2), y(n + m), yp(n + m), residual(n + m);
    system.initial_state(x);
    // 1 um down: the wheels that start touching (distance 0) are in contact.
    for (const Body& body : model.bodies) {
      if (body.state_offset >= 0 && !body.prescribed) x[body.state_offset + 2] -= 1e-6;
    }
    system.initialize(0.0, x);
    REQUIRE(!system.contact_handler().contacts().empty());
    y << x, VectorX::Zero(m);
    yp.setZero();
    testing::start_counting_allocations();
    for (int i = 0; i < 100; ++i) {
      system.compute_derivatives(0.5, x, xdot);
      system.compute_residual(0.5, y, yp, residual);
      system.compute_crossings(0.5, x, z);
    }
    CHECK(testing::stop_counting_allocations() == 0);
  }
}

TEST_CASE("multibody system: the same inputs give bit-identical results") {
  const Model model = load_scene_file("bouncing_sphere");
  const auto first = testing::run_scene(model);
  const auto second = testing::run_scene(model);
  REQUIRE(first->recorder.output_states.size() == second->recorder.output_states.size());
  for (std::size_t i = 0; i < first->recorder.output_states.size(); ++i) {
    CHECK(first->recorder.output_states[i] == second->recorder.output_states[i]);
  }
}

// A user-defined hybrid ODE: x' = 1 until t = 0.5, then a non-finite derivative.
class FailingSystem final : public HybridSystem {
 public:
  int state_size() const override { return 1; }
  void initial_state(VectorRef x0) const override { x0[0] = 0.0; }
  EventOutcome initialize(double, VectorRef) override { return {}; }
  void compute_derivatives(double t, ConstVectorRef, VectorRef xdot) override {
    ++calls_;
    xdot[0] = t < 0.5 ? 1.0 : std::nan("");
  }
  int crossing_count() const override { return 0; }
  std::vector<int> crossing_directions() const override { return {}; }
  void compute_crossings(double, ConstVectorRef, VectorRef) override {}
  EventOutcome handle_state_event(double, VectorRef, std::span<const int>) override { return {}; }
  long rhs_evaluation_count() const override { return calls_; }

 private:
  long calls_ = 0;
};

TEST_CASE("simulator: a non-finite derivative stops with a status, keeping the outputs") {
  FailingSystem system;
  auto integrator = make_integrator("cvode-bdf");
  SimulationOptions options;
  options.stop_time = 2.0;
  options.output_interval = 0.1;
  testing::Recorder recorder;
  HybridLoop simulator(system, *integrator, options);
  const SimulationResult result = simulator.run(&recorder);
  CHECK(result.status == SimulationStatus::step_failure);
  CAPTURE(result.message);
  CHECK(result.message.find("CVode") != std::string::npos);
  CHECK(result.t_end < 0.6);
  // Outputs up to the failure, x = t exactly.
  REQUIRE(recorder.output_times.size() >= 5);
  for (std::size_t i = 0; i + 1 < recorder.output_times.size(); ++i) {
    CHECK(recorder.output_states[i][0] == testing::relative(recorder.output_times[i], 1e-12));
  }
}

}  // namespace
}  // namespace hybridsim
