// `hybridsim run SCENE [options]`.
#pragma once

#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "models/scene_import.hpp"

namespace hybridsim {

struct RunCommandOptions {
  std::string scene;
  std::optional<std::string> integrator;
  std::optional<std::string> table, linear_solver;
  std::optional<double> rtol, atol, stop_time, output_interval, step_size;
  std::string trajectory_path, events_path, summary_path, contacts_path;
  // --out DIR: every output there under its usual name (unless given); the diagnostics CSV.
  std::string out_directory, diagnostics_path;
  std::string replay_path, gltf_path;  // replay page (HTML) and glTF binary, written at the end
  double replay_budget_mb = 20.0;
  bool plot = false;  // the run summary figure next to the outputs
  bool log_events = false;
  bool constraint_wrenches = false;  // trajectory columns <name>.fx .. .tz (and .on)
  // --trajectory-columns PATTERNS, --trajectory-instants all|outputs, --trajectory-max-rate HZ.
  std::string trajectory_columns, trajectory_instants = "all";
  std::string trajectory_format;  // csv | hdf5; empty: hdf5 for a path ending .h5 or .hdf5
  double trajectory_max_rate = std::numeric_limits<double>::infinity();
  bool contact_frames = false;  // contacts CSV columns tangent1_x .. mu2
  bool quiet = false;
  bool progress = false;  // forced on; otherwise on when stderr is a terminal
  std::vector<std::string> overrides;
  ImportOptions import;  // --resource-path, --urdf-root, --default-material
  // Checkpoints: written to checkpoint_path after the first event every checkpoint_interval_s
  // seconds of wall time, and at the end of a run that went well; resume_path continues a run
  // from one (the same scene and overrides; a later stop time extends a finished run).
  std::string checkpoint_path, resume_path;
  double checkpoint_interval_s = 600.0;
  // Work guard (SimulationOptions): wall-time limit (s, 0: none) and steps per simulated second.
  double time_limit_s = 0.0;
  double step_budget = 1e9;
};

// Runs the scene; returns the process exit status (0 ok, 2 bad input, 3 stopped early: a
// numerical failure or the work guard, 4 an output not written, 128 + signal).
int run_command(const RunCommandOptions& options);

}  // namespace hybridsim
