// Input signals: values and the breakpoints that become time events.
#include <doctest/doctest.h>

#include "approx.hpp"

#include <cmath>
#include <numbers>

#include "core/signal.hpp"

namespace hybridsim {
namespace {

TEST_CASE("signals: step, ramp, sine and table values and breakpoints") {
  Signal step;
  step.kind = Signal::Kind::step;
  step.time = 0.5;
  step.before = Vec3(1, 0, 0);
  step.after = Vec3(2, 0, 0);
  CHECK(evaluate_signal(step, 0.4999).x() == 1.0);
  CHECK(evaluate_signal(step, 0.5).x() == 2.0);  // right-continuous
  CHECK(next_signal_breakpoint(step, 0.0) == 0.5);
  CHECK(std::isinf(next_signal_breakpoint(step, 0.5)));

  Signal ramp = step;
  ramp.kind = Signal::Kind::ramp;
  ramp.duration = 1.0;
  CHECK(evaluate_signal(ramp, 1.0).x() == testing::relative(1.5, 1e-12));
  CHECK(next_signal_breakpoint(ramp, 0.6) == 1.5);

  Signal sine;
  sine.kind = Signal::Kind::sine;
  sine.amplitude = Vec3(0, 2, 0);
  sine.frequency = 0.25;
  sine.offset = Vec3(0, 1, 0);
  CHECK(evaluate_signal(sine, 1.0).y() == testing::relative(3.0, 1e-12));  // sin(pi/2) = 1
  CHECK(std::isinf(next_signal_breakpoint(sine, 0.0)));

  Signal table;
  table.kind = Signal::Kind::table;
  table.times = {0.0, 1.0, 3.0};
  table.values = {Vec3(0, 0, 0), Vec3(0, 0, 2), Vec3(0, 0, 0)};
  CHECK(evaluate_signal(table, 2.0).z() == testing::relative(1.0, 1e-12));
  CHECK(evaluate_signal(table, 9.0).z() == 0.0);
  CHECK(next_signal_breakpoint(table, 0.5) == 1.0);
}

}  // namespace
}  // namespace hybridsim
