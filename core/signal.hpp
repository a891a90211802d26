// Input signals u(t): constant, step, ramp, sine and table, each a 3-vector (a scalar signal uses
// the first component). Discontinuities of the value or of its slope are time events.
#pragma once

#include <vector>

#include "core/math.hpp"

namespace hybridsim {

// A signal's value has the unit and frame of what it drives: for an Input, N (force) or N m
// (torque), in W or in B (Input::body_frame). Only the fields of its kind are used.
struct Signal {
  enum class Kind { constant, step, ramp, sine, table };  // which fields below define it
  Kind kind = Kind::constant;

  // constant: value. step: before -> after at `time`. ramp: before at `time`, linear to after at
  // time + duration.
  Vec3 value = Vec3::Zero();   // constant value (N or N m)
  Vec3 before = Vec3::Zero();  // step, ramp: value before `time` (N or N m)
  Vec3 after = Vec3::Zero();   // step: value from `time`; ramp: from time + duration (N or N m)
  double time = 0.0;           // s
  double duration = 0.0;       // s (ramp)

  // sine: offset + amplitude * sin(2*pi*frequency*t + phase)
  Vec3 amplitude = Vec3::Zero();  // N or N m
  Vec3 offset = Vec3::Zero();     // N or N m
  double frequency = 0.0;         // Hz
  double phase = 0.0;             // rad

  // table: piecewise linear through (times[i], values[i]), constant outside; times increasing.
  std::vector<double> times;  // s
  std::vector<Vec3> values;   // N or N m, one per entry of times
};

// The value of the signal at time t. Right-continuous at a step: the value at `time` is `after`.
Vec3 evaluate_signal(const Signal& signal, double t);

// The signal's time derivative at t (value unit per second), right-sided at a breakpoint: zero
// for constant and step signals, the slope of a ramp or table segment, the sine's derivative.
Vec3 evaluate_signal_rate(const Signal& signal, double t);

// The first instant strictly after t at which the signal or its slope jumps; +inf if none.
double next_signal_breakpoint(const Signal& signal, double t);

}  // namespace hybridsim
