// Billiards breaks, 16 balls (models/scenes/billiards_16.yaml, Modia3D's Billard16Balls) and 4
// balls (billiards_4.yaml, after Billard4Balls, the same table, cue ball and first rack rows). The
// break is chaotic, so after the first impact the checks are invariants; before it the cue ball's
// motion has a closed form:
//  - sliding without spin at v0, friction mu g decelerates it while friction and the rolling
//    resistance torque (mu_r r f_n) spin it up, so the slip v - w r falls at g (7 mu - 5 mu_r) / 2
//    and pure rolling starts at t* = 2 v0 / (g (7 mu - 5 mu_r)); after that it rolls, decelerated
//    at (5/7) mu_r g. Along its straight path it first touches ball 3 when the centres are 2r
//    apart, and arrives with the normal speed v(t) . n.
//  - afterwards: energy never increases, no ball leaves the cloth or passes a cushion, and every
//    contact start is followed by its end or lasts to the stop time.
#include <doctest/doctest.h>

#include <cmath>
#include <map>
#include <string>

#include "test_support.hpp"

namespace hybridsim {
namespace {

constexpr double g = 9.81;
constexpr double r = 0.03;                     // ball radius, m
constexpr double mu = 0.2, mu_rolling = 0.01;  // ball-cloth, default palette

// Distance along the cue ball's path and its speed, at time t (closed form above).
struct PathPoint {
  double distance, speed;
};
PathPoint cue_ball_path(double v0, double t) {
  const double t_roll = 2.0 * v0 / (g * (7.0 * mu - 5.0 * mu_rolling));
  if (t <= t_roll) return {v0 * t - 0.5 * mu * g * t * t, v0 - mu * g * t};
  const PathPoint at_roll = cue_ball_path(v0, t_roll);
  const double dt = t - t_roll;
  const double deceleration = 5.0 / 7.0 * mu_rolling * g;
  return {at_roll.distance + at_roll.speed * dt - 0.5 * deceleration * dt * dt,
          at_roll.speed - deceleration * dt};
}

// The first ball-ball impact of a break scene (billiards_16, billiards_4): ball0 on ball3, at the
// time and normal speed of the closed form above.
void check_first_impact(const std::string& scene) {
  const Model model = load_scene_file(scene);
  const auto run = testing::run_scene(model);
  REQUIRE(run->result.status == SimulationStatus::ok);

  // Where the cue ball's straight path first comes within 2r of a ball's centre.
  const Body& cue = model.bodies[model.find_body("ball0")];
  const Vec3 p0 = cue.p_WB;
  const double v0 = cue.v_WB_W.norm();
  const Vec3 direction = cue.v_WB_W / v0;
  double contact_distance = kInfinity;
  std::string first_ball;
  for (const Body& body : model.bodies) {
    if (body.fixed || body.name == "ball0") continue;
    const Vec3 offset = body.p_WB - p0;
    const double along = offset.dot(direction);
    const double across_squared = offset.squaredNorm() - along * along;
    if (across_squared >= 4.0 * r * r) continue;
    const double distance = along - std::sqrt(4.0 * r * r - across_squared);
    if (distance < contact_distance) {
      contact_distance = distance;
      first_ball = body.name;
    }
  }
  REQUIRE(first_ball == "ball3");
  // The time it gets there, by bisection on the monotone path.
  double lo = 0.0, hi = 2.0;
  for (int i = 0; i < 100; ++i) {
    const double mid = 0.5 * (lo + hi);
    (cue_ball_path(v0, mid).distance < contact_distance ? lo : hi) = mid;
  }
  const double t_contact = lo;

  const auto records = run->recorder.contact_records();
  const auto first = std::find_if(records.begin(), records.end(), [](const EventRecord& e) {
    return e.pair_a.starts_with("ball") && e.pair_b.starts_with("ball");
  });
  REQUIRE(first != records.end());
  CHECK(first->pair_a == "ball0/0");
  CHECK(first->pair_b == "ball3/0");
  // rtol 1e-5 on a path of 1.17 m is a position error near 1e-5 m, 5e-6 s at 2.1 m/s; the cloth's
  // Hertz settling in the first milliseconds and the regularised friction near the rolling
  // transition (v_small 1 mm/s) shift it by far less. Measured: 4e-8 s.
  CHECK(std::abs(first->t - t_contact) < 2e-5);
  // The arriving normal speed: the speed along the path projected on the line of centres.
  const Vec3 ball3 = model.bodies[model.find_body("ball3")].p_WB;
  const Vec3 cue_at_contact = p0 + contact_distance * direction;
  const Vec3 n = (ball3 - cue_at_contact).normalized();
  CHECK(first->pre_impact_velocity ==
        testing::relative(cue_ball_path(v0, t_contact).speed * direction.dot(n), 1e-4));
}

TEST_CASE("billiards 16 balls: the first impact as the cue ball's sliding and rolling predict") {
  check_first_impact("billiards_16");
}

TEST_CASE("billiards 4 balls: the first impact as the cue ball's sliding and rolling predict") {
  check_first_impact("billiards_4");
}

// The invariants of a break scene after its first impact; `min_starts`: contact starts the break
// makes at least (it reaches the cushions many times).
void check_break_invariants(const std::string& scene, int min_starts) {
  const Model model = load_scene_file(scene);
  const auto run = testing::run_scene(model);
  REQUIRE(run->result.status == SimulationStatus::ok);
  CHECK(run->result.contact_starts > min_starts);

  // Energy (kinetic, gravitational, elastic) only falls: restitution below 1, friction and
  // rolling resistance dissipate, nothing drives. Allowed rise between outputs: 1e-6 of the
  // initial 1.8 J, the integrator's error at rtol 1e-5 on the elastic energy of stiff contacts
  // (measured: no rise above 1e-7 J).
  const std::vector<double>& energies = run->recorder.output_energies;
  REQUIRE(energies.size() == run->recorder.output_states.size());
  const double initial = energies.front();
  double previous = initial;
  for (double energy : energies) {
    CHECK(energy <= previous + 1e-6 * initial);
    previous = energy;
  }
  // Over 5 s the balls hit the cushions (e = 0.75, each impact removes 44% of the normal kinetic
  // energy) and each other many times: at least half the cue ball's 0.89 J is gone.
  const Body& cue = model.bodies[model.find_body("ball0")];
  const double cue_kinetic = 0.5 * cue.mass * cue.v_WB_W.squaredNorm();
  CHECK(previous < initial - 0.5 * cue_kinetic);

  // Every ball stays on the cloth and inside the cushions' noses: the cushion's inner face is at
  // 1.045 m (x) and 0.485 m (y), its nose 0.012 m above a ball's centre, so a centre stops
  // 0.0275 m short of it; 1 mm covers the compliant contacts. On the cloth: within 1 mm of r
  // (the static Hertz penetration is micrometres, and the noses push down, never up).
  for (const VectorX& x : run->recorder.output_states) {
    for (const Body& body : model.bodies) {
      if (body.fixed) continue;
      const Vec3 p = x.segment<3>(body.state_offset);
      CHECK(std::abs(p.x()) < 1.045 - 0.0275 + 1e-3);
      CHECK(std::abs(p.y()) < 0.485 - 0.0275 + 1e-3);
      CHECK(std::abs(p.z() - r) < 1e-3);
    }
  }

  // Starts and ends alternate per pair, beginning with a start.
  std::map<std::string, int> open;
  for (const EventRecord& record : run->recorder.contact_records()) {
    int& count = open[record.pair_a + "|" + record.pair_b];
    count += record.kind == EventRecord::Kind::contact_start ? 1 : -1;
    CHECK((count == 0 || count == 1));
  }
}

TEST_CASE("billiards 16 balls: energy, the cloth, the cushions and the event bookkeeping") {
  check_break_invariants("billiards_16", 40);
}

TEST_CASE("billiards 4 balls: energy, the cloth, the cushions and the event bookkeeping") {
  check_break_invariants("billiards_4", 10);
}

TEST_CASE(
    "two billiard balls: the striker arrives as its sliding and rolling predict, the struck "
    "ball rolls when its slip does") {
  // models/scenes/two_billiard_balls.yaml: centres 0.8 m apart on the x axis, the gap 0.74 m.
  const Model model = load_scene_file("two_billiard_balls");
  const auto run = testing::run_scene(model);
  REQUIRE(run->result.status == SimulationStatus::ok);
  const double v0 = 2.0, gap = 0.8 - 2.0 * r;
  double lo = 0.0, hi = 2.0;
  for (int i = 0; i < 100; ++i) {
    const double mid = 0.5 * (lo + hi);
    (cue_ball_path(v0, mid).distance < gap ? lo : hi) = mid;
  }
  const auto& events = run->recorder.events;
  const auto is_ball_pair = [](const EventRecord& e) {
    return e.pair_a == "ball0/0" && e.pair_b == "ball1/0";
  };
  const EventRecord* start = nullptr;
  std::size_t end_instant = events.size();
  for (std::size_t i = 0; i < events.size() && end_instant == events.size(); ++i) {
    for (const EventRecord& e : events[i].outcome.records) {
      if (!is_ball_pair(e)) continue;
      if (e.kind == EventRecord::Kind::contact_start && start == nullptr) start = &e;
      if (e.kind == EventRecord::Kind::contact_end && start != nullptr) end_instant = i;
    }
  }
  REQUIRE(start != nullptr);
  REQUIRE(end_instant < events.size());
  // 2e-5 s and 1e-4 as for the 16-ball break's first impact (rtol 1e-6 here).
  CHECK(std::abs(start->t - lo) < 2e-5);
  CHECK(start->pre_impact_velocity == testing::relative(cue_ball_path(v0, lo).speed, 1e-4));

  // After the impact: velocities along x and the struck ball's spin about y.
  const VectorX& after = run->recorder.event_states[end_instant];
  const int o0 = model.bodies[model.find_body("ball0")].state_offset;
  const int o1 = model.bodies[model.find_body("ball1")].state_offset;
  const double v1 = after[o1 + 7],
               w1 = after[o1 + 11];  // w in the body frame: ball1 has not turned
  // Restitution: the separation speed over the approach speed, e = 0.95 for the law alone; the
  // cloth's and the balls' friction act during the 0.4 ms impact too (measured: 0.948); 1e-2.
  CHECK((v1 - after[o0 + 7]) / start->pre_impact_velocity == doctest::Approx(0.95).epsilon(1e-2));
  CHECK(w1 < 0.0);  // backspin from the striker's rolling surface

  // The struck ball slides. Friction mu m g at the cloth decelerates it and spins it forward;
  // the rolling resistance torque mu_r r m g opposes its spin, so while the backspin lasts it
  // helps: w rises at (5/2) (mu + mu_r) g / r until w = 0, then at (5/2) (mu - mu_r) g / r, the
  // slip v - w r falling at g (7 mu - 5 mu_r) / 2 until it rolls at v_roll; after that it
  // decelerates at (5/7) mu_r g. Taken from its state 10 ms after the impact: the striker's
  // friction also pressed it into the cloth, and the extra normal force (and friction) of that
  // vertical rebound lasts about a millisecond. 1e-3 relative: the regularised friction's
  // v_small (1 mm/s) bounds the slip left when rolling.
  std::size_t settled = 0;
  while (settled < run->recorder.output_times.size() &&
         run->recorder.output_times[settled] < events[end_instant].t + 0.01) {
    ++settled;
  }
  REQUIRE(settled < run->recorder.output_times.size());
  const VectorX& reference = run->recorder.output_states[settled];
  double t_spin = run->recorder.output_times[settled];
  double v_spin = reference[o1 + 7];
  const double w_ref = reference[o1 + 11];
  REQUIRE(w_ref < 0.0);
  const double backspin_time = -w_ref / (2.5 * (mu + mu_rolling) * g / r);
  t_spin += backspin_time;
  v_spin -= mu * g * backspin_time;
  const double t_roll = 2.0 * v_spin / (g * (7.0 * mu - 5.0 * mu_rolling));
  const double v_roll = v_spin - mu * g * t_roll;
  const double t_reference = t_spin;
  int checked = 0;
  for (std::size_t i = 0; i < run->recorder.output_times.size(); ++i) {
    const double t = run->recorder.output_times[i] - t_reference;
    if (t < t_roll + 0.05 || t > t_roll + 0.5) continue;
    const VectorX& x = run->recorder.output_states[i];
    const double expected = v_roll - 5.0 / 7.0 * mu_rolling * g * (t - t_roll);
    CHECK(x[o1 + 7] == doctest::Approx(expected).epsilon(1e-3));
    ++checked;
  }
  CHECK(checked > 100);
}

}  // namespace
}  // namespace hybridsim
