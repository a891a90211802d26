// True stiction (models/multibody_stick_slip.cpp): stick and slip as events, against closed
// forms. The catalog scenes stick_slip_slope, push_ramp_stick_slip, stick_slip_oscillator and
// friction_demo_stick_slip carry their references in their headers.
#include <doctest/doctest.h>

#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "models/scene_loader.hpp"
#include "test_support.hpp"

namespace hybridsim {
namespace {

// A point of a body (body frame) in world, at state x.
Vec3 body_point_W(MultibodySystem& system, const VectorX& x, int body, const Vec3& p_B) {
  const Pose& X_WB = system.compute_kinematics(x)[body].X_WB;
  return X_WB.rotation * p_B + X_WB.translation;
}

// The output index nearest to time t.
std::size_t output_at(const testing::Recorder& recorder, double t) {
  std::size_t best = 0;
  for (std::size_t i = 0; i < recorder.output_times.size(); ++i) {
    if (std::abs(recorder.output_times[i] - t) < std::abs(recorder.output_times[best] - t))
      best = i;
  }
  return best;
}

constexpr double kG = 9.81;

TEST_CASE("stick-slip: a box on a 20 degree slope with mu_s 0.5 does not move in 100 s") {
  const Model model = load_scene_file("stick_slip_slope");
  auto run = testing::run_scene(model);
  REQUIRE(run->result.status == SimulationStatus::ok);
  const int block = model.find_body("block");
  // The material point at the centre of the bottom face: the static tilt of the first instants
  // moves the centre of mass, not this point, so it measures creep alone. After the settling of
  // the first second it must not move at all; 1e-12 m is about 200 roundings of its 0.05 m
  // coordinate, and the Stribeck box of the same slope creeps 5.6e-3 m in the same 99 s.
  const Vec3 bottom_B(0, 0, -0.05);
  const testing::Recorder& recorder = run->recorder;
  const Vec3 p1 =
      body_point_W(*run->system, recorder.output_states[output_at(recorder, 1.0)], block, bottom_B);
  double largest = 0.0;
  for (std::size_t i = output_at(recorder, 1.0); i < recorder.output_states.size(); ++i) {
    const Vec3 p = body_point_W(*run->system, recorder.output_states[i], block, bottom_B);
    largest = std::max(largest, std::abs(p.x() - p1.x()) + std::abs(p.y() - p1.y()));
  }
  CHECK(largest < 1e-12);
  CHECK(recorder.output_times.back() == doctest::Approx(100.0));
  // One stick at the start, never a slip.
  const std::vector<EventRecord> records = recorder.stick_slip_records();
  REQUIRE(records.size() == 1);
  CHECK(records[0].kind == EventRecord::Kind::stick);
  // At rest the holding force is the weight's tangential part, m g sin 20 deg, exactly up to the
  // multipliers' accuracy (1e-9 relative leaves room for the resting box's residual motion).
  const auto forces =
      run->system->compute_patch_forces(model.simulation.stop_time, run->final_state);
  REQUIRE(forces.size() == 1);
  const double theta = 20.0 * std::numbers::pi / 180.0;
  CHECK(forces[0].tangential_W.norm() == testing::relative(kG * std::sin(theta), 1e-9));
  CHECK(forces[0].normal_force == testing::relative(kG * std::cos(theta), 1e-9));
  // The contact results (the contacts CSV) carry that holding force, shared among the four
  // corners by their normal forces: in sum the weight's tangential part up the slope (world -x
  // here, gravity tilted towards +x), each in proportion to its load.
  const auto results =
      run->system->compute_contact_results(model.simulation.stop_time, run->final_state);
  REQUIRE(results.size() == 4);
  Vec3 total_W = Vec3::Zero();
  for (const ContactResult& r : results) {
    const double sign = model.shapes[r.shape_b].body == block ? 1.0 : -1.0;  // force on the block
    total_W += sign * r.friction_force_W;
    CHECK(r.friction_force_W.norm() ==
          testing::relative(forces[0].tangential_W.norm() * r.normal_force / forces[0].normal_force,
                            1e-12));
  }
  CHECK(total_W.x() == testing::relative(-kG * std::sin(theta), 1e-9));
  CHECK(std::abs(total_W.y()) + std::abs(total_W.z()) < 1e-9);
}

TEST_CASE("stick-slip: Drake's push ramp breaks away at mu_s m g and sticks again at v = 0") {
  const Model model = load_scene_file("push_ramp_stick_slip");
  auto run = testing::run_scene(model);
  REQUIRE(run->result.status == SimulationStatus::ok);
  const std::vector<EventRecord> records = run->recorder.stick_slip_records();
  REQUIRE(records.size() == 3);
  CHECK(records[0].kind == EventRecord::Kind::stick);
  CHECK(records[0].t == 0.0);
  // Break-away where the push P = t reaches mu_s m g. The stiff corners (1e8 N/m) keep the total
  // normal force within 1e-10 relative of m g while the push tilts the box, so 1e-9 s holds.
  const double mu_s = 0.5;
  const double mu_k = 0.3;
  const double t_break = mu_s * kG;
  CHECK(records[1].kind == EventRecord::Kind::slip);
  CHECK(std::abs(records[1].t - t_break) < 1e-9);
  CHECK(records[1].tangential_force == testing::relative(t_break, 1e-9));
  // Sliding: v' = P(t) - mu_k g with P = t up to 6 s, 12 - t to 12 s, then 0; it stops at
  // t_s = 12 + v(12) / (mu_k g). The tilt under the changing push shifts the stop by about 1e-9 s.
  const double a_k = mu_k * kG;
  const double v6 = (36.0 - t_break * t_break) / 2.0 - a_k * (6.0 - t_break);
  const double v12 = v6 + (6.0 - a_k) * 6.0 - 36.0 / 2.0;
  const double t_stop = 12.0 + v12 / a_k;
  CHECK(records[2].kind == EventRecord::Kind::stick);
  CHECK(std::abs(records[2].t - t_stop) < 1e-8);
  // The velocity on the slide, at 6 s: the closed form within 1e-7 m/s (the tilt's share).
  const testing::Recorder& recorder = run->recorder;
  const int box = model.find_body("box");
  const std::size_t at6 = output_at(recorder, 6.0);
  const double vx6 = run->system->compute_kinematics(recorder.output_states[at6])[box].v_WCom_W.x();
  CHECK(std::abs(vx6 - v6) < 1e-6);
  // At rest before the break-away and after the stop, the bottom face's centre does not move.
  const Vec3 bottom_B(0, 0, -0.05);
  const auto bottom_x = [&](double t) {
    return body_point_W(*run->system, recorder.output_states[output_at(recorder, t)], box, bottom_B)
        .x();
  };
  CHECK(std::abs(bottom_x(4.9) - bottom_x(0.0)) < 1e-12);
  CHECK(std::abs(bottom_x(14.0) - bottom_x(13.2)) < 1e-12);
}

// The stick-slip oscillator's closed form (see the scene's header).
struct OscillatorCycle {
  double first_slip;  // s
  double slip;        // s
  double stick;       // s
  double x_stuck;     // m, where it sticks
  double x_break;     // m, where it breaks away
};

OscillatorCycle oscillator_closed_form() {
  const double m = 1.0, k = 100.0, N = 10.0, mu_s = 0.5, mu_k = 0.3, v_b = 0.1;
  const double omega = std::sqrt(k / m);
  const double delta = (mu_s - mu_k) * N / k;
  const double x_k = mu_k * N / k;
  return {mu_s * N / k / v_b, (std::numbers::pi + 2.0 * std::atan(v_b / (omega * delta))) / omega,
          2.0 * delta / v_b, x_k - delta, mu_s * N / k};
}

void check_oscillator(const std::string& integrator, double tolerance) {
  CAPTURE(integrator);
  const Model model = load_scene_file("stick_slip_oscillator");
  auto run = testing::run_scene(model, integrator);
  REQUIRE(run->result.status == SimulationStatus::ok);
  const OscillatorCycle expected = oscillator_closed_form();
  const std::vector<EventRecord> records = run->recorder.stick_slip_records();
  // stick at 0, then slip, stick, ... : 3 s hold three whole cycles after the first 0.5 s.
  REQUIRE(records.size() >= 7);
  const double v_b = 0.1;
  const int block = model.find_body("block");
  for (std::size_t i = 0; i < records.size(); ++i) {
    CAPTURE(i);
    CHECK(records[i].kind == (i % 2 == 0 ? EventRecord::Kind::stick : EventRecord::Kind::slip));
    // x, the distance from the wall: the joint coordinate (belt frame) plus v_b t.
    double x = kNaN;
    for (std::size_t e = 0; e < run->recorder.events.size(); ++e) {
      if (run->recorder.events[e].t == records[i].t) {
        x = run->system->compute_kinematics(run->recorder.event_states[e])[block].p_WCom.x() +
            v_b * records[i].t;
      }
    }
    if (i == 0) continue;
    CHECK(std::abs(x - (i % 2 == 1 ? expected.x_break : expected.x_stuck)) <
          tolerance * expected.x_break);
    const double phase = records[i].t - records[i - 1].t;
    const double closed = i == 1       ? expected.first_slip
                          : i % 2 == 0 ? expected.slip
                                       : expected.stick;
    CHECK(std::abs(phase - closed) < tolerance * closed);
  }
  // The amplitude: the largest x over the outputs against x_k + sqrt(Delta^2 + (v_b/omega)^2)
  // = 0.03 + sqrt(5) / 100. Outputs every 1 ms sample the peak's cosine within
  // R (omega 5e-4 s)^2 / 2 = 2.8e-7 m of its top (measured: 1.2e-9 m below it).
  const double expected_peak = 0.03 + std::sqrt(5.0) / 100.0;
  double peak = 0.0;
  for (std::size_t i = 0; i < run->recorder.output_states.size(); ++i) {
    const double x =
        run->system->compute_kinematics(run->recorder.output_states[i])[block].p_WCom.x() +
        v_b * run->recorder.output_times[i];
    peak = std::max(peak, x);
  }
  const double sampling = std::hypot(0.02, v_b / 10.0) * std::pow(10.0 * 5e-4, 2) / 2.0;
  CHECK(peak <= expected_peak + tolerance * expected_peak);
  CHECK(peak > expected_peak - sampling - tolerance * expected_peak);
}

TEST_CASE("stick-slip: the belt oscillator's stick and slip phases match the closed form") {
  // 1e-8 relative (the issue's bound): the events are located to about 1e-14 s and rtol 1e-11
  // keeps the slide's position error near 1e-11 m; the penetration's contact_eps (1e-13 m of
  // 5e-5 m) changes N by 2e-9 relative.
  check_oscillator("", 1e-8);
}

TEST_CASE("stick-slip: ARKODE, IDA and fixed steps take the same events") {
  // Looser bounds where the method is less exact: IDA's algebraic rows and ARKODE's explicit
  // error control at the scene's tolerance; rk4 at 1e-4 s has a local error of (omega h)^5 / 120
  // = 1e-17 per step on the slide, and locates the events by its own root finding.
  check_oscillator("ida", 1e-6);
  check_oscillator("arkode-erk", 1e-6);
  const Model model = load_scene_file("stick_slip_oscillator", {"simulation.step_size=1e-4"});
  auto run = testing::run_scene(model, "rk4");
  REQUIRE(run->result.status == SimulationStatus::ok);
  const std::vector<EventRecord> records = run->recorder.stick_slip_records();
  REQUIRE(records.size() >= 7);
  const OscillatorCycle expected = oscillator_closed_form();
  CHECK(std::abs(records[1].t - expected.first_slip) < 1e-8);
  CHECK(std::abs(records[2].t - records[1].t - expected.slip) < 1e-6);
  CHECK(std::abs(records[3].t - records[2].t - expected.stick) < 1e-6);
}

TEST_CASE("stick-slip: Gazebo's friction demo, mu 0.98 slides, mu 1 and 1.02 stay put") {
  const Model model = load_scene_file("friction_demo_stick_slip");
  const double s45 = std::sin(std::numbers::pi / 4.0);
  const double m = 1.0, slope_force = m * kG * s45, weight_normal = m * kG * s45;

  // The plates start in the static balance of a held plate. Independent check of that state:
  // Hertz corners (R = 2 mm, steel on steel, K = (4/3) E* sqrt(R)) carrying m g cos 45 / 4 each
  // plus or minus half the moment of the friction 27 mm below the centre, m g sin 45 h / (2 L)
  // per side (L = 0.1 m), pitch by (delta_down - delta_up) / 2 L. 1e-4 relative: the balance
  // neglects the pitch's own change of the levers (7e-7) and the depth's of h (2e-5).
  const double e_star = 2.0e11 / (2.0 * (1.0 - 0.3 * 0.3));
  const double K = 4.0 / 3.0 * e_star * std::sqrt(0.002), L = 0.1, h = 0.027;
  const double dN = slope_force * h / (2.0 * L);
  const double delta_down = std::pow((weight_normal / 4.0 + dN / 2.0) / K, 2.0 / 3.0);
  const double delta_up = std::pow((weight_normal / 4.0 - dN / 2.0) / K, 2.0 / 3.0);
  const double pitch = 2.0 * std::asin(model.bodies[model.find_body("mu_100")].q_WB.y());
  CHECK(pitch == testing::relative((delta_down - delta_up) / (2.0 * L), 1e-4));

  auto run = testing::run_scene(model);
  REQUIRE(run->result.status == SimulationStatus::ok);
  const testing::Recorder& recorder = run->recorder;
  // mu = 1 and 1.02 stick at t = 0 holding the whole slope force on the whole normal load
  // (1e-9 relative: the balance's depths are exact to the digits of the scene's position); mu =
  // 0.98 cannot and slides from t = 0; nothing else switches.
  const std::vector<EventRecord> records = recorder.stick_slip_records();
  REQUIRE(records.size() == 2);
  for (const EventRecord& record : records) {
    CHECK(record.t == 0.0);
    CHECK(record.kind == EventRecord::Kind::stick);
    CHECK(record.pair_b != "mu_098");
    CHECK(record.tangential_force == testing::relative(slope_force, 1e-9));
    CHECK(record.normal_force == testing::relative(weight_normal, 1e-9));
  }
  const auto state = [&](double t) { return recorder.output_states[output_at(recorder, t)]; };
  const auto com = [&](int body, double t) {
    return run->system->compute_kinematics(state(t))[body].X_WB.translation;
  };
  const auto vx = [&](int body, double t) {
    return run->system->compute_kinematics(state(t))[body].v_WCom_W.x();
  };
  // mu = 0.98 slides with a = g (sin 45 - mu cos 45) from rest: exact Coulomb, so x = a t^2 / 2
  // and v = a t. 1e-6 relative covers the rtol 1e-8 run and the plate's pitch transient as it
  // starts to slide (a change of the corner loads, not of their sum).
  const int slider = model.find_body("mu_098");
  const double a = kG * (s45 - 0.98 * s45);
  CHECK(vx(slider, 1.0) == testing::relative(a, 1e-6));
  CHECK((com(slider, 1.0) - com(slider, 0.0)).x() == testing::relative(a / 2.0, 1e-6));
  // mu = 1 (Coulomb's limit: the holding force equals mu_s f_n) and mu = 1.02 do not move:
  // 1e-12 m, as on the slope.
  for (const char* name : {"mu_100", "mu_102"}) {
    const int holder = model.find_body(name);
    for (double t = 0.1; t <= 1.0; t += 0.1) {
      CHECK((com(holder, t) - com(holder, 0.0)).norm() < 1e-12);
    }
  }
}

TEST_CASE("stick-slip: a spinning top's contact enters torsional stick and breaks away") {
  const Model model = load_scene_file("torsional_stick_top");
  auto run = testing::run_scene(model);
  REQUIRE(run->result.status == SimulationStatus::ok);
  const double R = 0.05, m = 1.0, I = 0.4 * m * R * R, mu_t = 0.1;
  // Torsional friction mu_t r_geo f_n with r_geo = R and f_n = m g: the spin falls at
  // alpha = mu_t R m g / I = 49.05 rad/s^2 and stops at w0 / alpha = 0.2039 s, where it sticks.
  const double limit = mu_t * R * m * kG;
  const double t_stop = 10.0 / (limit / I);
  // Held, the spin takes the rising torque until it reaches the limit at 0.3 s + limit / (1 N m/s)
  // and breaks away.
  const double t_break = 0.3 + limit;
  const std::vector<EventRecord> records = run->recorder.stick_slip_records();
  std::vector<EventRecord> spin;
  for (const EventRecord& record : records) {
    if (record.description.find("spin") != std::string::npos) spin.push_back(record);
  }
  REQUIRE(spin.size() == 2);
  CHECK(spin[0].kind == EventRecord::Kind::stick);
  CHECK(spin[1].kind == EventRecord::Kind::slip);
  // 1e-8 relative: the normal force is m g to the corner's settling, 1e-9 within milliseconds.
  CHECK(spin[0].t == testing::relative(t_stop, 1e-8));
  CHECK(spin[1].t == testing::relative(t_break, 1e-8));
  // The translation sticks at the start (no load) and never slips: only the spin switches.
  CHECK(records.size() == 3);
  // Between the two, the spin is exactly zero (a constraint row), not a slow regularised turn.
  const int top = model.find_body("top");
  for (std::size_t i = 0; i < run->recorder.output_times.size(); ++i) {
    const double t = run->recorder.output_times[i];
    if (t < t_stop + 1e-3 || t > t_break - 1e-3) continue;
    const auto& body = run->system->compute_kinematics(run->recorder.output_states[i])[top];
    CHECK(std::abs(body.w_WB_W.z()) < 1e-12);
  }
  // The holding torque is an output (the contact results, so the contacts CSV): at 0.33 s it
  // balances the 0.03 N m twist exactly (1e-9: the multipliers' accuracy). Evaluated at the end
  // of a run stopped there, while the system's patches are those of that instant.
  Model held_model = model;
  held_model.simulation.stop_time = 0.33;
  auto held = testing::run_scene(held_model);
  REQUIRE(held->result.status == SimulationStatus::ok);
  const auto results = held->system->compute_contact_results(0.33, held->final_state);
  REQUIRE(results.size() == 1);
  const double on_top = model.shapes[results[0].shape_b].body == top ? 1.0 : -1.0;
  CHECK(on_top * results[0].torque_on_B_W.z() == testing::relative(-0.03, 1e-9));
  // After the break-away: I w' = tau(t) - limit, w(0.4) = ((0.4 - 0.3) - limit)^2 / (2 I).
  const auto& end = run->system->compute_kinematics(run->final_state)[top];
  const double w_end = std::pow(0.1 - limit, 2) / (2.0 * I);
  CHECK(end.w_WB_W.z() == testing::relative(w_end, 1e-6));
}

TEST_CASE("stick-slip: the scene keys are checked") {
  const std::string scene = R"(
gravity: [0, 0, -9.81]
contact_materials:
  - pair: [Steel, Steel]
    friction: {model: stick_slip, mu_static: 0.5, mu_kinetic: 0.3, EXTRA}
bodies:
  - {name: floor, fixed: true, shapes: [{type: halfspace, material: Steel}]}
  - {name: box, position: [0, 0, 0.05], mass: 1, shapes: [{type: sphere, radius: 0.05, material: Steel}]}
)";
  const auto with = [&](const std::string& extra) {
    std::string text = scene;
    text.replace(text.find("EXTRA"), 5, extra);
    return text;
  };
  CHECK_NOTHROW(load_scene_text(with("cone: true"), "ok.yaml"));
  // Torsional stick needs the torsional friction that gives the spin's limit.
  CHECK_THROWS_WITH_AS(load_scene_text(with("torsional_stick: true"), "s.yaml"),
                       doctest::Contains("torsional_friction"), InputError);
  std::string spin = with("torsional_stick: true");
  spin.replace(spin.find("    friction:"), 0, "    torsional_friction: 0.1\n");
  CHECK_NOTHROW(load_scene_text(spin, "ok.yaml"));
  // So does rolling stick the rolling resistance, and the merged torque combines with neither.
  CHECK_THROWS_WITH_AS(load_scene_text(with("rolling_stick: true"), "s.yaml"),
                       doctest::Contains("rolling_resistance"), InputError);
  std::string roll = with("rolling_stick: true");
  roll.replace(roll.find("    friction:"), 0, "    rolling_resistance: 0.05\n");
  CHECK_NOTHROW(load_scene_text(roll, "ok.yaml"));
  std::string merged = roll;
  merged.replace(merged.find("    friction:"), 0, "    merged_rolling_torque: true\n");
  CHECK_THROWS_WITH_AS(load_scene_text(merged, "s.yaml"),
                       doctest::Contains("merged_rolling_torque"), InputError);
  CHECK_THROWS_WITH_AS(load_scene_text(with("mu2: 0.2"), "s.yaml"), doctest::Contains("mu2"),
                       InputError);
  CHECK_THROWS_WITH_AS(load_scene_text(with("cone: false"), "s.yaml"), doctest::Contains("cone"),
                       InputError);
  std::string below = with("cone: true");
  below.replace(below.find("mu_static: 0.5"), 14, "mu_static: 0.2");
  CHECK_THROWS_WITH_AS(load_scene_text(below, "s.yaml"), doctest::Contains("mu_static"),
                       InputError);
  // A key of stick_slip under another model.
  std::string other = with("torsional_stick: false");
  other.replace(other.find("stick_slip"), 10, "stribeck");
  CHECK_THROWS_WITH_AS(load_scene_text(other, "s.yaml"), doctest::Contains("torsional_stick"),
                       InputError);
  // A prescribed body cannot stick: refused when the system is made.
  const Model prescribed = load_scene_text(R"(
contact_materials:
  - pair: [Steel, Steel]
    friction: {model: stick_slip, mu_static: 0.5, mu_kinetic: 0.3}
bodies:
  - name: belt
    prescribed: {linear_velocity: {signal: {constant: [0.1, 0, 0]}}}
    shapes: [{type: box, size: [10, 10, 0.1], position: [0, 0, -0.05], material: Steel}]
  - {name: box, position: [0, 0, 0.05], mass: 1, shapes: [{type: sphere, radius: 0.05, material: Steel}]}
)",
                                           "p.yaml");
  CHECK_THROWS_WITH_AS(MultibodySystem{prescribed}, doctest::Contains("prescribed"),
                       NotSupportedError);
}

}  // namespace
}  // namespace hybridsim
