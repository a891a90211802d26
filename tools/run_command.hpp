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
  bool quiet = false;
  bool progress = false;  // forced on; otherwise on when stderr is a terminal
  std::vector<std::string> overrides;
};

// Runs the scene; returns the process exit status (0 ok, 2 bad input, 3 numerical failure).
int run_command(const RunCommandOptions& options);

}  // namespace hybridsim
