// What one simulation run is asked to do and what it reports: options, status, counters and the
// observer interface. Shared by the hybrid loop, the CLI and the public Simulator (public header).
#pragma once

#include <atomic>
#include <string>
#include <string_view>

#include "core/hybrid_system.hpp"
#include "integrators/integrator.hpp"

namespace hybridsim {

// Options of one simulation run. Times in seconds of simulated time.
struct SimulationOptions {
  double start_time = 0.0;  // s
  // s. The last step ends exactly here; steps are never cut at an advance_to target below it, so
  // one long advance and many short ones take the same steps.
  double stop_time = 1.0;
  double output_interval = 0.01;  // s; <= 0: outputs only at the start, events and the stop
  IntegratorSettings integrator;  // tolerances and step bounds
  // Zeno / chattering guard: more than max(10, max_events_per_second * zeno_window) state events
  // within any zeno_window of simulated time stop the run with SimulationStatus::zeno_guard.
  double max_events_per_second = 100000.0;  // 1/s
  double zeno_window = 0.01;                // s
  // Set (nonzero) from outside, a signal handler say, to stop the run after the step under way,
  // with SimulationStatus::interrupted and everything computed so far kept. Not owned.
  const std::atomic<int>* interrupt = nullptr;
  // Set from outside (not owned): the loop stores the integrator's time (s) here after every
  // step, so that another thread can show progress between outputs, and a stalling run shows.
  std::atomic<double>* progress_time = nullptr;
  // Work guard: no run goes on for ever. Each stops the run with complete outputs.
  // Wall time (s) after which the run stops with SimulationStatus::time_limit; 0: no limit.
  double time_limit = 0.0;
  // Steps per simulated second: the run stops with step_budget once it has taken more than
  // step_budget * (t - start_time) + kStepBudgetAllowance steps; 0: no budget. The default is far
  // above any catalog scene (the pile of 1000 spheres takes about 1e7 per second).
  double step_budget = 1e9;  // 1/s
  // The stall rule: simulated time advancing less than stall_fraction of the run's length over
  // stall_window seconds of wall time stops the run with `stalled` (and a "stall" warning).
  double stall_window = 10.0;  // s of wall time; 0: off
  double stall_fraction = 1e-6;
};

// Steps any run may take before the step budget applies (the start-up of a stiff scene).
inline constexpr double kStepBudgetAllowance = 1e6;

// How a run stands or ended. Anything but `ok` is final: the state is the last one computed.
enum class SimulationStatus {
  ok,            // running, or reached its stop time
  step_failure,  // the integrator could not take a step (its message says why)
  zeno_guard,    // too many events per unit of simulated time (SimulationOptions)
  error,         // an exception inside the model (a non-finite state, a failed library call)
  interrupted,   // stopped from outside (SimulationOptions::interrupt)
  time_limit,    // the wall-time limit was reached (SimulationOptions::time_limit)
  step_budget,   // more steps than the budget allows (SimulationOptions::step_budget)
  stalled        // simulated time stopped advancing (SimulationOptions::stall_window)
};
// "ok", "step_failure", "zeno_guard", "error", "interrupted", "time_limit", "step_budget",
// "stalled".
std::string_view to_string(SimulationStatus status);

// Counters of a run, summed over every integrator restart.
struct SimulationResult {
  SimulationStatus status = SimulationStatus::ok;
  std::string message;    // why the run stopped early; empty when ok
  double t_end = 0.0;     // s, where the state was last computed
  IntegratorStats stats;  // integrator counters summed over all segments
  long state_events = 0;  // instants at which a crossing function triggered
  long time_events =
      0;  // input breakpoints, host input changes, bilateral switches by time or host
  long contact_starts = 0;       // contact_start records over all events
  long contact_ends = 0;         // contact_end records over all events
  long bilateral_switches = 0;   // bilateral_on and bilateral_off records over all events
  long stick_slip_switches = 0;  // stick and slip records over all events
  long restarts = 0;             // integrator re-initialisations
  long rhs_calls = 0;            // the system's own count of right-hand-side evaluations
};

// Called by a simulation as it goes. The state vector follows the system's layout; for scenes, 13
// per free body in body order: position of the body origin in W (m), quaternion q_WB
// (w, x, y, z), velocity of the body origin in W (m/s), angular velocity in B (rad/s). The
// reference is valid only during the call.
class SimulationObserver {
 public:
  virtual ~SimulationObserver() = default;
  // A communication point (start, every output_interval, stop) with its time t (s) and state.
  virtual void on_output(double /*t*/, const VectorX& /*x*/) {}
  // An event instant (its time in instant.t, s) with the state after its handling.
  virtual void on_event(const EventInstant& /*instant*/, const VectorX& /*x*/) {}
  // A warning (the start's, an energy rise, a stall), as it is raised; the run goes on unless
  // its status says otherwise.
  virtual void on_warning(const Warning& /*warning*/) {}
};

}  // namespace hybridsim
