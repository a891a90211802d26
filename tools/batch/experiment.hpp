// A batch experiment (docs/batch.md): scenes, integrators with their options, tolerance or step
// sweeps, parameter sweeps, repetitions and a reference per scene, read from YAML with every
// error naming the file, the line, the key and the value; and its expansion into numbered runs.
#pragma once

#include <string>
#include <vector>

#include "integrators/integrator.hpp"

namespace hybridsim::batch {

// An integrator as the experiment names it.
struct IntegratorChoice {
  std::string label;  // unique in the experiment; default name[/table][/linear_solver]
  std::string name;   // registry name
  std::string table;
  std::string linear_solver;
  std::vector<double> step_sizes;  // s; fixed-step methods (instead of the tolerance sweep)
  bool fixed_step = false;
};

// What a scene's runs are compared with: the scene's closed form (models/closed_form.hpp), or
// an integrator at a tight tolerance, computed once per scene and parameter set, and cached on
// disk.
struct ReferenceChoice {
  bool closed_form = false;  // the exact solution; the integrator settings below are unused
  std::string integrator = "cvode-bdf";
  double rtol = 1e-12;
  double atol = 1e-14;
  std::string table;
  std::string linear_solver;
  double step_size = 0.0;  // s, for a fixed-step reference
};

struct SceneChoice {
  std::string scene;       // catalog name or path (relative paths: from the experiment's folder)
  std::string path;        // the resolved file
  std::string name;        // the scene's name in rows and plots: label, else the scene's own
  std::string label;       // optional, to tell apart two entries of one scene
  double stop_time = 0.0;  // s; 0: the scene's
  ReferenceChoice reference;
};

// One sweep of a scene key (any --set KEY) over values given as YAML text.
struct ParameterSweep {
  std::string key;
  std::vector<std::string> values;
};

struct Experiment {
  std::string name;
  std::string source;  // the experiment file
  std::vector<SceneChoice> scenes;
  std::vector<IntegratorChoice> integrators;
  std::vector<double> rtols;
  double atol_factor = 1e-2;  // atol = atol_factor * rtol
  std::vector<ParameterSweep> parameters;
  int repetitions = 1;        // timed runs per configuration
  bool warmup = true;         // one untimed run before a configuration's timed runs
  int grid_points = 200;      // uniform time grid of the L2 and Linf errors
  double time_limit = 600.0;  // s of wall time per run
};

// One run: a configuration and a repetition. `index` orders every result set.
struct RunSpec {
  int index = 0;
  int configuration = 0;               // runs of one configuration differ only in their repetition
  int scene = 0;                       // into Experiment::scenes
  int integrator = 0;                  // into Experiment::integrators
  std::vector<std::string> overrides;  // KEY=VALUE of the parameter sweeps
  std::string parameters;              // the same as "KEY=VALUE; ..." for rows
  IntegratorSettings settings;         // rtol and atol, or step_size, plus the method options
  int repetition = 0;                  // 0 .. repetitions - 1
};

// Reads an experiment file; InputError naming file, line, key and value.
Experiment load_experiment(const std::string& path);

// Every run of the experiment in a fixed order: scene, parameter set, integrator, tolerance or
// step, repetition.
std::vector<RunSpec> expand_runs(const Experiment& experiment);

}  // namespace hybridsim::batch
