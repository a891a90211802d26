#include "tools/replay_command.hpp"

#include <filesystem>
#include <fstream>
#include <iostream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/errors.hpp"
#include "models/scene_loader.hpp"
#include "tools/python_script.hpp"
#include "tools/replay/gltf_writer.hpp"
#include "tools/replay/replay_page.hpp"

namespace fs = std::filesystem;

namespace hybridsim {
namespace {

std::string existing(const fs::path& path) {
  return fs::is_regular_file(path) ? path.string() : std::string();
}

}  // namespace

RunFiles find_run_files(const std::string& folder_or_trajectory) {
  const fs::path input(folder_or_trajectory);
  RunFiles files;
  if (fs::is_directory(input)) {
    files.trajectory = existing(input / "trajectory.csv");
    files.events = existing(input / "events.jsonl");
    files.contacts = existing(input / "contacts.csv");
    files.summary = existing(input / "summary.json");
    files.diagnostics = existing(input / "diagnostics.csv");
    if (files.trajectory.empty()) {
      throw InputError(fmt::format("{}: no trajectory.csv (a folder of hybridsim run --out DIR?)",
                                   folder_or_trajectory));
    }
  } else if (fs::is_regular_file(input)) {
    files.trajectory = input.string();
  } else {
    throw InputError(fmt::format("{}: no such folder or file", folder_or_trajectory));
  }
  return files;
}

int replay_command(const ReplayCommandOptions& options) {
  try {
    RunFiles files = find_run_files(options.input);
    if (!options.events.empty()) files.events = options.events;
    if (!options.contacts.empty()) files.contacts = options.contacts;
    if (!options.summary.empty()) files.summary = options.summary;

    // The scene: as given, else as the summary recorded it.
    std::string scene = options.scene.value_or("");
    std::vector<std::string> overrides = options.overrides;
    if (scene.empty()) {
      if (files.summary.empty()) {
        throw InputError(fmt::format("{}: no summary.json to name the scene; give it with --scene",
                                     options.input));
      }
      std::ifstream file(files.summary);
      try {
        const nlohmann::json summary = nlohmann::json::parse(file);
        scene = summary.at("source").get<std::string>();
        if (summary.contains("overrides")) {
          overrides = summary["overrides"].get<std::vector<std::string>>();
        }
      } catch (const nlohmann::json::exception& error) {
        throw InputError(fmt::format("{}: no scene source ({}); give the scene with --scene",
                                     files.summary, error.what()));
      }
    }
    const Model model = load_scene_file(scene, overrides, options.import);
    const ReplayRecording recording =
        read_replay_recording(model, files.trajectory, files.events, files.contacts, files.summary);
    if (options.output_html.empty() && options.output_gltf.empty()) {
      throw InputError("hybridsim replay: nothing to write (give -o FILE.html or --gltf FILE.glb)");
    }
    if (!(options.budget_mb > 0.0)) {
      throw InputError(
          fmt::format("--budget {}: must be a positive number of MB", options.budget_mb));
    }
    if (!options.output_html.empty()) {
      ReplayPageOptions page;
      page.size_budget_bytes = options.budget_mb * 1e6;
      page.title = model.name;
      const ReplayPageReport report =
          write_replay_page(model, recording, page, options.output_html);
      std::cout << fmt::format("{}: {} of {} frames, {} of {} event poses, {:.1f} MB\n",
                               options.output_html, report.frames_kept, report.frames_recorded,
                               report.event_keys_kept, report.event_keys_recorded,
                               static_cast<double>(report.bytes) / 1e6);
    }
    if (!options.output_gltf.empty()) write_gltf(model, recording, options.output_gltf);
    return 0;
  } catch (const InputError& error) {
    std::cerr << "hybridsim: " << error.what() << '\n';
    return 2;
  } catch (const std::exception& error) {
    std::cerr << "hybridsim: error: " << error.what() << '\n';
    return 3;
  }
}

int make_run_figure(const RunFiles& files, const std::string& output, const std::string& y,
                    const std::string& x) {
  std::vector<std::string> arguments = {"-o", output, "--x", x};
  for (const auto& [flag, path] :
       {std::pair{"--trajectory", files.trajectory}, std::pair{"--diagnostics", files.diagnostics},
        std::pair{"--events", files.events}, std::pair{"--summary", files.summary}}) {
    if (!path.empty()) arguments.insert(arguments.end(), {flag, path});
  }
  if (!y.empty()) arguments.insert(arguments.end(), {"--y", y});
  const std::string script = python_script_path("plot_run.py", HYBRIDSIM_PLOT_RUN_SCRIPT);
  return run_python_script(script, arguments);
}

int plot_command(const PlotCommandOptions& options) {
  try {
    const RunFiles files = find_run_files(options.input);
    const std::string extension = fs::path(options.output).extension().string();
    if (extension != ".png" && extension != ".svg") {
      throw InputError(fmt::format("-o {}: the figure is a .png or .svg file", options.output));
    }
    const int status = make_run_figure(files, options.output, options.y, options.x);
    if (status == 2) return 2;  // bad input, named by the script
    if (status != 0) {
      std::cerr << "hybridsim plot: the figure was not made (see above; it needs python3 with "
                   "matplotlib)\n";
      return 3;
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
