// The Simulator: the hybrid loop, generic over any HybridSystem and any Integrator.
//
//   x := initial state; handle the initial discrete state (contacts at t0); output(t0)
//   loop until the stop time:
//     t_limit := min(stop time, next time event)
//     one integrator step, not past t_limit
//     outputs at the communication points inside the step, from dense output
//     at a root:          sum the segment statistics, handle the state event, output the event
//                         row, check the Zeno guard, restart the integrator at the event time
//     at a time event:    the same with the system's time-event handler
//   output(stop time)
//
// Outputs are interpolated, never asked of the integrator as a stop, so an output instant next to
// an event cannot make the restart fail (no CV_TOO_CLOSE). Numerical outcomes are statuses in the
// result; observers have seen everything computed up to the stop.
#pragma once

#include <string>

#include "core/hybrid_system.hpp"
#include "integrators/integrator.hpp"

namespace hybridsim {

struct SimulationOptions {
  double start_time = 0.0;
  double stop_time = 1.0;
  double output_interval = 0.01;  // s; <= 0: outputs only at the start, events and the stop
  IntegratorSettings integrator;
  // Zeno / chattering guard: more than max_events_per_second * zeno_window events within any
  // zeno_window of simulated time stop the run.
  double max_events_per_second = 100000.0;
  double zeno_window = 0.01;  // s
};

enum class SimulationStatus { ok, step_failure, zeno_guard, error };
std::string_view to_string(SimulationStatus status);

struct SimulationResult {
  SimulationStatus status = SimulationStatus::ok;
  std::string message;  // why the run stopped early
  double t_end = 0.0;
  IntegratorStats stats;  // summed over all restarts
  long state_events = 0;
  long time_events = 0;
  long contact_starts = 0;
  long contact_ends = 0;
  long restarts = 0;
  long rhs_calls = 0;  // the system's own count of right-hand-side evaluations
};

class SimulationObserver {
 public:
  virtual ~SimulationObserver() = default;
  // A communication point (start, interval, stop) with the state there.
  virtual void on_output(double /*t*/, const VectorX& /*x*/) {}
  // An event instant with the state after its handling.
  virtual void on_event(const EventInstant& /*instant*/, const VectorX& /*x*/) {}
};

class Simulator {
 public:
  Simulator(HybridSystem& system, Integrator& integrator, SimulationOptions options);

  // Runs from the start to the stop time, reporting to the observer (which may be null).
  SimulationResult run(SimulationObserver* observer = nullptr);

  const VectorX& state() const { return x_; }

 private:
  void emit_outputs_until(double t_reached, SimulationObserver* observer);
  void report_event(EventInstant instant, SimulationObserver* observer, SimulationResult& result);
  bool zeno_guard_tripped(double t);
  void restart(double t, SimulationResult& result);

  HybridSystem& system_;
  Integrator& integrator_;
  SimulationOptions options_;
  VectorX x_;
  VectorX x_output_;
  long next_output_index_ = 1;
  double last_output_time_ = -kInfinity;
  std::vector<double> recent_event_times_;
};

}  // namespace hybridsim
