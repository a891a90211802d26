#include "tools/batch/trajectory.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "integrators/hybrid_loop.hpp"
#include "models/closed_form.hpp"
#include "models/multibody_system.hpp"

namespace hybridsim::batch {
namespace {

class Recorder final : public SimulationObserver {
 public:
  Recorder(MultibodySystem& system, Trajectory& trajectory)
      : system_(system), trajectory_(trajectory) {}
  void on_output(double t, const VectorX& x) override {
    trajectory_.times.push_back(t);
    trajectory_.states.push_back(x);
    trajectory_.energies.push_back(system_.compute_energy(x));
  }
  void on_event(const EventInstant& instant, const VectorX& /*x*/) override {
    for (const EventRecord& record : instant.outcome.records) {
      using Kind = EventRecord::Kind;
      if (record.kind != Kind::contact_start && record.kind != Kind::contact_end &&
          record.kind != Kind::stick && record.kind != Kind::slip) {
        continue;
      }
      trajectory_.events.push_back(
          {record.pair_a + "|" + record.pair_b + "|" + std::string(to_string(record.kind)),
           record.t});
    }
  }

 private:
  MultibodySystem& system_;
  Trajectory& trajectory_;
};

// Trajectory::max_displacement and late_displacement from the free bodies' origins.
void measure_displacements(const Model& model, Trajectory& trajectory) {
  const std::vector<VectorX>& states = trajectory.states;
  if (states.empty()) return;
  const VectorX& middle = states[(states.size() - 1) / 2];
  for (const Body& body : model.bodies) {
    if (body.state_offset < 0) continue;
    const auto p_WB = [&](const VectorX& x) -> Vec3 { return x.segment<3>(body.state_offset); };
    for (const VectorX& x : states) {
      trajectory.max_displacement =
          std::max(trajectory.max_displacement, (p_WB(x) - p_WB(states.front())).norm());
    }
    trajectory.late_displacement =
        std::max(trajectory.late_displacement, (p_WB(states.back()) - p_WB(middle)).norm());
  }
}

}  // namespace

Trajectory simulate(const Model& model, const std::string& integrator,
                    const IntegratorSettings& settings, double stop_time, int grid_points,
                    double time_limit) {
  using Clock = std::chrono::steady_clock;
  Trajectory trajectory;
  MultibodySystem system(model);
  SimulationOptions options;
  options.stop_time = stop_time;
  options.output_interval = stop_time / grid_points;
  options.integrator = settings;
  options.integrator.max_step = model.simulation.max_step;
  options.max_events_per_second = model.contact.max_events_per_second;
  auto method = make_integrator(integrator);
  HybridLoop loop(system, *method, options);
  Recorder recorder(system, trajectory);

  const Clock::time_point start = Clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - start).count(); };
  bool timed_out = false;
  loop.start(&recorder);
  // One step at a time, so that the wall-time limit is checked between steps.
  while (loop.time() < stop_time) {
    if (loop.advance(stop_time, false, true) == HybridLoop::Stop::halted) break;
    if (elapsed() > time_limit) {
      timed_out = loop.time() < stop_time;
      break;
    }
  }
  trajectory.result = loop.finish();
  measure_displacements(model, trajectory);
  trajectory.wall_time_s = elapsed();
  trajectory.status = timed_out ? "time_limit" : std::string(to_string(trajectory.result.status));
  if (timed_out) {
    trajectory.result.message =
        fmt::format("wall-time limit of {:g} s reached at t = {:.17g} s", time_limit, loop.time());
  }
  return trajectory;
}

Trajectory sample_closed_form(const Model& model, double stop_time, int grid_points) {
  const ClosedForm form = find_closed_form(model);
  MultibodySystem system(model);
  Trajectory trajectory;
  VectorX x(model.state_size);
  for (int k = 0; k <= grid_points; ++k) {
    const double t = k == grid_points ? stop_time : k * (stop_time / grid_points);
    form.state(t, x);
    trajectory.times.push_back(t);
    trajectory.states.push_back(x);
    trajectory.energies.push_back(system.compute_energy(x));
  }
  trajectory.status = "ok";
  trajectory.result.status = SimulationStatus::ok;
  trajectory.result.t_end = stop_time;
  return trajectory;
}

ErrorMeasures compare(const Trajectory& run, const Trajectory& reference, double grid_spacing) {
  ErrorMeasures errors;
  // Grid points of both, matched by time (outputs sit at start + k dt in both runs).
  double squared_sum = 0.0;
  double linf = 0.0;
  double drift = 0.0;
  long matched = 0;
  std::size_t j = 0;
  for (std::size_t i = 0; i < run.times.size(); ++i) {
    while (j < reference.times.size() && reference.times[j] < run.times[i] - 1e-9 * grid_spacing) {
      ++j;
    }
    if (j == reference.times.size()) break;
    if (std::abs(reference.times[j] - run.times[i]) > 1e-9 * grid_spacing) continue;
    const VectorX difference = run.states[i] - reference.states[j];
    squared_sum += difference.squaredNorm();
    linf = std::max(linf, difference.cwiseAbs().maxCoeff());
    drift = std::max(drift, std::abs((run.energies[i] - run.energies.front()) -
                                     (reference.energies[j] - reference.energies.front())));
    ++matched;
  }
  if (matched > 0) {
    errors.l2_error = std::sqrt(squared_sum / static_cast<double>(matched));
    errors.linf_error = linf;
    errors.energy_drift = drift;
  }
  if (run.status == "ok" && reference.status == "ok" && !run.states.empty() &&
      !reference.states.empty()) {
    errors.final_error = (run.states.back() - reference.states.back()).cwiseAbs().maxCoeff();
  }
  // Events: the k-th event of a pair and kind against the reference's k-th.
  std::map<std::string, std::vector<double>> reference_events;
  for (const RecordedEvent& event : reference.events)
    reference_events[event.key].push_back(event.t);
  std::map<std::string, std::size_t> seen;
  double event_error = -1.0;
  for (const RecordedEvent& event : run.events) {
    const std::size_t k = seen[event.key]++;
    const auto found = reference_events.find(event.key);
    if (found == reference_events.end() || k >= found->second.size()) continue;
    event_error = std::max(event_error, std::abs(event.t - found->second[k]));
  }
  if (event_error >= 0.0) errors.event_time_error = event_error;
  errors.event_count_difference =
      static_cast<long>(run.events.size()) - static_cast<long>(reference.events.size());
  return errors;
}

nlohmann::json to_json(const Trajectory& trajectory) {
  nlohmann::json json;
  json["status"] = trajectory.status;
  json["times"] = trajectory.times;
  json["energies"] = trajectory.energies;
  nlohmann::json states = nlohmann::json::array();
  for (const VectorX& x : trajectory.states) {
    states.push_back(std::vector<double>(x.data(), x.data() + x.size()));
  }
  json["states"] = std::move(states);
  nlohmann::json events = nlohmann::json::array();
  for (const RecordedEvent& event : trajectory.events) events.push_back({event.key, event.t});
  json["events"] = std::move(events);
  return json;
}

Trajectory trajectory_from_json(const nlohmann::json& json) {
  Trajectory trajectory;
  trajectory.status = json.at("status").get<std::string>();
  trajectory.times = json.at("times").get<std::vector<double>>();
  trajectory.energies = json.at("energies").get<std::vector<double>>();
  for (const auto& state : json.at("states")) {
    const auto values = state.get<std::vector<double>>();
    trajectory.states.emplace_back(
        Eigen::Map<const VectorX>(values.data(), static_cast<Eigen::Index>(values.size())));
  }
  for (const auto& event : json.at("events")) {
    trajectory.events.push_back({event.at(0).get<std::string>(), event.at(1).get<double>()});
  }
  return trajectory;
}

}  // namespace hybridsim::batch
