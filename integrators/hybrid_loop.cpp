#include "integrators/hybrid_loop.hpp"

#include <algorithm>
#include <cmath>
#include <exception>

#include <fmt/format.h>

#include "core/errors.hpp"

namespace hybridsim {
namespace {
constexpr int kMaxStalledSteps = 1000;
constexpr double kClockInterval = 1e-3;  // s of wall time between reads of the clock
}  // namespace

std::string_view to_string(SimulationStatus status) {
  switch (status) {
    case SimulationStatus::ok:
      return "ok";
    case SimulationStatus::step_failure:
      return "step_failure";
    case SimulationStatus::zeno_guard:
      return "zeno_guard";
    case SimulationStatus::interrupted:
      return "interrupted";
    case SimulationStatus::error:
      return "error";
    case SimulationStatus::time_limit:
      return "time_limit";
    case SimulationStatus::step_budget:
      return "step_budget";
    case SimulationStatus::stalled:
      return "stalled";
  }
  return "?";
}

HybridLoop::HybridLoop(HybridSystem& system, Integrator& integrator, SimulationOptions options)
    : system_(system), integrator_(integrator), options_(std::move(options)) {
  time_tolerance_ = 1e-14 * std::max(1.0, std::abs(options_.stop_time));
}

void HybridLoop::sample(double t, VectorX& x) const {
  if (t == t_integrator_) {
    x = x_integrator_;
  } else {
    integrator_.interpolate(t, x);
  }
}

void HybridLoop::emit_outputs_until(double t_reached) {
  const double dt = options_.output_interval;
  if (observer_ == nullptr || !(dt > 0.0)) return;
  // Output k sits at start + k dt (no accumulated drift); a point within 1e-9 dt past the reached
  // time is taken at the reached time.
  while (true) {
    const double t_out = options_.start_time + static_cast<double>(next_output_index_) * dt;
    if (t_out > t_reached + 1e-9 * dt || t_out > options_.stop_time + 1e-9 * dt) break;
    const double t_sample = std::min(t_out, t_reached);
    sample(t_sample, x_output_);
    check_energy(t_sample, x_output_);
    observer_->on_output(t_sample, x_output_);
    last_output_time_ = t_sample;
    ++next_output_index_;
  }
}

void HybridLoop::report_event(EventInstant instant) {
  for (const EventRecord& record : instant.outcome.records) {
    if (record.kind == EventRecord::Kind::contact_start) ++result_.contact_starts;
    if (record.kind == EventRecord::Kind::contact_end) ++result_.contact_ends;
    if (record.kind == EventRecord::Kind::bilateral_on ||
        record.kind == EventRecord::Kind::bilateral_off) {
      ++result_.bilateral_switches;
    }
    if (record.kind == EventRecord::Kind::stick || record.kind == EventRecord::Kind::slip) {
      ++result_.stick_slip_switches;
    }
  }
  if (instant.kind == EventInstantKind::state_event) ++result_.state_events;
  if (instant.kind == EventInstantKind::time_event) ++result_.time_events;
  if (observer_ != nullptr) observer_->on_event(instant, x_);
  std::vector<Warning> raised;
  system_.event_warnings(instant.t, instant.outcome, options_.integrator.atol, raised);
  for (Warning& warning : raised) warn(std::move(warning));
  if (instant.kind != EventInstantKind::initialization) check_energy(instant.t, x_);
}

void HybridLoop::warn(Warning warning) {
  warnings_.push_back(warning);
  if (observer_ != nullptr) observer_->on_warning(warnings_.back());
}

void HybridLoop::start_guards() {
  wall_start_ = std::chrono::steady_clock::now();
  stall_window_start_ = wall_start_;
  stall_window_t_ = t_;
  guard_t0_ = t_;
  guard_steps_ = 0.0;
  last_clock_read_ = wall_start_;
  clock_stride_ = 1;
  steps_since_clock_read_ = 0;
  initial_energy_ = system_.passive_energy(x_);
  energy_rise_tolerance_ = system_.energy_rise_tolerance(x_);
}

// A passive system whose energy rises has a numerical fault (a contact started too deep, a law
// too stiff for the tolerance): said once, the run goes on.
void HybridLoop::check_energy(double t, const VectorX& x) {
  if (energy_rise_warned_ || std::isnan(initial_energy_)) return;
  const double energy = system_.passive_energy(x);
  if (!(energy - initial_energy_ > energy_rise_tolerance_)) return;
  energy_rise_warned_ = true;
  warn({t, "energy_rise",
        fmt::format("the total energy rose from {:.6g} J to {:.6g} J by t = {:.9g} s in a scene "
                    "without inputs or actuators (allowed: {:.3g} J): a numerical fault, such as "
                    "a contact started deep inside or a law too stiff for the tolerances",
                    initial_energy_, energy, t, energy_rise_tolerance_)});
}

// After every step: the wall-time limit, the step budget and the stall rule.
bool HybridLoop::work_guard_tripped() {
  guard_steps_ += 1.0;
  if (options_.step_budget > 0.0 &&
      guard_steps_ > options_.step_budget * (t_integrator_ - guard_t0_) + kStepBudgetAllowance) {
    halt(SimulationStatus::step_budget,
         fmt::format("{:.0f} steps by t = {:.17g} s, more than the budget of {:g} per simulated "
                     "second allows",
                     guard_steps_, t_integrator_, options_.step_budget));
    return true;
  }
  // Reading the clock costs some 20 ns: on scenes of microsecond steps it is read every 64 steps,
  // on slow ones every step, so that a limit is overshot by at most about a millisecond or one
  // step's wall time.
  if (++steps_since_clock_read_ < clock_stride_) return false;
  const auto now = std::chrono::steady_clock::now();
  const double since_read = std::chrono::duration<double>(now - last_clock_read_).count();
  const double per_step = since_read / steps_since_clock_read_;
  clock_stride_ =
      per_step > 0.0 ? static_cast<int>(std::clamp(kClockInterval / per_step, 1.0, 64.0)) : 64;
  steps_since_clock_read_ = 0;
  last_clock_read_ = now;
  const double wall = std::chrono::duration<double>(now - wall_start_).count();
  if (options_.time_limit > 0.0 && wall >= options_.time_limit) {
    halt(SimulationStatus::time_limit,
         fmt::format("wall-time limit of {:g} s reached at t = {:.17g} s", options_.time_limit,
                     t_integrator_));
    return true;
  }
  if (options_.stall_window > 0.0 &&
      std::chrono::duration<double>(now - stall_window_start_).count() >= options_.stall_window) {
    const double advanced = t_integrator_ - stall_window_t_;
    const double length = options_.stop_time - options_.start_time;
    if (advanced < options_.stall_fraction * length) {
      const std::string message = fmt::format(
          "simulated time advanced {:.3g} s (less than {:g} of the run's {:g} s) over "
          "{:g} s of wall time, at t = {:.17g} s with steps of {:.3g} s",
          advanced, options_.stall_fraction, length, options_.stall_window, t_integrator_,
          advanced / std::max(1.0, guard_steps_));
      warn({t_integrator_, "stall", message});
      halt(SimulationStatus::stalled, message);
      return true;
    }
    stall_window_start_ = now;
    stall_window_t_ = t_integrator_;
  }
  return false;
}

bool HybridLoop::zeno_guard_tripped(double t) {
  const double window = options_.zeno_window;
  const auto limit =
      static_cast<std::size_t>(std::max(10.0, options_.max_events_per_second * window));
  recent_event_times_.push_back(t);
  const auto first_in_window =
      std::lower_bound(recent_event_times_.begin(), recent_event_times_.end(), t - window);
  recent_event_times_.erase(recent_event_times_.begin(), first_in_window);
  return recent_event_times_.size() > limit;
}

// Restarts the integrator at the loop's time and state (both in sync with the integrator's).
void HybridLoop::restart() {
  // A segment without a step has nothing to add; CVODE keeps the linear-solver counters of the
  // segment before until its first step, which must not be counted twice.
  const IntegratorStats segment = integrator_.segment_statistics();
  if (segment.steps > 0) result_.stats += segment;
  ++result_.restarts;
  t_integrator_ = t_;
  x_integrator_ = x_;
  root_pending_ = false;
  integrator_.reinitialize(t_, x_);
  integrator_.set_max_step(std::min(options_.integrator.max_step, system_.max_step_hint(t_, x_)));
}

void HybridLoop::halt(SimulationStatus status, std::string message) {
  result_.status = status;
  result_.message = std::move(message);
}

void HybridLoop::start(SimulationObserver* observer) {
  if (started_) throw InputError("the simulation has already started");
  started_ = true;
  observer_ = observer;
  rhs_calls_before_ = system_.rhs_evaluation_count();
  t_ = options_.start_time;
  t_integrator_ = t_;
  try {
    x_.resize(system_.state_size());
    x_output_.resize(system_.state_size());
    system_.initial_state(x_);
    x_integrator_ = x_;
    // Initial discrete state and the first output.
    EventInstant initial{EventInstantKind::initialization, t_, {}, system_.initialize(t_, x_)};
    if (!initial.outcome.records.empty()) report_event(std::move(initial));
    initialize_integrator();
    start_guards();
    for (Warning& warning : system_.start_warnings(t_, x_, options_.integrator.atol)) {
      warn(std::move(warning));
    }
    if (observer_ != nullptr) observer_->on_output(t_, x_);
    last_output_time_ = t_;
  } catch (const std::exception& error) {
    halt(SimulationStatus::error, error.what());
  }
}

void HybridLoop::initialize_integrator() {
  IntegratorSettings settings = options_.integrator;
  settings.max_step = std::min(settings.max_step, system_.max_step_hint(t_, x_));
  if (!(settings.min_step > 0.0)) settings.min_step = time_tolerance_;
  integrator_.initialize(system_, t_, x_, settings);
  integrator_started_ = true;
  t_integrator_ = t_;
  x_integrator_ = x_;
}

void HybridLoop::resume(SimulationObserver* observer, const Checkpoint& checkpoint) {
  if (started_) throw InputError("the simulation has already started");
  if (checkpoint.x.size() != system_.state_size()) {
    throw InputError(fmt::format("key 'x' has {} states where the system has {}",
                                 checkpoint.x.size(), system_.state_size()));
  }
  if (!(checkpoint.t >= options_.start_time && checkpoint.t <= options_.stop_time)) {
    throw InputError(fmt::format("key 't' is {:.17g} s, outside the run ({} to {} s)", checkpoint.t,
                                 options_.start_time, options_.stop_time));
  }
  started_ = true;
  observer_ = observer;
  rhs_calls_before_ = system_.rhs_evaluation_count();
  rhs_calls_carried_ = checkpoint.counters.rhs_calls;
  result_ = checkpoint.counters;
  result_.status = SimulationStatus::ok;
  result_.message.clear();
  t_ = checkpoint.t;
  x_ = checkpoint.x;
  x_output_.resize(system_.state_size());
  recent_event_times_ = checkpoint.recent_event_times;
  next_output_index_ = checkpoint.next_output_index;
  last_output_time_ = checkpoint.last_output_time;
  // A checkpoint's discrete state that does not fit the system is bad input, not a failed run.
  system_.restore_discrete_state(t_, x_, checkpoint.discrete);
  try {
    initialize_integrator();
    start_guards();
  } catch (const std::exception& error) {
    halt(SimulationStatus::error, error.what());
  }
}

void HybridLoop::offer_checkpoint() {
  if (checkpoint_sink_ == nullptr || !checkpoint_sink_->checkpoint_due(t_)) return;
  checkpoint_sink_->write_checkpoint(checkpoint());
}

Checkpoint HybridLoop::checkpoint() const {
  Checkpoint checkpoint;
  checkpoint.t = t_;
  checkpoint.x = x_;
  checkpoint.discrete = system_.discrete_state();
  checkpoint.recent_event_times = recent_event_times_;
  checkpoint.next_output_index = next_output_index_;
  checkpoint.last_output_time = last_output_time_;
  checkpoint.counters = result();
  return checkpoint;
}

void HybridLoop::handle_pending_root() {
  t_ = t_integrator_;
  x_ = x_integrator_;
  root_pending_ = false;
  EventInstant instant{EventInstantKind::state_event, t_, pending_roots_,
                       system_.handle_state_event(t_, x_, pending_roots_)};
  report_event(std::move(instant));
  if (zeno_guard_tripped(t_)) {
    halt(SimulationStatus::zeno_guard,
         fmt::format("Zeno guard: more than {:g} events per second over {:g} s of simulated time "
                     "at t = {:.17g} s",
                     options_.max_events_per_second, options_.zeno_window, t_));
    EventRecord stop_record;
    stop_record.t = t_;
    stop_record.kind = EventRecord::Kind::guard_stop;
    stop_record.description = result_.message;
    report_event({EventInstantKind::guard_stop, t_, {}, {false, {stop_record}}});
    return;
  }
  restart();
  offer_checkpoint();
}

void HybridLoop::handle_time_event() {
  t_ = t_integrator_;
  x_ = x_integrator_;
  time_event_pending_ = false;
  EventInstant instant{EventInstantKind::time_event, t_, {}, system_.handle_time_event(t_, x_)};
  report_event(std::move(instant));
  restart();
  offer_checkpoint();
}

double HybridLoop::horizon(double target) const {
  return std::max(options_.stop_time, target);
}

HybridLoop::Stop HybridLoop::advance(double target, bool stop_at_event, bool single_step) {
  if (!started_) throw InputError("advance before start");
  if (result_.status != SimulationStatus::ok) return Stop::halted;
  if (!(target >= t_)) {
    throw InputError(
        fmt::format("advance to t = {:.17g} s: before the current time {:.17g} s", target, t_));
  }
  const double step_horizon = horizon(target);
  // A single step ends where the integrator's current step ends, or after one new step.
  double goal = target;
  bool stepped = false;
  if (single_step && t_integrator_ > t_) {
    goal = std::min(t_integrator_, target);
    stepped = true;
  }
  try {
    while (true) {
      emit_outputs_until(std::min(t_integrator_, goal));
      if (root_pending_ && t_integrator_ <= goal) {
        handle_pending_root();
        if (result_.status != SimulationStatus::ok) return Stop::halted;
        if (stop_at_event) return Stop::event;
        continue;
      }
      // A time event that ended the last step, once reached (at the stop time itself the run ends
      // without it).
      if (time_event_pending_ &&
          (t_integrator_ < goal || (t_integrator_ == goal && goal < options_.stop_time))) {
        handle_time_event();
        if (stop_at_event) return Stop::event;
        continue;
      }
      if (t_integrator_ >= goal) {
        sample(goal, x_);
        t_ = goal;
        return stepped ? Stop::step_taken : Stop::target_reached;
      }
      // A time event due now (or within rounding of now) is handled before stepping.
      const double t_event = system_.next_time_event(t_integrator_);
      if (t_event - t_integrator_ <= time_tolerance_) {
        t_integrator_ = std::max(t_integrator_, t_event);
        handle_time_event();
        if (stop_at_event) return Stop::event;
        continue;
      }

      if (options_.interrupt != nullptr && options_.interrupt->load() != 0) {
        t_ = t_integrator_;
        x_ = x_integrator_;
        halt(SimulationStatus::interrupted,
             fmt::format("interrupted at t = {:.17g} s", t_integrator_));
        return Stop::halted;
      }
      const double t_limit = std::min(step_horizon, t_event);
      const StepResult step = integrator_.step(t_limit);
      if (step.status == StepResult::Status::failure) {
        t_ = t_integrator_;
        x_ = x_integrator_;
        halt(SimulationStatus::step_failure, step.message);
        return Stop::halted;
      }
      // No progress: steps that leave t unchanged to rounding, many times over, are a failure (a
      // method stalled against a singularity), never an endless loop.
      stalled_steps_ = step.t - t_integrator_ > 4.0 * time_tolerance_ ? 0 : stalled_steps_ + 1;
      if (stalled_steps_ > kMaxStalledSteps) {
        t_ = t_integrator_;
        x_ = x_integrator_;
        halt(SimulationStatus::step_failure,
             fmt::format("no progress: {} steps without advancing past t = {:.17g} s",
                         stalled_steps_, t_integrator_));
        return Stop::halted;
      }
      t_integrator_ = step.t;
      if (work_guard_tripped()) {
        // The state at the step's end is kept: outputs up to it, then the final one there.
        integrator_.current_state(x_integrator_);
        emit_outputs_until(t_integrator_);
        t_ = t_integrator_;
        x_ = x_integrator_;
        return Stop::halted;
      }
      if (options_.progress_time != nullptr) {
        options_.progress_time->store(t_integrator_, std::memory_order_relaxed);
      }
      integrator_.current_state(x_integrator_);
      // The bound that keeps contacts from being stepped over depends on the current speeds.
      integrator_.set_max_step(std::min(options_.integrator.max_step,
                                        system_.max_step_hint(t_integrator_, x_integrator_)));
      if (step.status == StepResult::Status::root_found) {
        root_pending_ = true;
        pending_roots_ = step.roots_found;
      } else if (step.status == StepResult::Status::stop_time_reached && t_limit == t_event) {
        time_event_pending_ = true;
      }
      if (single_step) {
        goal = std::min(t_integrator_, target);
        stepped = true;
      }
    }
  } catch (const std::exception& error) {
    halt(SimulationStatus::error, error.what());
    return Stop::halted;
  }
}

void HybridLoop::interrupt(std::vector<EventRecord> records) {
  if (!started_) throw InputError("interrupt before start");
  if (result_.status != SimulationStatus::ok) return;
  try {
    // Lookahead beyond t_ is dropped; the restart does what every time event does (a breakpoint
    // of a signal at t_ is handled with it, contacts are re-examined).
    t_integrator_ = t_;
    x_integrator_ = x_;
    root_pending_ = false;
    time_event_pending_ = false;
    EventOutcome outcome = system_.handle_time_event(t_, x_);
    records.insert(records.end(), outcome.records.begin(), outcome.records.end());
    EventInstant instant{EventInstantKind::time_event, t_, {}, {true, std::move(records)}};
    report_event(std::move(instant));
    restart();
  } catch (const std::exception& error) {
    halt(SimulationStatus::error, error.what());
  }
}

SimulationResult HybridLoop::result() const {
  SimulationResult result = result_;
  result.t_end = t_;
  result.rhs_calls = rhs_calls_carried_ + system_.rhs_evaluation_count() - rhs_calls_before_;
  if (integrator_started_) {
    // The counters of the current segment, if the integrator can still give them.
    try {
      const IntegratorStats segment = integrator_.segment_statistics();
      if (segment.steps > 0) result.stats += segment;
    } catch (const std::exception&) {
    }
  }
  return result;
}

SimulationResult HybridLoop::finish() {
  // The final communication point: the stop time, or where the run stopped.
  if (observer_ != nullptr && t_ > last_output_time_ + time_tolerance_) {
    observer_->on_output(t_, x_);
    last_output_time_ = t_;
  }
  return result();
}

SimulationResult HybridLoop::run(SimulationObserver* observer) {
  start(observer);
  if (result_.status == SimulationStatus::ok) advance(options_.stop_time, false, false);
  return finish();
}

}  // namespace hybridsim
