// References for jointed scenes: the complete elliptic integral of a pendulum's period, joint
// histories from a run, and the zero crossings of a joint coordinate.
#pragma once

#include <cmath>
#include <numbers>
#include <vector>

#include "test_support.hpp"

namespace hybridsim::testing {

// K(k) = pi / (2 AGM(1, sqrt(1 - k^2))): the arithmetic-geometric mean converges quadratically,
// to round-off in a handful of iterations.
inline double complete_elliptic_k(double k) {
  double a = 1.0, b = std::sqrt(1.0 - k * k);
  for (int i = 0; i < 30; ++i) {
    const double next = 0.5 * (a + b);
    b = std::sqrt(a * b);
    a = next;
  }
  return std::numbers::pi / (2.0 * a);
}

// Joint coordinate and rate of joint j at every output.
struct JointHistory {
  std::vector<double> t, q, qd;
};

inline JointHistory joint_history(Run& run, int joint) {
  JointHistory history;
  for (std::size_t i = 0; i < run.recorder.output_times.size(); ++i) {
    const JointCoordinate c =
        run.system->compute_joint_coordinates(run.recorder.output_states[i])[joint];
    history.t.push_back(run.recorder.output_times[i]);
    history.q.push_back(c.position);
    history.qd.push_back(c.velocity);
  }
  return history;
}

// Times at which q crosses zero, from the cubic Hermite interpolant of (q, q') between outputs:
// its error h^4 |q''''| / 384 is ~1e-13 rad for h = 1 ms, far below the tolerances below.
inline std::vector<double> zero_crossings(const JointHistory& h) {
  std::vector<double> crossings;
  for (std::size_t i = 1; i < h.t.size(); ++i) {
    if ((h.q[i - 1] < 0.0) == (h.q[i] < 0.0)) continue;
    const double dt = h.t[i] - h.t[i - 1];
    auto p = [&](double s) {
      const double s2 = s * s, s3 = s2 * s;
      return (2 * s3 - 3 * s2 + 1) * h.q[i - 1] + (s3 - 2 * s2 + s) * dt * h.qd[i - 1] +
             (-2 * s3 + 3 * s2) * h.q[i] + (s3 - s2) * dt * h.qd[i];
    };
    double lo = 0.0, hi = 1.0;
    for (int k = 0; k < 60; ++k) {
      const double mid = 0.5 * (lo + hi);
      ((p(lo) < 0.0) == (p(mid) < 0.0) ? lo : hi) = mid;
    }
    crossings.push_back(h.t[i - 1] + 0.5 * (lo + hi) * dt);
  }
  return crossings;
}

}  // namespace hybridsim::testing
