#include "integrators/simulator.hpp"

#include <algorithm>
#include <cmath>
#include <exception>

#include <fmt/format.h>

namespace hybridsim {
namespace {
constexpr int kMaxStalledSteps = 1000;
}  // namespace

std::string_view to_string(SimulationStatus status) {
  switch (status) {
    case SimulationStatus::ok:
      return "ok";
    case SimulationStatus::step_failure:
      return "step_failure";
    case SimulationStatus::zeno_guard:
      return "zeno_guard";
    case SimulationStatus::error:
      return "error";
  }
  return "?";
}

Simulator::Simulator(HybridSystem& system, Integrator& integrator, SimulationOptions options)
    : system_(system), integrator_(integrator), options_(std::move(options)) {}

void Simulator::emit_outputs_until(double t_reached, SimulationObserver* observer) {
  const double dt = options_.output_interval;
  if (observer == nullptr || !(dt > 0.0)) return;
  // Output k sits at start + k dt (no accumulated drift); a point within 1e-9 dt past the reached
  // time is taken at the reached time.
  while (true) {
    const double t_out = options_.start_time + static_cast<double>(next_output_index_) * dt;
    if (t_out > t_reached + 1e-9 * dt || t_out > options_.stop_time + 1e-9 * dt) break;
    const double t_sample = std::min(t_out, t_reached);
    integrator_.interpolate(t_sample, x_output_);
    observer->on_output(t_sample, x_output_);
    last_output_time_ = t_sample;
    ++next_output_index_;
  }
}

void Simulator::report_event(EventInstant instant, SimulationObserver* observer,
                             SimulationResult& result) {
  for (const EventRecord& record : instant.outcome.records) {
    if (record.kind == EventRecord::Kind::contact_start) ++result.contact_starts;
    if (record.kind == EventRecord::Kind::contact_end) ++result.contact_ends;
  }
  if (instant.kind == EventInstantKind::state_event) ++result.state_events;
  if (instant.kind == EventInstantKind::time_event) ++result.time_events;
  if (observer != nullptr) observer->on_event(instant, x_);
}

bool Simulator::zeno_guard_tripped(double t) {
  const double window = options_.zeno_window;
  const auto limit =
      static_cast<std::size_t>(std::max(10.0, options_.max_events_per_second * window));
  recent_event_times_.push_back(t);
  const auto first_in_window =
      std::lower_bound(recent_event_times_.begin(), recent_event_times_.end(), t - window);
  recent_event_times_.erase(recent_event_times_.begin(), first_in_window);
  return recent_event_times_.size() > limit;
}

void Simulator::restart(double t, SimulationResult& result) {
  // A segment without a step has nothing to add; CVODE keeps the linear-solver counters of the
  // segment before until its first step, which must not be counted twice.
  const IntegratorStats segment = integrator_.segment_statistics();
  if (segment.steps > 0) result.stats += segment;
  ++result.restarts;
  integrator_.reinitialize(t, x_);
  integrator_.set_max_step(std::min(options_.integrator.max_step, system_.max_step_hint(t, x_)));
}

SimulationResult Simulator::run(SimulationObserver* observer) {
  SimulationResult result;
  const double stop = options_.stop_time;
  const double time_tolerance = 1e-14 * std::max(1.0, std::abs(stop));
  const long rhs_calls_before = system_.rhs_evaluation_count();
  x_.resize(system_.state_size());
  x_output_.resize(system_.state_size());
  system_.initial_state(x_);
  double t = options_.start_time;
  next_output_index_ = 1;
  recent_event_times_.clear();
  int stalled_steps = 0;
  bool integrator_started = false;

  try {
    // Initial discrete state and the first output.
    EventInstant initial{EventInstantKind::initialization, t, {}, system_.initialize(t, x_)};
    if (!initial.outcome.records.empty()) report_event(std::move(initial), observer, result);
    IntegratorSettings settings = options_.integrator;
    settings.max_step = std::min(settings.max_step, system_.max_step_hint(t, x_));
    if (!(settings.min_step > 0.0)) settings.min_step = 1e-14 * std::max(1.0, std::abs(stop));
    integrator_.initialize(system_, t, x_, settings);
    integrator_started = true;
    if (observer != nullptr) observer->on_output(t, x_);
    last_output_time_ = t;

    while (stop - t > time_tolerance) {
      // A time event due now (or within rounding of now) is handled before stepping.
      const double t_event = system_.next_time_event(t);
      if (t_event - t <= time_tolerance) {
        t = t_event;
        EventInstant instant{EventInstantKind::time_event, t, {}, system_.handle_time_event(t, x_)};
        report_event(std::move(instant), observer, result);
        restart(t, result);
        continue;
      }

      const double t_limit = std::min(stop, t_event);
      const StepResult step = integrator_.step(t_limit);
      if (step.status == StepResult::Status::failure) {
        result.status = SimulationStatus::step_failure;
        result.message = step.message;
        break;
      }
      emit_outputs_until(step.t, observer);
      // No progress: steps that leave t unchanged to rounding, many times over, are a failure
      // (a method stalled against a singularity), never an endless loop.
      stalled_steps = step.t - t > 4.0 * time_tolerance ? 0 : stalled_steps + 1;
      if (stalled_steps > kMaxStalledSteps) {
        result.status = SimulationStatus::step_failure;
        result.message = fmt::format("no progress: {} steps without advancing past t = {:.17g} s",
                                     stalled_steps, t);
        break;
      }
      t = step.t;
      integrator_.current_state(x_);
      // The bound that keeps contacts from being stepped over depends on the current speeds.
      integrator_.set_max_step(
          std::min(options_.integrator.max_step, system_.max_step_hint(t, x_)));

      if (step.status == StepResult::Status::root_found) {
        EventInstant instant{EventInstantKind::state_event, t, step.roots_found,
                             system_.handle_state_event(t, x_, step.roots_found)};
        report_event(std::move(instant), observer, result);
        if (zeno_guard_tripped(t)) {
          result.status = SimulationStatus::zeno_guard;
          result.message = fmt::format(
              "Zeno guard: more than {:g} events per second over {:g} s of simulated time at "
              "t = {:.17g} s",
              options_.max_events_per_second, options_.zeno_window, t);
          EventRecord stop_record;
          stop_record.t = t;
          stop_record.kind = EventRecord::Kind::guard_stop;
          stop_record.description = result.message;
          report_event({EventInstantKind::guard_stop, t, {}, {false, {stop_record}}}, observer,
                       result);
          break;
        }
        restart(t, result);
      } else if (step.status == StepResult::Status::stop_time_reached && t_limit == t_event &&
                 t_event < stop) {
        EventInstant instant{EventInstantKind::time_event, t, {}, system_.handle_time_event(t, x_)};
        report_event(std::move(instant), observer, result);
        restart(t, result);
      }
    }
    const IntegratorStats segment = integrator_.segment_statistics();
    if (segment.steps > 0) result.stats += segment;
  } catch (const std::exception& error) {
    result.status = SimulationStatus::error;
    result.message = error.what();
    // The counters of the failed segment, if the integrator can still give them.
    if (integrator_started) {
      try {
        result.stats += integrator_.segment_statistics();
      } catch (const std::exception&) {
      }
    }
  }

  result.t_end = t;
  result.rhs_calls = system_.rhs_evaluation_count() - rhs_calls_before;
  // The final communication point: the stop time, or where the run stopped.
  if (observer != nullptr && t > last_output_time_ + time_tolerance) observer->on_output(t, x_);
  return result;
}

}  // namespace hybridsim
