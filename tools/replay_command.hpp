// `hybridsim replay OUTDIR|TRAJECTORY -o FILE.html` and `hybridsim plot OUTDIR`: pictures of a
// run made after it, from its files.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "models/scene_import.hpp"

namespace hybridsim {

// The files of one run: a folder written by `hybridsim run --out DIR` (trajectory.csv,
// events.jsonl, contacts.csv, summary.json, diagnostics.csv, those present), or one trajectory
// CSV with the others given one by one.
struct RunFiles {
  std::string trajectory, events, contacts, summary, diagnostics;
};
RunFiles find_run_files(const std::string& folder_or_trajectory);

struct ReplayCommandOptions {
  std::string input;  // OUTDIR or trajectory CSV
  std::string output_html, output_gltf;
  std::string events, contacts, summary;  // override or add to what the folder has
  // The scene: given, else the summary's "source" and "overrides".
  std::optional<std::string> scene;
  std::vector<std::string> overrides;
  ImportOptions import;  // --resource-path, --urdf-root, --default-material
  double budget_mb = 20.0;
};
int replay_command(const ReplayCommandOptions& options);

struct PlotCommandOptions {
  std::string input;  // OUTDIR
  std::string output;
  std::string y, x = "t";
};
int plot_command(const PlotCommandOptions& options);

// The run summary figure (or the columns y against x) of a run's files at `output`: the plot
// script's exit status (0 made; 2 bad input, named on stderr; else it could not run).
int make_run_figure(const RunFiles& files, const std::string& output, const std::string& y = "",
                    const std::string& x = "t");

}  // namespace hybridsim
