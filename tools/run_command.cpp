#include "tools/run_command.hpp"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/errors.hpp"
#include "hybridsim/simulator.hpp"
#include "integrators/hybrid_loop.hpp"
#include "models/scene_loader.hpp"
#include "tools/checkpoint_file.hpp"
#include "tools/output_file.hpp"
#include "tools/output_writers.hpp"
#include "tools/replay/gltf_writer.hpp"
#include "tools/replay/replay_page.hpp"
#include "tools/replay_command.hpp"

namespace fs = std::filesystem;

namespace hybridsim {
namespace {

// The run options: the command line's where given, else the scene's (checked by the library).
SimulationOptions command_simulation_options(const Model& model, const RunCommandOptions& options) {
  SimulatorConfig config;
  config.integrator = options.integrator.value_or("");
  config.table = options.table.value_or("");
  config.linear_solver = options.linear_solver.value_or("");
  config.step_size = options.step_size;
  config.rtol = options.rtol;
  config.atol = options.atol;
  config.stop_time = options.stop_time;
  config.output_interval = options.output_interval;
  config.time_limit = options.time_limit_s;
  config.step_budget = options.step_budget;
  SimulationOptions sim = make_simulation_options(model, config);
  if (!(sim.output_interval > 0.0)) {
    throw InputError(
        fmt::format("--output-interval = {}: must be a positive number", sim.output_interval));
  }
  if (sim.stop_time / sim.output_interval > kMaxOutputCount) {
    throw InputError(fmt::format(
        "--output-interval = {} s with stop time {} s: {:.3g} outputs, more than {:.0e} (raise "
        "the interval)",
        sim.output_interval, sim.stop_time, sim.stop_time / sim.output_interval, kMaxOutputCount));
  }
  return sim;
}

// The signal (SIGINT, SIGTERM) that asked the run to stop, 0 while none has. Written by the
// handler, read by the hybrid loop between steps.
std::atomic<int> stop_signal{0};
static_assert(std::atomic<int>::is_always_lock_free,
              "a signal handler may only touch lock-free atomics");

extern "C" void request_stop(int signal_number) {
  stop_signal.store(signal_number);
}

// SIGINT and SIGTERM stop the run after the step under way, so that its outputs, summary and
// checkpoint are written; the previous handlers come back when it is over.
class StopOnSignals {
 public:
  StopOnSignals() {
    stop_signal.store(0);
    previous_interrupt_ = std::signal(SIGINT, request_stop);
    previous_terminate_ = std::signal(SIGTERM, request_stop);
  }
  ~StopOnSignals() {
    std::signal(SIGINT, previous_interrupt_);
    std::signal(SIGTERM, previous_terminate_);
  }
  StopOnSignals(const StopOnSignals&) = delete;
  StopOnSignals& operator=(const StopOnSignals&) = delete;

 private:
  void (*previous_interrupt_)(int) = SIG_DFL;
  void (*previous_terminate_)(int) = SIG_DFL;
};

// --out DIR fills in the paths not given; --plot needs the diagnostics and a place for the
// figure. Checked before the run, so that a long run does not end in a refusal.
struct ResolvedOutputs {
  RunCommandOptions options;
  std::string figure_path;  // the run summary figure, with --plot
  bool trajectory_hdf5 = false;
};

// --trajectory-format, or the trajectory path's extension.
bool trajectory_is_hdf5(const RunCommandOptions& options) {
  if (options.trajectory_format == "hdf5") return true;
  if (options.trajectory_format == "csv") return false;
  if (!options.trajectory_format.empty()) {
    throw InputError(
        fmt::format("--trajectory-format '{}': expected csv or hdf5", options.trajectory_format));
  }
  const std::string extension = fs::path(options.trajectory_path).extension().string();
  return extension == ".h5" || extension == ".hdf5";
}

// Two outputs on one path would overwrite each other: refused, naming both (special files such as
// /dev/null may take several).
void refuse_shared_paths(const ResolvedOutputs& resolved) {
  const RunCommandOptions& o = resolved.options;
  const std::pair<const char*, const std::string*> outputs[] = {
      {"--trajectory", &o.trajectory_path},
      {"--events", &o.events_path},
      {"--contacts", &o.contacts_path},
      {"--summary", &o.summary_path},
      {"--diagnostics", &o.diagnostics_path},
      {"--replay", &o.replay_path},
      {"--gltf", &o.gltf_path},
      {"--checkpoint", &o.checkpoint_path},
      {"--plot", &resolved.figure_path}};
  std::map<fs::path, const char*> seen;
  for (const auto& [flag, path] : outputs) {
    if (path->empty()) continue;
    std::error_code error;
    const fs::file_status status = fs::status(*path, error);
    if (fs::exists(status) && !fs::is_regular_file(status)) continue;
    const fs::path key = fs::weakly_canonical(fs::absolute(*path), error);
    const auto [where, inserted] = seen.emplace(key, flag);
    if (!inserted) {
      throw InputError(fmt::format("{} and {} both name {}: each output needs its own file",
                                   where->second, flag, *path));
    }
  }
}

ResolvedOutputs resolve_outputs(const RunCommandOptions& given) {
  ResolvedOutputs resolved{given, ""};
  RunCommandOptions& options = resolved.options;
  if (!options.out_directory.empty()) {
    std::error_code error;
    fs::create_directories(options.out_directory, error);
    if (error) {
      throw InputError(fmt::format("--out {}: cannot create the folder: {}", options.out_directory,
                                   error.message()));
    }
    const fs::path folder(options.out_directory);
    const char* trajectory =
        options.trajectory_format == "hdf5" ? "trajectory.h5" : "trajectory.csv";
    for (auto [path, name] : {std::pair{&options.trajectory_path, trajectory},
                              std::pair{&options.events_path, "events.jsonl"},
                              std::pair{&options.contacts_path, "contacts.csv"},
                              std::pair{&options.summary_path, "summary.json"},
                              std::pair{&options.diagnostics_path, "diagnostics.csv"}}) {
      if (path->empty()) *path = (folder / name).string();
    }
    if (options.plot) resolved.figure_path = (folder / "summary.png").string();
  } else if (options.plot) {
    if (options.trajectory_path.empty()) {
      throw InputError(
          "--plot writes the figure next to the outputs: give --out DIR (or "
          "--trajectory FILE)");
    }
    const fs::path stem = fs::path(options.trajectory_path).replace_extension();
    if (options.diagnostics_path.empty()) {
      options.diagnostics_path = stem.string() + ".diagnostics.csv";
    }
    resolved.figure_path = stem.string() + ".summary.png";
  }
  if (!options.replay_path.empty()) {
    if (!(options.replay_budget_mb > 0.0)) {
      throw InputError(fmt::format("--replay-budget {}: must be a positive number of MB",
                                   options.replay_budget_mb));
    }
    const std::string three = three_js_directory() + "/build/three.min.js";
    if (!fs::is_regular_file(three)) {
      throw InputError(
          fmt::format("--replay: {} is missing; the replay page inlines three.js "
                      "from Debian's libjs-three (apt-get install libjs-three)",
                      three));
    }
  }
  if (options.trajectory_path.empty()) {
    // A selection with nothing to select from: the user meant to write a trajectory.
    const std::pair<const char*, bool> selections[] = {
        {"--trajectory-columns", !options.trajectory_columns.empty()},
        {"--trajectory-instants", options.trajectory_instants != "all"},
        {"--trajectory-max-rate", !std::isinf(options.trajectory_max_rate)},
        {"--trajectory-format", !options.trajectory_format.empty()}};
    for (const auto& [flag, is_given] : selections) {
      if (is_given) {
        throw InputError(fmt::format(
            "{} applies to the trajectory: give --trajectory FILE or --out DIR as well", flag));
      }
    }
  }
  resolved.trajectory_hdf5 = !options.trajectory_path.empty() && trajectory_is_hdf5(options);
  if (resolved.trajectory_hdf5 && !resolved.figure_path.empty()) {
    throw InputError("--plot reads the trajectory as CSV: not with an HDF5 trajectory");
  }
  refuse_shared_paths(resolved);
  return resolved;
}

// The replay page, the glTF and the figure, after the run (whatever its status: they show what
// was computed). Returns the outputs that could not be written.
std::vector<std::string> write_pictures(const Model& model, const ResolvedOutputs& resolved,
                                        const RunWriter& writer) {
  const RunCommandOptions& options = resolved.options;
  std::vector<std::string> failed;
  if (!options.replay_path.empty()) {
    ReplayPageOptions page;
    page.size_budget_bytes = options.replay_budget_mb * 1e6;
    page.title = model.name;
    try {
      write_replay_page(model, writer.replay_recording(), page, options.replay_path);
    } catch (const std::exception& error) {
      std::cerr << "hybridsim: " << error.what() << '\n';
      failed.push_back(options.replay_path);
    }
  }
  if (!options.gltf_path.empty()) {
    try {
      write_gltf(model, writer.replay_recording(), options.gltf_path);
    } catch (const std::exception& error) {
      std::cerr << "hybridsim: " << error.what() << '\n';
      failed.push_back(options.gltf_path);
    }
  }
  if (!resolved.figure_path.empty()) {
    RunFiles files{options.trajectory_path, options.events_path, options.contacts_path,
                   options.summary_path, options.diagnostics_path};
    if (make_run_figure(files, resolved.figure_path) != 0) {
      std::cerr << fmt::format(
          "hybridsim: {}: the run summary figure was not made (it needs "
          "python3 with matplotlib)\n",
          resolved.figure_path);
      failed.push_back(resolved.figure_path);
    }
  }
  return failed;
}

}  // namespace

int run_command(const RunCommandOptions& given_options) {
  try {
    const ResolvedOutputs resolved = resolve_outputs(given_options);
    const RunCommandOptions& options = resolved.options;
    const Model model = load_scene_file(options.scene, options.overrides, options.import);
    SimulationOptions sim = command_simulation_options(model, options);
    const std::string integrator_name = options.integrator.value_or(model.simulation.integrator);
    auto integrator = make_integrator(integrator_name);

    MultibodySystem system(model);
    RunOutputs outputs;
    outputs.trajectory_path = options.trajectory_path;
    outputs.events_path = options.events_path;
    outputs.contacts_path = options.contacts_path;
    outputs.log_events = options.log_events;
    outputs.constraint_wrenches = options.constraint_wrenches;
    if (!options.trajectory_columns.empty()) {
      outputs.trajectory.column_patterns = split_column_patterns(options.trajectory_columns);
    }
    outputs.trajectory.event_rows = trajectory_event_rows(options.trajectory_instants);
    check_trajectory_max_rate(options.trajectory_max_rate, "--trajectory-max-rate");
    outputs.trajectory.max_event_rate = options.trajectory_max_rate;
    outputs.trajectory_hdf5 = resolved.trajectory_hdf5;
    outputs.contact_frames = options.contact_frames;
    outputs.progress = options.progress || (!options.quiet && isatty(STDERR_FILENO) != 0);
    outputs.diagnostics_path = options.diagnostics_path;
    outputs.quiet = options.quiet;
    outputs.record_replay = !options.replay_path.empty() || !options.gltf_path.empty();
    // Opened now, so that an unwritable path is bad input before the run, not after it.
    std::optional<OutputFile> summary_file;
    if (!options.summary_path.empty()) summary_file.emplace(options.summary_path);
    RunWriter writer(system, outputs, sim.start_time, sim.stop_time);

    // A resumed run goes on from the checkpoint's state, counters and wall time.
    std::optional<CheckpointFile> resumed;
    if (!options.resume_path.empty()) {
      resumed = read_checkpoint_file(options.resume_path, model);
      writer.set_initial_energy(resumed->initial_energy);
    }
    if (!options.checkpoint_path.empty() && !(options.checkpoint_interval_s >= 0.0)) {
      throw InputError(fmt::format("--checkpoint-interval {}: must be 0 s or more",
                                   options.checkpoint_interval_s));
    }
    std::optional<CheckpointFileWriter> checkpoints;
    if (!options.checkpoint_path.empty()) {
      checkpoints.emplace(options.checkpoint_path, model, options.checkpoint_interval_s,
                          resumed ? resumed->wall_time_s : 0.0,
                          resumed ? resumed->initial_energy : kNaN);
    }

    const StopOnSignals stop_on_signals;
    sim.interrupt = &stop_signal;
    sim.progress_time = writer.progress_time();
    HybridLoop simulator(system, *integrator, sim);
    writer.set_step_source(&simulator);
    if (checkpoints) simulator.set_checkpoint_sink(&*checkpoints);
    const auto started = std::chrono::steady_clock::now();
    if (resumed) {
      try {
        simulator.resume(&writer, resumed->checkpoint);
      } catch (const InputError& error) {
        throw InputError(fmt::format("{}: checkpoint {}", options.resume_path, error.what()));
      }
    } else {
      simulator.start(&writer);
      if (checkpoints) checkpoints->set_initial_energy(writer.initial_energy());
    }
    if (simulator.result().status == SimulationStatus::ok) {
      simulator.advance(sim.stop_time, false, false);
    }
    const SimulationResult result = simulator.finish();
    // The end of a run that went well, or that was stopped by a signal: it may be continued (to
    // a later stop time, or from where it stopped).
    if (checkpoints &&
        (result.status == SimulationStatus::ok || result.status == SimulationStatus::interrupted ||
         result.status == SimulationStatus::time_limit)) {
      checkpoints->write_checkpoint(simulator.checkpoint());
    }
    const double wall_time =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    std::vector<std::string> unwritten = writer.finish();

    if (summary_file) {
      nlohmann::json summary = make_summary(system, sim, integrator_name, result, simulator.state(),
                                            writer.initial_energy(), wall_time);
      // Where the scene came from, so that `hybridsim replay` can load it again.
      const bool is_file = fs::is_regular_file(options.scene);
      summary["source"] = is_file ? fs::absolute(options.scene).string() : options.scene;
      summary["overrides"] = options.overrides;
      summary["warnings"] = writer.warnings();
      if (resumed) {
        summary["resumed_at"] = resumed->checkpoint.t;
        summary["wall_time_total_s"] = resumed->wall_time_s + wall_time;
      }
      *summary_file << summary.dump(2) << '\n';
      if (!summary_file->commit()) unwritten.push_back(options.summary_path);
    }
    for (const std::string& path : write_pictures(model, resolved, writer)) {
      unwritten.push_back(path);
    }
    if (!options.quiet) {
      std::cout << fmt::format(
          "{}: {} at t = {:.10g} s, {} contact starts, {} contact ends, {} steps, {} RHS "
          "evaluations, {:.3f} s wall\n",
          model.name, to_string(result.status), result.t_end, result.contact_starts,
          result.contact_ends, result.stats.steps, result.stats.rhs_evals, wall_time);
    }
    if (result.status == SimulationStatus::interrupted) {
      std::cerr << fmt::format("hybridsim: {}: {}; the outputs hold the run so far\n",
                               to_string(result.status), result.message);
      return 128 + stop_signal.load();  // the shell's convention for a signal
    }
    if (result.status != SimulationStatus::ok) {
      std::cerr << fmt::format("hybridsim: {}: {}\n", to_string(result.status), result.message);
      return 3;
    }
    // Nothing is lost silently: an output that could not be written fails the run.
    if (!unwritten.empty()) {
      std::cerr << fmt::format("hybridsim: could not write {} (disk full?)\n",
                               fmt::join(unwritten, ", "));
      return 4;
    }
    return 0;
  } catch (const InputError& error) {
    std::cerr << "hybridsim: " << error.what() << '\n';
    return 2;
  } catch (const std::exception& error) {
    std::cerr << "hybridsim: error: " << error.what() << '\n';
    return 3;
  }
}

}  // namespace hybridsim
