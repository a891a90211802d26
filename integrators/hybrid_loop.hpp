// The hybrid loop: integrates any HybridSystem with any Integrator from event to event, and can
// be advanced piece by piece (the public Simulator and the CLI both drive it).
//
//   start:    x := initial state; handle the initial discrete state (contacts at t0); output(t0)
//   advance:  until the target time is inside the integrator's last step:
//               outputs at the communication points inside the step (dense output)
//               a root at the end of the step, once reached: sum the segment statistics, handle
//                 the state event, check the Zeno guard, restart the integrator there
//               a time event due now: the same with the system's time-event handler
//               one integrator step, not past min(next time event, horizon)
//             then the state at the target from the step's dense output.
//
// Steps are bounded only by time events and the horizon (the stop time, or the target when it
// lies beyond), never by advance targets: any sequence of advances takes the same steps as one,
// so it gives bit-identical results. The integrator may therefore be ahead of the loop's time,
// with a root found but not yet handled; a host change (interrupt) discards that lookahead and
// restarts at the loop's time. Outputs are interpolated, never asked of the integrator as a stop,
// so an output instant next to an event cannot make the restart fail (no CV_TOO_CLOSE).
// Numerical outcomes are statuses; observers have seen everything computed up to the stop.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "core/hybrid_system.hpp"
#include "integrators/integrator.hpp"
#include "integrators/simulation.hpp"

namespace hybridsim {

// Where a run stands (after an event's restart, or at its end), enough for another process to go
// on from there (hybridsim run --checkpoint / --resume): the integrator starts afresh at every
// restart, so a run resumed from a checkpoint takes the steps the original would have taken up to
// the solvers' round-off (a fresh sparse factorisation, for instance; a chaotic scene then drifts
// apart as it would under any perturbation of that size).
struct Checkpoint {
  double t = 0.0;  // s
  VectorX x;
  std::vector<double> discrete;            // HybridSystem::discrete_state()
  std::vector<double> recent_event_times;  // s, the Zeno guard's window
  long next_output_index = 0;              // outputs already written: start + k dt for k below
  double last_output_time = 0.0;           // s
  SimulationResult counters;               // totals so far (t_end, status and message unused)
};

// Asked after every event's restart whether it wants a checkpoint (cheap), then given one.
class CheckpointSink {
 public:
  virtual ~CheckpointSink() = default;
  virtual bool checkpoint_due(double t) = 0;
  virtual void write_checkpoint(const Checkpoint& checkpoint) = 0;
};

class HybridLoop {
 public:
  // System and integrator must outlive the loop.
  HybridLoop(HybridSystem& system, Integrator& integrator, SimulationOptions options);

  // Runs from the start to the stop time, reporting to the observer (which may be null).
  SimulationResult run(SimulationObserver* observer = nullptr);

  // Piecewise use: start once, then advance. The observer may be null.
  void start(SimulationObserver* observer);
  // Instead of start: goes on from a checkpoint of a run of the same system and options (its
  // counters carry on; no initial output, the next one is the checkpoint's next).
  void resume(SimulationObserver* observer, const Checkpoint& checkpoint);
  // Checkpoints at restarts after events, when the sink asks (null: none).
  void set_checkpoint_sink(CheckpointSink* sink) { checkpoint_sink_ = sink; }
  // Where the run stands now (time(), state()): the system's discrete state is frozen between
  // events, so a run may go on from any instant, as at a restart (after finish: a finished run
  // continued to a later stop time).
  Checkpoint checkpoint() const;

  enum class Stop { target_reached, event, step_taken, halted };
  // Advances to `target` (>= time()). Returns early after an event instant when stop_at_event, or
  // after one integrator step (and the events at its end) when single_step; `halted` when the
  // status is no longer ok.
  Stop advance(double target, bool stop_at_event, bool single_step);

  // The host changed the system (an input) at time(): a time event with these records, and a
  // restart there. Lookahead of the integrator beyond time() is discarded.
  void interrupt(std::vector<EventRecord> records);

  // The final output at time() if it is not yet written; the totals of the run.
  SimulationResult finish();

  double time() const { return t_; }
  const VectorX& state() const { return x_; }
  // Status and counters so far, including the current integration segment.
  SimulationResult result() const;
  // The warnings raised so far (also given to the observer's on_warning as they come).
  const std::vector<Warning>& warnings() const { return warnings_; }

 private:
  void emit_outputs_until(double t_reached);
  void sample(double t, VectorX& x) const;
  void report_event(EventInstant instant);
  bool zeno_guard_tripped(double t);
  void restart();
  void halt(SimulationStatus status, std::string message);
  void initialize_integrator();
  void offer_checkpoint();
  void handle_pending_root();
  void handle_time_event();
  double horizon(double target) const;
  void warn(Warning warning);
  void start_guards();
  void check_energy(double t, const VectorX& x);
  bool work_guard_tripped();

  HybridSystem& system_;
  Integrator& integrator_;
  SimulationOptions options_;
  SimulationObserver* observer_ = nullptr;
  SimulationResult result_;  // counters of finished segments; status
  long rhs_calls_before_ = 0;
  double time_tolerance_ = 0.0;

  double t_ = 0.0;  // the loop's time; x_ is the state there
  VectorX x_;
  double t_integrator_ = 0.0;  // the integrator's time (>= t_); x_integrator_ is its state
  VectorX x_integrator_;
  bool root_pending_ = false;  // the integrator stopped at a root at t_integrator_, not handled
  std::vector<int> pending_roots_;
  // The last step ended at a time event (t_integrator_) that is not handled yet.
  bool time_event_pending_ = false;
  bool started_ = false;
  bool integrator_started_ = false;

  VectorX x_output_;
  long next_output_index_ = 1;
  double last_output_time_ = -kInfinity;
  std::vector<double> recent_event_times_;
  CheckpointSink* checkpoint_sink_ = nullptr;
  long rhs_calls_carried_ = 0;  // right-hand sides of the run before a resume
  int stalled_steps_ = 0;

  // Warnings and the work guard (SimulationOptions::time_limit, step_budget, stall_window).
  std::vector<Warning> warnings_;
  double initial_energy_ = kNaN;  // J, passive systems only
  double energy_rise_tolerance_ = kInfinity;
  bool energy_rise_warned_ = false;
  std::chrono::steady_clock::time_point wall_start_;
  std::chrono::steady_clock::time_point stall_window_start_;
  double stall_window_t_ = 0.0;  // s, the simulated time at stall_window_start_
  double guard_t0_ = 0.0;        // s, where this process started or resumed the run
  double guard_steps_ = 0.0;     // steps since then
  // The clock is read every clock_stride_ steps, chosen so that about a millisecond of wall
  // time passes between reads (at most 64 steps, at least 1).
  std::chrono::steady_clock::time_point last_clock_read_;
  int clock_stride_ = 1;
  int steps_since_clock_read_ = 0;
};

}  // namespace hybridsim
