// Input signals u(t): constant, step, ramp, sine and table, each a 3-vector (a scalar signal uses
// the first component). Discontinuities of the value or of its slope are time events.
#pragma once

#include <vector>

#include "core/math.hpp"

namespace hybridsim {

struct Signal {
  enum class Kind { constant, step, ramp, sine, table };
  Kind kind = Kind::constant;

  // constant: value. step: before -> after at `time`. ramp: before at `time`, linear to after at
  // time + duration.
  Vec3 value = Vec3::Zero();
  Vec3 before = Vec3::Zero();
  Vec3 after = Vec3::Zero();
  double time = 0.0;      // s
  double duration = 0.0;  // s (ramp)

  // sine: offset + amplitude * sin(2*pi*frequency*t + phase)
  Vec3 amplitude = Vec3::Zero();
  Vec3 offset = Vec3::Zero();
  double frequency = 0.0;  // Hz
  double phase = 0.0;      // rad

  // table: piecewise linear through (times[i], values[i]), constant outside; times increasing.
  std::vector<double> times;
  std::vector<Vec3> values;
};

// The value of the signal at time t. Right-continuous at a step: the value at `time` is `after`.
Vec3 evaluate_signal(const Signal& signal, double t);

// The first instant strictly after t at which the signal or its slope jumps; +inf if none.
double next_signal_breakpoint(const Signal& signal, double t);

}  // namespace hybridsim
