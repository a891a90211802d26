// One simulation of a batch, recorded for comparison: the states and energies on the uniform
// output grid, the contact events, the counters and the wall time; and the error measures of a
// run against its reference (docs/batch.md defines them).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/model.hpp"
#include "integrators/simulation.hpp"

namespace hybridsim::batch {

struct RecordedEvent {
  std::string key;  // "pair_a|pair_b|kind": events are matched by pair and kind, in order
  double t = 0.0;   // s
};

struct Trajectory {
  std::vector<double> times;     // s: start + k (stop - start) / grid_points, then where it ended
  std::vector<VectorX> states;   // at those times
  std::vector<double> energies;  // J, at those times
  std::vector<RecordedEvent> events;
  SimulationResult result;
  std::string status;        // to_string(result.status), or "time_limit"
  double wall_time_s = 0.0;  // s, start to finish of the run
  // m, max over the grid and the free bodies of |p_WB(t) - p_WB(0)|; and max over the free
  // bodies of |p_WB(end) - p_WB(middle)|, the middle output of the grid: creep after settling.
  // Not kept in the reference cache, which compares states.
  double max_displacement = 0.0;
  double late_displacement = 0.0;
};

// Runs a scene with an integrator to stop_time with outputs on a grid of grid_points intervals;
// stops with status "time_limit" after time_limit seconds of wall time. InputError for bad
// settings; numerical failures are statuses.
Trajectory simulate(const Model& model, const std::string& integrator,
                    const IntegratorSettings& settings, double stop_time, int grid_points,
                    double time_limit);

// The model's closed form (models/closed_form.hpp) on the same grid as simulate's outputs, with
// status "ok" and no contact events; InputError if the model has none.
Trajectory sample_closed_form(const Model& model, double stop_time, int grid_points);

struct ErrorMeasures {
  double final_error = kNaN;        // max |x - x_ref| over the states at the stop time
  double l2_error = kNaN;           // time-RMS over the grid of the Euclidean norm of x - x_ref
  double linf_error = kNaN;         // max over the grid and the states of |x - x_ref|
  double event_time_error = kNaN;   // s, max |t - t_ref| over the events matched by pair, kind
  long event_count_difference = 0;  // contact events of the run minus the reference's
  double energy_drift = kNaN;       // J, max over the grid of |(E - E0) - (E_ref - E_ref0)|
};

ErrorMeasures compare(const Trajectory& run, const Trajectory& reference, double grid_spacing);

// Lossless JSON of a trajectory, for the reference cache.
nlohmann::json to_json(const Trajectory& trajectory);
Trajectory trajectory_from_json(const nlohmann::json& json);

}  // namespace hybridsim::batch
