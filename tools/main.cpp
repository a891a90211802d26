// hybridsim: the command-line front end.
//   hybridsim run SCENE [options]   an event-logged simulation (spec/outputs.md)
//   hybridsim integrators           the integrator names
//   hybridsim list                  the catalog scenes and their references
//   hybridsim batch EXPERIMENT      integrators compared over scenes and tolerances (docs/batch.md)
//   hybridsim batch-merge DIRS      joins the result sets of batch shards
//   hybridsim bench [SCENE...]      times catalog scenes (BENCHMARKS.md)
//   hybridsim check SCENE           what the loader made of a scene, without running it
//   hybridsim convert FILE -o F     a URDF or MJCF file as a hybridsim scene (docs/import.md)
//   hybridsim replay OUTDIR -o F    a run's 3-D replay page (and glTF) from its files
//   hybridsim plot OUTDIR -o F      a run's summary figure, or chosen columns
#include <iostream>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <CLI/CLI.hpp>

#include "hybridsim/version.h"
#include "integrators/integrator.hpp"
#include "models/optional_module.hpp"
#include "models/scene_keys.hpp"
#include "models/scene_loader.hpp"
#include "tools/batch/batch_command.hpp"
#include "tools/bench_command.hpp"
#include "tools/check_command.hpp"
#include "tools/convert_command.hpp"
#include "tools/replay_command.hpp"
#include "tools/run_command.hpp"

int main(int argc, char** argv) {
  CLI::App app{"hybridsim: continuous-time hybrid simulation of rigid bodies in contact"};
  app.set_version_flag(
      "--version",
      [] {
        // The first line is the version; then where each optional module would load from.
        std::string text = "hybridsim " HYBRIDSIM_VERSION_STRING;
        for (const char* module : {"import", "hdf5", "mpi"}) {
          const std::string path = hybridsim::optional_module_path(module);
          text += fmt::format("\nmodule {}: {}", module, path.empty() ? "not installed" : path);
        }
        return text;
      },
      "Print the version (hybridsim X.Y.Z) and where its optional modules are, and exit");
  app.require_subcommand(1);

  hybridsim::RunCommandOptions run;
  CLI::App* run_app =
      app.add_subcommand("run", "Simulate a scene (a YAML, URDF or MJCF file, or a catalog name)");
  run_app->add_option("scene", run.scene, "Scene file or catalog name")->required();
  run_app->add_option("--integrator", run.integrator,
                      "Integrator name (see `hybridsim integrators`)");
  run_app->add_option("--table", run.table, "Butcher table of arkode-erk / arkode-dirk");
  run_app->add_option(
      "--linear-solver", run.linear_solver,
      "Newton linear solver of cvode-bdf (dense, klu, gmres) or arkode-dirk (dense, gmres)");
  run_app->add_option("--step-size", run.step_size, "Step of the fixed-step integrators, s");
  run_app->add_option("--rtol", run.rtol, "Relative tolerance (default: the scene's, else 1e-6)");
  run_app->add_option("--atol", run.atol,
                      "Absolute tolerance (default: the scene's, else 1e-2 rtol)");
  run_app->add_option("--stop-time", run.stop_time, "Stop time, s (default: the scene's, else 1)");
  run_app->add_option("--output-interval", run.output_interval,
                      "Communication interval, s (default: the scene's, else 0.01)");
  run_app->add_option("--trajectory", run.trajectory_path, "Trajectory CSV file");
  run_app->add_option("--events", run.events_path, "Events JSON-lines file");
  run_app->add_option("--contacts", run.contacts_path,
                      "Contact results CSV (per pair in contact, at each output)");
  run_app->add_option("--summary", run.summary_path, "Summary JSON file");
  run_app->add_flag("--constraint-wrenches", run.constraint_wrenches,
                    "Trajectory columns of each joint's and bilateral contact's wrench");
  run_app->add_option("--trajectory-columns", run.trajectory_columns,
                      "Trajectory columns to write: comma-separated names, * and ? allowed "
                      "(e.g. t,ball.*,energy; default: all)");
  run_app->add_option("--trajectory-format", run.trajectory_format,
                      "Trajectory file format: csv or hdf5 (default: hdf5 for a .h5 or .hdf5 "
                      "path, else csv)");
  run_app->add_option("--trajectory-instants", run.trajectory_instants,
                      "Trajectory rows: all (outputs and events, the default) or outputs");
  run_app->add_option("--trajectory-max-rate", run.trajectory_max_rate,
                      "At most this many event rows per simulated second in the trajectory, "
                      "Hz (output rows are always written)");
  run_app->add_flag("--contact-frames", run.contact_frames,
                    "Contacts CSV columns of each point's friction directions and mu");
  run_app->add_flag("--log-events", run.log_events, "Print the human event log on stdout");
  run_app->add_flag("--quiet", run.quiet, "Print nothing but the event log and errors");
  run_app->add_flag("--progress", run.progress, "Show a progress bar on stderr");
  // One value per --set, so that `--set K=V SCENE` leaves SCENE to the scene argument.
  run_app->add_option("--set", run.overrides, "Override a scene value: KEY=VALUE (repeatable)")
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  hybridsim::add_import_options(*run_app, run.import);
  run_app->add_option("--out", run.out_directory,
                      "Write every output into this folder: trajectory.csv, events.jsonl, "
                      "contacts.csv, summary.json, diagnostics.csv (those not given)");
  run_app->add_option("--diagnostics", run.diagnostics_path,
                      "Diagnostics CSV: energy parts, contact count, steps, step size");
  run_app->add_option("--replay", run.replay_path, "3-D replay page (self-contained HTML)");
  run_app
      ->add_option("--replay-budget", run.replay_budget_mb,
                   "Size budget of the replay page, MB; frames are thinned to fit")
      ->capture_default_str();
  run_app->add_option("--gltf", run.gltf_path, "glTF 2.0 binary animation of the run (.glb)");
  run_app->add_flag("--plot", run.plot,
                    "Run summary figure next to the outputs (summary.png with --out)");
  run_app->add_option("--checkpoint", run.checkpoint_path,
                      "Write a checkpoint file (after an event, every --checkpoint-interval)");
  run_app
      ->add_option("--checkpoint-interval", run.checkpoint_interval_s,
                   "Wall time between checkpoints, s")
      ->capture_default_str();
  run_app->add_option("--resume", run.resume_path,
                      "Continue a run from a checkpoint file (same scene and --set values)");
  run_app
      ->add_option("--time-limit", run.time_limit_s,
                   "Wall time after which the run stops with complete outputs (exit 3), s; "
                   "0: none")
      ->capture_default_str();
  run_app
      ->add_option("--step-budget", run.step_budget,
                   "Steps per simulated second beyond which the run stops (exit 3); 0: none")
      ->capture_default_str();
  run_app->footer(
      "Exit status: 0 the stop time was reached; 2 bad input (the message names the file, key "
      "and value); 3 the run stopped early (step failure, Zeno guard, model error, --time-limit, "
      "step budget, stall: simulated time advancing less than 1e-6 of the run over 10 s of wall "
      "time), with complete outputs up to there; 4 an output could not be written; 130 or 143 "
      "SIGINT or SIGTERM, after writing complete outputs.");

  CLI::App* list_app = app.add_subcommand("integrators", "List the integrator names");
  CLI::App* catalog_app = app.add_subcommand(
      "list", "List the catalog scenes with what each is checked against (run them by name)");

  hybridsim::BatchCommandOptions batch;
  bool no_plots = false;
  CLI::App* batch_app = app.add_subcommand(
      "batch", "Compare integrators over scenes and tolerances (also under mpirun)");
  batch_app->add_option("experiment", batch.experiment, "Experiment file (YAML)")->required();
  batch_app->add_option("-j,--jobs", batch.jobs, "Worker threads")->capture_default_str();
  batch_app->add_option("--out", batch.out_directory, "Output folder");
  batch_app->add_option("--shard", batch.shard, "Run slice i of N (i/N), for job arrays");
  batch_app->add_flag("--progress", batch.progress, "Show a progress bar on stderr");
  batch_app->add_flag("--quiet", batch.quiet, "Print only errors");
  batch_app->add_flag("--no-plots", no_plots, "Write the results without plots and report");

  hybridsim::BenchCommandOptions bench;
  CLI::App* bench_app = app.add_subcommand(
      "bench", "Time catalog scenes: wall, RHS and Jacobian evaluations, steps, events, memory");
  bench_app->add_option("scenes", bench.scenes,
                        fmt::format("Catalog names or scene files (default: {})",
                                    fmt::join(hybridsim::default_bench_scenes(), ", ")));
  bench_app->add_option("--repeat", bench.repeat, "Runs per scene; the wall time is their median")
      ->capture_default_str();
  bench_app->add_option("--stop-time", bench.stop_time,
                        "Stop every scene at this time, s (default: each scene's own)");

  hybridsim::CheckCommandOptions check;
  CLI::App* check_app = app.add_subcommand(
      "check", "Load a scene without running it: the resolved model, initial contacts, warnings");
  check_app->add_option("scene", check.scene, "Scene file or catalog name")->required();
  check_app->add_option("--set", check.overrides, "Override a scene value: KEY=VALUE (repeatable)")
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  hybridsim::add_import_options(*check_app, check.import);
  check_app->add_flag("--strict", check.strict, "Exit with status 1 when there is a warning");
  check_app->add_flag("--json", check.json, "Print JSON instead of text");
  check_app
      ->add_option("--overlap", check.overlap, "Initial overlaps deeper than this (m) are warnings")
      ->capture_default_str();

  hybridsim::ConvertCommandOptions convert;
  CLI::App* convert_app = app.add_subcommand(
      "convert", "Write a URDF or MJCF file as the hybridsim scene that `run` simulates");
  convert_app->add_option("input", convert.input, "URDF or MJCF file")->required();
  convert_app->add_option("-o,--output", convert.output, "Scene YAML (default: standard output)");
  hybridsim::add_import_options(*convert_app, convert.import);

  CLI::App* reference_app = app.add_subcommand(
      "reference", "Print the scene format's reference (every key; docs/scene-reference.md)");

  hybridsim::ReplayCommandOptions replay;
  CLI::App* replay_app = app.add_subcommand(
      "replay", "Write a run's 3-D replay page (and glTF) from its output folder or trajectory");
  replay_app
      ->add_option("input", replay.input, "Folder of hybridsim run --out, or a trajectory CSV")
      ->required();
  replay_app->add_option("-o,--output", replay.output_html, "Replay page (.html)");
  replay_app->add_option("--gltf", replay.output_gltf, "glTF 2.0 binary animation (.glb)");
  replay_app->add_option("--scene", replay.scene,
                         "The run's scene (default: the summary's source)");
  replay_app
      ->add_option("--set", replay.overrides, "Override a scene value: KEY=VALUE (repeatable)")
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  hybridsim::add_import_options(*replay_app, replay.import);
  replay_app->add_option("--events", replay.events, "Events JSON-lines file");
  replay_app->add_option("--contacts", replay.contacts, "Contacts CSV file");
  replay_app->add_option("--summary", replay.summary, "Summary JSON file");
  replay_app->add_option("--budget", replay.budget_mb, "Size budget of the page, MB")
      ->capture_default_str();

  hybridsim::PlotCommandOptions plot;
  CLI::App* plot_app = app.add_subcommand(
      "plot", "Plot a run's output folder: the run summary figure, or --y columns against --x");
  plot_app->add_option("input", plot.input, "Folder of hybridsim run --out")->required();
  plot_app->add_option("-o,--output", plot.output, "Figure (.png or .svg)")->required();
  plot_app->add_option("--y", plot.y,
                       "Columns, comma-separated: body.NAME.Q, energy.total, contacts.count, ...");
  plot_app->add_option("--x", plot.x, "Column of the x axis")->capture_default_str();

  hybridsim::MergeCommandOptions merge;
  CLI::App* merge_app =
      app.add_subcommand("batch-merge", "Join the result sets of batch shards into one");
  merge_app->add_option("inputs", merge.inputs, "Result folders of the shards")->required();
  merge_app->add_option("--out", merge.out_directory, "Output folder");
  merge_app->add_flag("--no-plots", no_plots, "Write the results without plots and report");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    // Help and version exit 0; a usage error is bad input, status 2.
    const int status = app.exit(error);
    return status == 0 ? 0 : 2;
  }

  if (*list_app) {
    for (const auto& info : hybridsim::list_integrators()) {
      std::cout << fmt::format("{:<20} {}\n", info.name, info.description);
      if (!info.tables.empty()) {
        std::cout << fmt::format("{:<20}   table: {} (default {})\n", "",
                                 fmt::join(info.tables, ", "), info.tables.front());
      }
      if (!info.linear_solvers.empty()) {
        std::cout << fmt::format("{:<20}   linear_solver: {} (default {})\n", "",
                                 fmt::join(info.linear_solvers, ", "), info.linear_solvers.front());
      }
      if (info.fixed_step) std::cout << fmt::format("{:<20}   needs step_size, s\n", "");
    }
    return 0;
  }
  if (*reference_app) {
    std::cout << hybridsim::format_scene_reference();
    return 0;
  }
  if (*catalog_app) {
    int broken = 0;
    for (const auto& entry : hybridsim::list_catalog()) {
      if (!entry.error.empty()) {
        std::cerr << fmt::format("{}: {}\n", entry.name, entry.error);
        ++broken;
        continue;
      }
      std::cout << fmt::format("{:<24} {}\n{:<24}   reference: {}\n", entry.name, entry.description,
                               "", entry.reference.empty() ? "(none given)" : entry.reference);
    }
    return broken == 0 ? 0 : 1;
  }
  if (*batch_app) {
    batch.plots = !no_plots;
    return hybridsim::batch_command(batch, &argc, &argv);
  }
  if (*bench_app) return hybridsim::bench_command(bench);
  if (*check_app) return hybridsim::check_command(check);
  if (*convert_app) return hybridsim::convert_command(convert);
  if (*replay_app) return hybridsim::replay_command(replay);
  if (*plot_app) return hybridsim::plot_command(plot);
  if (*merge_app) {
    merge.plots = !no_plots;
    return hybridsim::batch_merge_command(merge);
  }
  return hybridsim::run_command(run);
}
