#include "physics/friction_ring_checks.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <numbers>
#include <string>

#include <fmt/format.h>

namespace hybridsim::testing {
namespace {

constexpr double g = 9.81;

// Position and velocity of a body's origin (the box centre) in output i.
struct Planar {
  double x, y, vx, vy;
};

Planar planar_state(const Run& run, const std::string& body, std::size_t i) {
  const int offset = run.model.bodies.at(run.model.find_body(body)).state_offset;
  const VectorX& s = run.recorder.output_states.at(i);
  return {s[offset], s[offset + 1], s[offset + 7], s[offset + 8]};
}

double bearing_error(double x, double y, double angle) {
  return std::abs(std::remainder(std::atan2(y, x) - angle, 2.0 * std::numbers::pi));
}

}  // namespace

void check_friction_cone_ring(const Run& run) {
  const double mu = 0.3;
  REQUIRE(run.result.status == SimulationStatus::ok);
  CHECK(run.result.contact_starts == 160 * 4);  // four corner spheres per box, none lifts
  CHECK(run.result.contact_ends == 0);
  for (std::size_t i : {std::size_t{2}, run.recorder.output_times.size() - 1}) {
    const double t = run.recorder.output_times[i];
    for (int ring = 0; ring < 5; ++ring) {
      const double R = 9.0 + ring;  // also the launch speed, m/s
      for (int k = 0; k < 32; ++k) {
        const double angle = 2.0 * std::numbers::pi * k / 32.0;
        const std::string name = fmt::format("ring{}_box{:02d}", ring, k);
        CAPTURE(name);
        CAPTURE(t);
        const Planar p = planar_state(run, name, i);
        // The slip (metres per second) is far above the regularized law's v_small (1e-4 m/s),
        // and a stick-slip contact slides: either way the friction is exactly mu f_n along
        // the slip, and the four normal forces carry m g, so the
        // deceleration is constant, which BDF integrates exactly: measured 3e-11 relative
        // after 1.5 s; 1e-9 and 1e-8 leave room for other compilers. A radial slip meets a
        // radial friction under any law, so the fdir1 variants only show that turned frames and
        // fdir1 change nothing; the speeds tell the cone from a pyramid on world axes (which
        // would slow a diagonal box sqrt(2) times faster).
        CHECK(bearing_error(p.x, p.y, angle) < 1e-9);
        CHECK(bearing_error(p.vx, p.vy, angle) < 1e-9);
        CHECK(std::hypot(p.vx, p.vy) == testing::relative(R - mu * g * t, 1e-9));
        CHECK(std::hypot(p.x, p.y) == testing::relative(R + R * t - 0.5 * mu * g * t * t, 1e-8));
      }
    }
  }
}

void check_fdir1_ring(const Run& run, double v_small) {
  const double g_y = 1.0, mu = 100.0;
  REQUIRE(run.result.status == SimulationStatus::ok);
  CHECK(run.result.contact_starts == 44 * 4);
  CHECK(run.result.contact_ends == 0);
  const std::size_t last = run.recorder.output_times.size() - 1;
  const double t = run.recorder.output_times[last];
  REQUIRE(t == doctest::Approx(1.5));
  for (int ring = 0; ring < 4; ++ring) {
    for (int k = 0; k <= 10; ++k) {
      const double angle = std::numbers::pi * k / 10.0;
      const std::string name = fmt::format("ring{}_box{:02d}", ring, k);
      CAPTURE(name);
      const Planar p = planar_state(run, name, last);
      const double radial = p.vx * std::cos(angle) + p.vy * std::sin(angle);
      const double tangential = -p.vx * std::sin(angle) + p.vy * std::cos(angle);
      // Across fdir1 nothing resists: the radial part of gravity accelerates the box freely.
      // 1e-9 m/s: the integration error (the radial speed reaches 1.5 m/s).
      CHECK(std::abs(radial - g_y * std::sin(angle) * t) < 1e-9);
      // Along fdir1 mu f_n = 981 N holds m g_y |cos a| <= 1 N: the regularized law slips at
      // v with mu f_n v / reg(v) = m g_y |cos a|, reg(v) -> v_small / 3 for v << v_small, so
      // |v| ~ (g_y |cos a| / (mu g)) v_small / 3 <= 3.4e-8 m/s. Had fdir1 been read in the wrong
      // frame (world y for rings 2 and 3, say), these boxes would slide at up to 1.5 m/s.
      const double creep = g_y * std::abs(std::cos(angle)) / (mu * g) * v_small / 3.0;
      CHECK(std::abs(tangential) < creep * 1.01 + 1e-12);
      CHECK(std::abs(tangential) > creep * 0.99 - 1e-12);
    }
  }
}

}  // namespace hybridsim::testing
