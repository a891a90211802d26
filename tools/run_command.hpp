// `hybridsim run SCENE [options]`.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace hybridsim {

struct RunCommandOptions {
  std::string scene;
  std::optional<std::string> integrator;
  std::optional<std::string> table, linear_solver;
  std::optional<double> rtol, atol, stop_time, output_interval, step_size;
  std::string trajectory_path, events_path, summary_path, contacts_path;
  bool log_events = false;
  bool constraint_wrenches = false;  // trajectory columns <name>.fx .. .tz (and .on)
  bool contact_frames = false;       // contacts CSV columns tangent1_x .. mu2
  bool quiet = false;
  bool progress = false;  // forced on; otherwise on when stderr is a terminal
  std::vector<std::string> overrides;
  // Checkpoints: written to checkpoint_path after the first event every checkpoint_interval_s
  // seconds of wall time, and at the end of a run that went well; resume_path continues a run
  // from one (the same scene and overrides; a later stop time extends a finished run).
  std::string checkpoint_path, resume_path;
  double checkpoint_interval_s = 600.0;
};

// Runs the scene; returns the process exit status (0 ok, 2 bad input, 3 numerical failure).
int run_command(const RunCommandOptions& options);

}  // namespace hybridsim
