// Restitution of a single impact with the elastic law (design.md §5), no gravity. For
// f = K delta^n (1 + d delta_dot), integrating m v dv / (1 + d v) = -K delta^n d delta over the
// contact gives the achieved restitution e_a as the root of
//   (1 + e_a) alpha = ln((1 + alpha) / (1 - e_a alpha)),  alpha = d v-,
// independent of K and n (docs/physics.md). `exact` damping picks alpha so that e_a = e; `flores`
// has alpha = 8 (1 - e) / (5 e). Matching either proves the stored v- is what the law uses.
#include <doctest/doctest.h>

#include <cmath>

#include <fmt/format.h>

#include "core/contact_law.hpp"
#include "test_support.hpp"

namespace hybridsim {
namespace {

// 30 ms covers the flight (1 ms) and the slowest contact (~2 ms at 0.02 m/s).
Model impact_scene(double speed, double restitution, const std::string& damping) {
  return testing::single_impact_scene(speed, restitution, damping, 0.03);
}

// Exit speed over entry speed of the single impact.
double measure_restitution(double speed, double restitution, const std::string& damping) {
  const auto run = testing::run_scene(impact_scene(speed, restitution, damping));
  REQUIRE(run->result.status == SimulationStatus::ok);
  const auto records = run->recorder.contact_records();
  REQUIRE(records.size() == 2);
  REQUIRE(records[1].kind == EventRecord::Kind::contact_end);
  CHECK(records[0].pre_impact_velocity == doctest::Approx(speed).epsilon(1e-9));
  const VectorX& x_end = run->recorder.event_states.back();
  const double exit_speed = x_end[run->model.bodies[1].state_offset + 9];
  return exit_speed / speed;
}

// The relation's residual, written out here independently of the library.
double relation_residual(double alpha, double e) {
  return (1.0 + e) * alpha - std::log((1.0 + alpha) / (1.0 - e * alpha));
}

TEST_CASE("exact damping: the root alpha*(e) satisfies the restitution relation") {
  // (Below e ~ 0.03, 1 - e alpha* underflows: alpha* = 1/e to the last bit.)
  for (const double e : {0.05, 0.1, 0.3, 0.5, 0.7, 0.9, 0.99}) {
    const double alpha = exact_damping_alpha(e);
    CAPTURE(e);
    CHECK(alpha > 0.0);
    CHECK(alpha < 1.0 / e);
    // A root to 1e-9 relative: the residual changes sign across alpha (1 -+ 1e-9). (The residual
    // is ill-conditioned near 1/e, where ln(1 - e alpha) is steep, and flat near e = 1, where it
    // behaves as alpha^2; 1e-9 clears the rounding at both ends.)
    CHECK(relation_residual(alpha * (1.0 - 1e-9), e) > 0.0);
    CHECK(relation_residual(alpha * (1.0 + 1e-9), e) < 0.0);
  }
  CHECK(exact_damping_alpha(1.0) == 0.0);
  CHECK(std::isinf(exact_damping_alpha(0.0)));
}

TEST_CASE("elastic law, exact damping: achieved restitution equals e for any impact speed") {
  for (const double e : {0.1, 0.5, 0.9}) {
    for (const double speed : {0.02, 0.2, 2.0, 10.0}) {
      CAPTURE(e);
      CAPTURE(speed);
      // rtol 1e-11 resolves the exit speed to ~1e-9; 1e-5 is the bound.
      CHECK(measure_restitution(speed, e, "exact") == doctest::Approx(e).epsilon(1e-5));
    }
  }
}

TEST_CASE("elastic law, flores damping: achieved restitution follows the exact relation") {
  for (const double e : {0.1, 0.5, 0.9}) {
    for (const double speed : {0.02, 2.0}) {
      CAPTURE(e);
      CAPTURE(speed);
      const double alpha = 8.0 * (1.0 - e) / (5.0 * e);
      // Root of the relation in e_a by bisection (independent of achieved_restitution()).
      double lo = 0.0, hi = std::min(1.0, 1.0 / alpha) * (1.0 - 1e-15);
      for (int i = 0; i < 200; ++i) {
        const double mid = 0.5 * (lo + hi);
        (relation_residual(alpha, mid) > 0.0 ? lo : hi) = mid;
      }
      const double expected = 0.5 * (lo + hi);
      CHECK(achieved_restitution(alpha) == doctest::Approx(expected).epsilon(1e-12));
      CHECK(measure_restitution(speed, e, "flores") == doctest::Approx(expected).epsilon(1e-5));
    }
  }
}

}  // namespace
}  // namespace hybridsim
