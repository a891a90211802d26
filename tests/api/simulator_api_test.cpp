// The C++ embedding API: a scene built in code equals the file, piecewise advancing equals one
// call and the CLI, host-set inputs are time events with the closed-form motion, threads give
// bit-identical runs, events and steps can be stepped through, and misuse is an InputError.
#include <doctest/doctest.h>

#include <cmath>
#include <sstream>
#include <thread>

#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "approx.hpp"
#include "cli_support.hpp"
#include "hybridsim/hybridsim.hpp"
#include "models/scene_loader.hpp"

namespace hybridsim {
namespace {

using testing::relative;

// The demo scene (models/scenes/bouncing_sphere.yaml), written out in code.
Model build_bouncing_sphere() {
  ContactMaterial steel;
  steel.material_a = "Steel";
  steel.material_b = "Steel";
  steel.restitution = 0.7;
  steel.damping_model = DampingModel::exact;
  steel.v_small = 0.01;
  steel.friction.model = FrictionModel::regularized_coulomb;
  steel.friction.mu_kinetic = 0.5;
  steel.friction.mu_static = 0.5;  // the loader's default: mu_static = mu_kinetic
  steel.friction.v_small = 0.01;
  steel.rolling_resistance = 0.001;
  return ModelBuilder("bouncing_sphere", "steel sphere dropped on a steel plate")
      .simulation({.stop_time = 3.0, .integrator = "cvode-bdf", .rtol = 1e-8})
      .set("contact", "{contact_eps: 1.0e-13, max_damping: 2000}")
      .material({.name = "Steel", .density = 8000, .youngs_modulus = 2e11, .poisson_ratio = 0.3})
      .contact_material(steel)
      .body({.name = "ground", .fixed = true})
      .box("ground", "plate", Vec3(4, 4, 0.1), "Steel", {.position_B = Vec3(0, 0, -0.05)})
      .body({.name = "ball", .position_W = Vec3(0, 0, 1.1)})
      .sphere("ball", "sphere", 0.1, "Steel")
      .build();
}

struct Snapshot {
  VectorX state;
  std::vector<EventRecord> events;
};

bool same_events(const std::vector<EventRecord>& a, const std::vector<EventRecord>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i].t != b[i].t || a[i].kind != b[i].kind || a[i].pair_a != b[i].pair_a ||
        a[i].pair_b != b[i].pair_b || a[i].description != b[i].description) {
      return false;
    }
  }
  return true;
}

Snapshot run_in_steps(Model model, int pieces) {
  Simulator simulator(std::move(model));
  const double stop = simulator.options().stop_time;
  for (int k = 1; k <= pieces; ++k) {
    const AdvanceResult r = simulator.advance_to(k == pieces ? stop : stop * k / pieces);
    REQUIRE(r.status == SimulationStatus::ok);
  }
  CHECK(simulator.time() == stop);
  return {simulator.state(), simulator.events()};
}

TEST_CASE("api: a scene built in code is the same Model as the scene file") {
  const Model built = build_bouncing_sphere();
  const Model loaded = load_scene_file("bouncing_sphere");
  REQUIRE(built.bodies.size() == loaded.bodies.size());
  for (std::size_t i = 0; i < built.bodies.size(); ++i) {
    CHECK(built.bodies[i].name == loaded.bodies[i].name);
    CHECK(built.bodies[i].mass == loaded.bodies[i].mass);
    CHECK(built.bodies[i].inertia_com_B == loaded.bodies[i].inertia_com_B);
    CHECK(built.bodies[i].p_WB == loaded.bodies[i].p_WB);
  }
  REQUIRE(built.shapes.size() == loaded.shapes.size());
  for (std::size_t i = 0; i < built.shapes.size(); ++i) {
    CHECK(built.shape_label(static_cast<int>(i)) == loaded.shape_label(static_cast<int>(i)));
    CHECK(built.shapes[i].X_BS.translation == loaded.shapes[i].X_BS.translation);
    CHECK(built.shapes[i].half_extents == loaded.shapes[i].half_extents);
    CHECK(built.shapes[i].radius == loaded.shapes[i].radius);
  }
  const int steel = loaded.find_material("Steel");
  const ContactMaterial& a = built.contact_materials[built.find_contact_material(steel, steel)];
  const ContactMaterial& b = loaded.contact_materials[loaded.find_contact_material(steel, steel)];
  CHECK(a.restitution == b.restitution);
  CHECK(a.exact_alpha == b.exact_alpha);
  CHECK(a.friction.mu_kinetic == b.friction.mu_kinetic);
  CHECK(a.rolling_resistance == b.rolling_resistance);
  CHECK(built.contact.contact_eps == loaded.contact.contact_eps);
  CHECK(built.simulation.rtol == loaded.simulation.rtol);
  // The same Model simulates the same: bit-identical states and events.
  const Snapshot x = run_in_steps(built, 1), y = run_in_steps(loaded, 1);
  CHECK(x.state == y.state);
  CHECK(same_events(x.events, y.events));
  CHECK(x.events.size() >= 8);
}

TEST_CASE("api: the builder carries Gazebo's torsional patch and surface radii") {
  for (const bool patch : {true, false}) {
    CAPTURE(patch);
    ContactMaterial pair;
    pair.material_a = "Steel";
    pair.material_b = "Steel";
    pair.torsional_friction = 0.5;
    (patch ? pair.torsional_patch_radius : pair.torsional_surface_radius) = 0.02;
    const Model built = ModelBuilder("spin", "a torsional patch")
                            .contact_material(pair)
                            .body({.name = "ground", .fixed = true})
                            .box("ground", "plate", Vec3(1, 1, 0.1), "Steel", {})
                            .body({.name = "ball", .position_W = Vec3(0, 0, 1)})
                            .sphere("ball", "sphere", 0.1, "Steel")
                            .build();
    const int steel = built.find_material("Steel");
    const ContactMaterial& made =
        built.contact_materials[built.find_contact_material(steel, steel)];
    CHECK(made.torsional_friction == 0.5);
    CHECK(made.torsional_patch_radius == (patch ? 0.02 : 0.0));
    CHECK(made.torsional_surface_radius == (patch ? 0.0 : 0.02));
  }
}

TEST_CASE("api: the CLI, one advance_to and 1000 advance_to calls give the same final state") {
  const Model model = load_scene_file("bouncing_sphere");
  const Snapshot one = run_in_steps(model, 1);
  const Snapshot many = run_in_steps(model, 1000);
  // Steps are never cut at advance targets (they come from dense output), so the pieces take the
  // very same steps as one call: the design promises bit-identical results, not just agreement
  // to the tolerance.
  CHECK(one.state == many.state);
  CHECK(same_events(one.events, many.events));

  const auto dir = testing::temporary_directory();
  const auto cli = testing::run_cli(
      fmt::format("run bouncing_sphere --quiet --summary {}/s.json", dir.string()), dir);
  REQUIRE(cli.status == 0);
  const auto summary = nlohmann::json::parse(testing::read_file(dir / "s.json"));
  const auto& ball = summary["final_state"]["bodies"]["ball"];
  // The CLI runs the same loop; its JSON numbers round-trip doubles exactly. The tolerance
  // allows only the rounding of the body-origin velocity that the summary recomputes.
  const int offset = model.bodies[model.find_body("ball")].state_offset;
  for (int i = 0; i < 3; ++i) {
    CHECK(ball["position"][i].get<double>() ==
          doctest::Approx(one.state[offset + i]).epsilon(1e-14));
    CHECK(ball["linear_velocity"][i].get<double>() ==
          doctest::Approx(one.state[offset + 7 + i]).epsilon(1e-12).scale(1e-12));
  }
  CHECK(summary["stats"]["contact_starts"].get<long>() ==
        std::count_if(one.events.begin(), one.events.end(), [](const EventRecord& r) {
          return r.kind == EventRecord::Kind::contact_start;
        }));
}

TEST_CASE("api: trajectory rows from a C++ host are the CLI's trajectory, number for number") {
  // bouncing_sphere over 1 s: outputs and impacts. A host records Simulator::trajectory_row at
  // every output and event (as the CLI's writer does); the CLI's CSV prints 17 digits, which
  // read back to the same doubles.
  struct Rows final : SimulationObserver {
    explicit Rows(const Simulator& s) : simulator(s) {}
    void on_output(double t, const VectorX& x) override { add(t, x); }
    void on_event(const EventInstant& instant, const VectorX& x) override {
      if (instant.kind != EventInstantKind::initialization) add(instant.t, x);
    }
    void add(double t, const VectorX& x) {
      std::vector<double> row;
      simulator.trajectory_row(x, row);
      row.insert(row.begin(), t);
      rows.push_back(row);
    }
    const Simulator& simulator;
    std::vector<std::vector<double>> rows;
  };
  SimulatorConfig config;
  config.stop_time = 1.0;
  Simulator simulator(load_scene_file("bouncing_sphere"), config);
  Rows host(simulator);
  simulator.add_observer(host);
  simulator.advance_to(1.0);

  const auto dir = testing::temporary_directory();
  REQUIRE(testing::run_cli(fmt::format("run bouncing_sphere --stop-time 1 --quiet --trajectory "
                                       "{}/t.csv",
                                       dir.string()),
                           dir)
              .status == 0);
  std::istringstream csv(testing::read_file(dir / "t.csv"));
  std::string line;
  std::getline(csv, line);
  std::vector<std::string> header = {"t"};
  for (const std::string& name : simulator.trajectory_columns()) header.push_back(name);
  CHECK(line == fmt::format("{}", fmt::join(header, ",")));
  std::size_t row = 0;
  for (; std::getline(csv, line); ++row) {
    REQUIRE(row < host.rows.size());
    std::istringstream fields(line);
    std::string field;
    for (std::size_t column = 0; std::getline(fields, field, ','); ++column) {
      CHECK(std::stod(field) == host.rows[row][column]);
    }
  }
  CHECK(row == host.rows.size());
}

TEST_CASE("api: a host-set input is a time event, and the motion follows the closed form") {
  // A 1 kg ball in free fall; the host sets a horizontal force F at t0 = 0.5 s. Closed form:
  // x = F/(2m) (t - t0)^2, z = z0 - g t^2 / 2. x starts at the restart, where BDF's low-order
  // start integrates a quadratic exactly: 1e-9 relative. z carries the global error of ~120
  // steps at rtol 1e-10 (measured 1e-9 relative): 1e-8.
  const Model model =
      ModelBuilder("push")
          .simulation({.stop_time = 1.0, .integrator = "cvode-bdf", .rtol = 1e-10})
          .material(
              {.name = "Lead", .density = 11000, .youngs_modulus = 1.6e10, .poisson_ratio = 0.44})
          .body({.name = "ball", .position_W = Vec3(0, 0, 10), .mass = 1.0})
          .sphere("ball", "sphere", 0.05, "Lead")
          .input("push", "ball", Input::Kind::force, Signal{})
          .build();
  Simulator simulator(model);
  const double force = 3.0, t0 = 0.5, g = 9.81;
  REQUIRE(simulator.advance_to(t0).status == SimulationStatus::ok);
  CHECK(simulator.input_value("push") == Vec3::Zero());
  simulator.set_input("push", Vec3(force, 0, 0));
  CHECK(simulator.input_value("push") == Vec3(force, 0, 0));
  REQUIRE(simulator.advance_to(1.0).status == SimulationStatus::ok);
  const BodyState s = simulator.body_state("ball");
  CHECK(s.position_W.x() == relative(force / 2.0 * (1.0 - t0) * (1.0 - t0), 1e-9));
  CHECK(s.linear_velocity_W.x() == relative(force * (1.0 - t0), 1e-9));
  CHECK(s.position_W.z() == relative(10.0 - g / 2.0, 1e-8));
  CHECK(simulator.statistics().time_events == 1);
  const auto& events = simulator.events();
  REQUIRE(events.size() == 1);
  CHECK(events[0].kind == EventRecord::Kind::time_event);
  CHECK(events[0].t == t0);
  CHECK(events[0].description.find("push") != std::string::npos);
  // Released, the input returns to its signal (zero): the velocity stays.
  simulator.release_input("push");
  CHECK(simulator.input_value("push") == Vec3::Zero());
  REQUIRE(simulator.advance_to(1.5).status == SimulationStatus::ok);
  CHECK(simulator.body_state("ball").linear_velocity_W.x() == relative(force * (1.0 - t0), 1e-9));
}

TEST_CASE("api: a signal breakpoint is a time event whether or not an advance ends on it") {
  // A step force at t = 0.5 s on a ball in free fall: an advance that asks to stop at events
  // stops there; pieces that end exactly on the breakpoint give the same steps and events as one
  // call (bit-identical), and the step's effect follows the closed form v_x = F (t - t0) / m.
  Signal step;
  step.kind = Signal::Kind::step;
  step.time = 0.5;
  step.after = Vec3(2.0, 0.0, 0.0);
  const Model model =
      ModelBuilder("step_push")
          .simulation({.stop_time = 1.0, .integrator = "cvode-bdf", .rtol = 1e-10})
          .material(
              {.name = "Lead", .density = 11000, .youngs_modulus = 1.6e10, .poisson_ratio = 0.44})
          .body({.name = "ball", .position_W = Vec3(0, 0, 10), .mass = 1.0})
          .sphere("ball", "sphere", 0.05, "Lead")
          .input("push", "ball", Input::Kind::force, step)
          .build();
  Simulator stopping(model);
  const AdvanceResult at_event = stopping.advance_to(1.0, true);
  CHECK(at_event.stop == AdvanceStop::event);
  CHECK(at_event.t == 0.5);
  Simulator one(model), pieces(model);
  one.advance_to(1.0);
  pieces.advance_to(0.5);
  pieces.advance_to(1.0);
  CHECK(one.state() == pieces.state());
  CHECK(one.statistics().time_events == 1);
  CHECK(pieces.statistics().time_events == 1);
  CHECK(same_events(one.events(), pieces.events()));
  // x-motion starts at the restart: exact up to rounding (1e-9 relative).
  CHECK(one.body_state("ball").linear_velocity_W.x() == relative(2.0 * 0.5, 1e-9));
}

TEST_CASE("api: two simulators in two threads are bit-identical to the same runs in sequence") {
  const Model bouncing = load_scene_file("bouncing_sphere");
  Model tumbling = load_scene_file("bouncing_sphere", {"bodies.ball.angular_velocity=[3, 1, 2]",
                                                       "bodies.ball.linear_velocity=[1, 0, 0]"});
  const Snapshot first = run_in_steps(bouncing, 7);
  const Snapshot second = run_in_steps(tumbling, 13);
  Snapshot first_threaded, second_threaded;
  std::thread a([&] { first_threaded = run_in_steps(bouncing, 7); });
  std::thread b([&] { second_threaded = run_in_steps(tumbling, 13); });
  a.join();
  b.join();
  CHECK(first.state == first_threaded.state);
  CHECK(second.state == second_threaded.state);
  CHECK(same_events(first.events, first_threaded.events));
  CHECK(same_events(second.events, second_threaded.events));
  CHECK(first.state != second.state);
}

TEST_CASE("api: advance_to stops at events when asked, and step() takes one integrator step") {
  Simulator simulator(load_scene_file("bouncing_sphere"));
  // The first stop is the first contact, at the free-fall time sqrt(2h/g) (h = 1 m). The scene
  // runs at rtol 1e-8, and the global error of the fall is ~10 rtol: 1e-7 relative.
  const AdvanceResult first = simulator.advance_to(3.0, true);
  CHECK(first.stop == AdvanceStop::event);
  CHECK(first.t == relative(std::sqrt(2.0 / 9.81), 1e-7));
  CHECK(simulator.events().back().kind == EventRecord::Kind::contact_start);
  int stops = 1;
  while (simulator.advance_to(3.0, true).stop == AdvanceStop::event) ++stops;
  CHECK(simulator.time() == 3.0);
  CHECK(stops == simulator.statistics().state_events);

  Simulator stepper(load_scene_file("bouncing_sphere"));
  double t = 0.0;
  for (int k = 1; k <= 20; ++k) {
    const AdvanceResult r = stepper.step();
    CHECK(r.stop == AdvanceStop::step_taken);
    CHECK(r.t > t);
    t = r.t;
    CHECK(stepper.statistics().stats.steps == k);
  }
  // An advance just past the last step's end takes one new step and stops inside it (dense
  // output); step() then ends where that step ends, without taking another.
  stepper.advance_to(t + 1e-9);
  const long steps = stepper.statistics().stats.steps;
  CHECK(steps == 21);
  CHECK(stepper.time() == t + 1e-9);
  const AdvanceResult end_of_step = stepper.step();
  CHECK(end_of_step.stop == AdvanceStop::step_taken);
  CHECK(stepper.statistics().stats.steps == steps);
  CHECK(end_of_step.t > t + 1e-9);
}

TEST_CASE("api: observers see every output and event, contact results at rest give m g") {
  struct Counter : SimulationObserver {
    int outputs = 0, events = 0;
    void on_output(double, const VectorX&) override { ++outputs; }
    void on_event(const EventInstant&, const VectorX&) override { ++events; }
  } counter;
  Model model = load_scene_file("bouncing_sphere", {"simulation.stop_time=6"});
  Simulator simulator(model);
  simulator.add_observer(counter);
  simulator.advance_to(6.0);
  CHECK(counter.outputs == 601);  // t = 0, 0.01, ..., 6
  const SimulationResult stats = simulator.statistics();
  CHECK(counter.events == stats.state_events + stats.time_events);
  // At rest the one contact carries the weight: f_n = m g to the damping of the residual motion.
  const std::vector<ContactResult> contacts = simulator.contact_results();
  REQUIRE(contacts.size() == 1);
  const double weight = model.bodies[model.find_body("ball")].mass * 9.81;
  CHECK(contacts[0].normal_force == relative(weight, 1e-6));
  CHECK(simulator.model().shape_label(contacts[0].shape_b) == "ball/sphere");
  CHECK(contacts[0].normal_W.z() == relative(1.0, 1e-12));
  // Energy was lost in the impacts only: below m g h of the drop.
  CHECK(simulator.energy() < weight * 1.1);
}

class Decay final : public HybridSystem {
 public:
  int state_size() const override { return 1; }
  void initial_state(VectorRef x0) const override { x0[0] = 1.0; }
  EventOutcome initialize(double, VectorRef) override { return {}; }
  void compute_derivatives(double, ConstVectorRef x, VectorRef xdot) override {
    ++rhs_;
    xdot[0] = -x[0];
  }
  int crossing_count() const override { return 0; }
  std::vector<int> crossing_directions() const override { return {}; }
  void compute_crossings(double, ConstVectorRef, VectorRef) override {}
  EventOutcome handle_state_event(double, VectorRef, std::span<const int>) override { return {}; }
  long rhs_evaluation_count() const override { return rhs_; }

 private:
  long rhs_ = 0;
};

TEST_CASE("api: misuse is an InputError, a user system has no scene") {
  CHECK_THROWS_AS(Simulator(load_scene_file("bouncing_sphere"), {.integrator = "no-such"}),
                  InputError);
  CHECK_THROWS_AS(Simulator(load_scene_file("bouncing_sphere"), {.rtol = -1.0}), InputError);
  Simulator simulator(load_scene_file("bouncing_sphere"));
  CHECK_THROWS_WITH_AS(simulator.body_state("nobody"), doctest::Contains("nobody"), InputError);
  CHECK_THROWS_AS(simulator.set_input("nothing", Vec3::Zero()), InputError);
  simulator.advance_to(0.2);
  CHECK_THROWS_AS(simulator.advance_to(0.1), InputError);
  CHECK_THROWS_AS(simulator.advance_to(std::nan("")), InputError);
  CHECK(simulator.time() == 0.2);

  CHECK_THROWS_WITH_AS(ModelBuilder("bad").sphere("ghost", "s", 0.1, "Steel"),
                       doctest::Contains("ghost"), InputError);
  ModelBuilder negative("negative");
  negative.body({.name = "ball"}).sphere("ball", "s", -0.1, "Steel");
  CHECK_THROWS_WITH_AS(negative.build(), doctest::Contains("radius"), InputError);

  // A user system: exp(-t) to the tolerance; scene queries refuse.
  Decay decay;
  SimulationOptions options;
  options.stop_time = 2.0;
  options.integrator.rtol = 1e-10;
  options.integrator.atol = 1e-12;
  Simulator own(decay, options, "cvode-adams");
  own.advance_to(2.0);
  CHECK(own.state()[0] == relative(std::exp(-2.0), 1e-8));
  CHECK_THROWS_AS(own.model(), InputError);
  CHECK_THROWS_AS(own.body_state("ball"), InputError);
  CHECK(std::string(version()) == HYBRIDSIM_VERSION_STRING);
}

}  // namespace
}  // namespace hybridsim

namespace hybridsim {
namespace {

// The motor scene of the next test, built in code.
Model build_motor() {
  return ModelBuilder("motor")
      .gravity(Vec3::Zero())
      .simulation({.stop_time = 2.0, .rtol = 1e-10, .atol = 1e-12})
      .body({.name = "base", .fixed = true})
      .body({.name = "ball",
             .position_W = Vec3(0.5, 0, 0),
             .mass = 1.0,
             .inertia_com_B = Mat3::Identity() * 1e-3})
      .joint_input("motor", Signal{})
      .joint({.name = "hinge",
              .parent = "base",
              .child = "ball",
              .anchor_W = Vec3::Zero(),
              .axis_W = Vec3::UnitZ(),
              .input = "motor"})
      .build();
}

TEST_CASE("api: a host-driven joint motor and joint_state follow the closed form") {
  // A 1 kg ball 0.5 m from a vertical hinge, no gravity. The host sets the hinge torque tau at
  // t0 = 0.5 s: q = tau (t - t0)^2 / (2 I), I = I_zz + m L^2 about the hinge. The ODE is a
  // quadratic in t, which BDF integrates to round-off; the projection at the restart and the
  // Baumgarte terms act on errors of ~1e-12: 1e-8 relative.
  const Model from_file = load_scene_text(R"(
gravity: [0, 0, 0]
simulation: {stop_time: 2, rtol: 1.0e-10, atol: 1.0e-12}
bodies:
  - {name: base, fixed: true}
  - name: ball
    mass: 1.0
    inertia: [1.0e-3, 1.0e-3, 1.0e-3, 0, 0, 0]
    position: [0.5, 0, 0]
joints:
  - {name: hinge, type: revolute, parent: base, child: ball, anchor: [0, 0, 0], axis: [0, 0, 1],
     input: motor}
inputs:
  - {name: motor, signal: {constant: [0, 0, 0]}}
)",
                                          "motor.yaml");
  VectorX final_state[2];
  int run = 0;
  for (const Model& model : {from_file, build_motor()}) {
    CAPTURE(run);
    Simulator simulator(model);
    const double tau = 0.2, t0 = 0.5, inertia = 1e-3 + 0.25;
    REQUIRE(simulator.advance_to(t0).status == SimulationStatus::ok);
    CHECK(simulator.joint_state("hinge").position == 0.0);
    simulator.set_input("motor", Vec3(tau, 0, 0));
    REQUIRE(simulator.advance_to(1.5).status == SimulationStatus::ok);
    const JointCoordinate q = simulator.joint_state("hinge");
    CHECK(q.position == testing::relative(tau / (2.0 * inertia), 1e-8));
    CHECK(q.velocity == testing::relative(tau / inertia, 1e-8));
    // The ball stays on its circle.
    CHECK(std::abs(simulator.body_state("ball").position_W.norm() - 0.5) < 1e-10);
    CHECK_THROWS_AS(simulator.joint_state("elbow"), InputError);
    final_state[run++] = simulator.state();
  }
  // The scene built in code is the same Model as the file: the same run, bit for bit.
  CHECK(final_state[0] == final_state[1]);
}

TEST_CASE("api: a jointed mechanism built in code equals its scene file") {
  // models/scenes/double_pendulum.yaml written out with the builder (capsule shapes, revolute
  // joints with initial angles). Equal Models give bit-identical runs; 0.5 s of the chaotic
  // motion amplifies any difference in the loaded numbers.
  SimulationSettings settings;
  settings.stop_time = 0.5;
  settings.rtol = 1e-11;
  settings.atol = 1e-13;
  const Model built =
      ModelBuilder("double_pendulum", "chaotic double pendulum of two aluminium rods")
          .simulation(settings)
          .body({.name = "ground", .fixed = true})
          .body({.name = "upper", .position_W = Vec3(0, 0, -0.5)})
          .capsule("upper", "rod", 0.02, 0.96, "Aluminium")
          .body({.name = "lower", .position_W = Vec3(0, 0, -1.5)})
          .capsule("lower", "rod", 0.02, 0.96, "Aluminium")
          .joint({.name = "shoulder",
                  .parent = "ground",
                  .child = "upper",
                  .anchor_W = Vec3::Zero(),
                  .axis_W = Vec3::UnitX(),
                  .initial_position = 2.0943951023931953})
          .joint({.name = "elbow",
                  .parent = "upper",
                  .child = "lower",
                  .anchor_W = Vec3(0, 0, -1),
                  .axis_W = Vec3::UnitX(),
                  .initial_position = -1.0471975511965976})
          .build();
  Model from_file = load_scene_file("double_pendulum");
  from_file.simulation.stop_time = settings.stop_time;
  REQUIRE(built.joints.size() == 2);
  Simulator a(built), b(from_file);
  REQUIRE(a.advance_to(0.5).status == SimulationStatus::ok);
  REQUIRE(b.advance_to(0.5).status == SimulationStatus::ok);
  CHECK(a.state() == b.state());
  CHECK(a.joint_state("elbow").position == b.joint_state("elbow").position);

  // Joint errors name the joint's key, as in a scene file.
  ModelBuilder unknown = ModelBuilder("bad_joint")
                             .body({.name = "ground", .fixed = true})
                             .body({.name = "arm", .mass = 1.0, .inertia_com_B = Mat3::Identity()})
                             .joint({.name = "hinge", .parent = "ground", .child = "hand"});
  CHECK_THROWS_WITH_AS(unknown.build(), doctest::Contains("joints[0].child"), InputError);
  ModelBuilder no_axis = ModelBuilder("no_axis")
                             .body({.name = "ground", .fixed = true})
                             .body({.name = "arm", .mass = 1.0, .inertia_com_B = Mat3::Identity()})
                             .joint({.name = "slide",
                                     .type = JointType::prismatic,
                                     .parent = "ground",
                                     .child = "arm",
                                     .axis_W = Vec3::Zero()});
  CHECK_THROWS_WITH_AS(no_axis.build(), doctest::Contains("must not be zero"), InputError);
}

}  // namespace
}  // namespace hybridsim

namespace hybridsim {
namespace {

TEST_CASE("api: ModelBuilder adds wheels and servos, the wheel state follows through the API") {
  // A sphere wheel on an ideal velocity servo at 10 rad/s, from a chassis sliding on a prismatic
  // rail: the same scene the loader reads, and the wheel spins at the command.
  ModelBuilder builder("built_wheel");
  builder.body({.name = "ground", .fixed = true})
      .halfspace("ground", "surface", Vec3::UnitZ(), 0.0, "Steel")
      .body({.name = "cart",
             .position_W = {0, 0, 0.3},
             .mass = 1.0,
             .inertia_com_B = Mat3::Identity() * 0.01})
      .body({.name = "ball", .position_W = {0, 0, 0.1}})
      .sphere("ball", "tyre", 0.1, "Steel")
      .joint({.name = "rail",
              .type = JointType::prismatic,
              .parent = "ground",
              .child = "cart",
              .axis_W = Vec3::UnitX()})
      .joint({.name = "axle",
              .type = JointType::revolute,
              .parent = "cart",
              .child = "ball",
              .anchor_W = Vec3(0, 0, 0.1),
              .axis_W = Vec3::UnitY(),
              .servo_mode = JointServo::Mode::velocity,
              .servo_command = 10.0,
              .servo_ideal = true})
      .wheel({.name = "w",
              .body = "ball",
              .slip_compliance = Eigen::Vector2d(0.5, 0.5),
              .normal_force = 20.0,
              .rolling_resistance = 0.01});
  const Model model = builder.build();
  REQUIRE(model.wheels.size() == 1);
  CHECK(model.wheels[0].slip_compliance);
  CHECK(model.wheels[0].longitudinal_compliance == 0.5);
  CHECK(model.wheels[0].normal_force_estimate == 20.0);
  CHECK(model.wheels[0].radius == 0.1);  // from the sphere
  CHECK(model.joints[1].servo.ideal);
  Simulator simulator(model);
  simulator.advance_to(0.5);
  CHECK(std::abs(simulator.joint_state("axle").velocity - 10.0) < 1e-9);
  const Simulator::WheelState w = simulator.wheel_state("w");
  CHECK(std::abs(w.omega - 10.0) < 1e-9);
  CHECK(w.R_omega == relative(w.radius * 10.0, 1e-12));
  CHECK_THROWS_AS(simulator.wheel_state("nowhere"), InputError);
}

}  // namespace
}  // namespace hybridsim
