#include "tools/batch/experiment.hpp"

#include <filesystem>
#include <set>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "core/errors.hpp"
#include "models/closed_form.hpp"
#include "models/scene_loader.hpp"
#include "models/yaml_reader.hpp"

namespace hybridsim::batch {
namespace fs = std::filesystem;
namespace {

std::vector<double> positive_list(MapReader& reader, const std::string& key) {
  std::vector<double> values;
  const YAML::Node list = reader.sequence(key);
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string path = fmt::format("{}[{}]", reader.path_of(key), i);
    const double value = read_yaml_number(reader.source(), list[i], path);
    if (!(value > 0.0)) throw_yaml_error(reader.source(), list[i], path, "must be positive");
    values.push_back(value);
  }
  return values;
}

ReferenceChoice read_reference(MapReader& reader, const ReferenceChoice& fallback) {
  ReferenceChoice reference = fallback;
  reference.closed_form = reader.boolean("closed_form", reference.closed_form);
  reference.integrator = reader.string("integrator", reference.integrator);
  reference.rtol = reader.positive("rtol", reference.rtol);
  reference.atol = reader.positive("atol", reference.atol);
  reference.table = reader.string("table", reference.table);
  reference.linear_solver = reader.string("linear_solver", reference.linear_solver);
  reference.step_size = reader.non_negative("step_size", reference.step_size);
  try {
    check_integrator_settings(reference.integrator, {.table = reference.table,
                                                     .linear_solver = reference.linear_solver,
                                                     .step_size = reference.step_size});
  } catch (const InputError& error) {
    reader.fail("integrator", error.what());
  }
  reader.reject_unknown_keys();
  return reference;
}

SceneChoice read_scene(const YAML::Node& node, const std::string& path, const YamlSource& source,
                       const fs::path& folder, const ReferenceChoice& default_reference) {
  SceneChoice scene;
  scene.reference = default_reference;
  if (node.IsScalar()) {
    scene.scene = node.Scalar();
  } else {
    MapReader reader(node, path, source);
    scene.scene = reader.required_string("scene");
    // Without stop_time the scene's own (0 here, as for a scene given by name).
    if (reader.has("stop_time")) scene.stop_time = reader.positive("stop_time", 0.0);
    scene.label = reader.string("label", "");
    if (reader.has("reference")) {
      MapReader reference(reader.get("reference"), reader.path_of("reference"), source);
      scene.reference = read_reference(reference, default_reference);
    }
    reader.reject_unknown_keys();
  }
  // A path relative to the experiment's folder, else a catalog name or a path from here.
  const fs::path relative = folder / scene.scene;
  const bool local = scene.scene.ends_with(".yaml") && fs::is_regular_file(relative);
  try {
    scene.path = resolve_scene_path(local ? relative.string() : scene.scene);
    const Model model = load_scene_file(scene.path);
    scene.name = scene.label.empty() ? model.name : scene.label;
    if (scene.reference.closed_form) find_closed_form(model);  // throws the reason it has none
  } catch (const InputError& error) {
    throw_yaml_error(source, node, path, error.what());
  }
  return scene;
}

IntegratorChoice read_integrator(const YAML::Node& node, const std::string& path,
                                 const YamlSource& source) {
  IntegratorChoice choice;
  std::string label;
  if (node.IsScalar()) {
    choice.name = node.Scalar();
  } else {
    MapReader reader(node, path, source);
    choice.name = reader.required_string("name");
    label = reader.string("label", "");
    choice.table = reader.string("table", "");
    choice.linear_solver = reader.string("linear_solver", "");
    if (reader.has("step_sizes")) choice.step_sizes = positive_list(reader, "step_sizes");
    reader.reject_unknown_keys();
  }
  try {
    const auto list = list_integrators();
    make_integrator(choice.name);
    for (const IntegratorInfo& info : list) {
      if (info.name == choice.name) choice.fixed_step = info.fixed_step;
    }
    if (choice.fixed_step && choice.step_sizes.empty()) {
      throw InputError(fmt::format("the fixed-step integrator {} needs step_sizes", choice.name));
    }
    if (!choice.fixed_step && !choice.step_sizes.empty()) {
      throw InputError(fmt::format("{} is adaptive: give tolerances, not step_sizes", choice.name));
    }
    check_integrator_settings(choice.name, {.table = choice.table,
                                            .linear_solver = choice.linear_solver,
                                            .step_size = choice.fixed_step ? 1.0 : 0.0});
  } catch (const InputError& error) {
    throw_yaml_error(source, node, path, error.what());
  }
  choice.label = label;
  if (label.empty()) {
    choice.label = choice.name;
    if (!choice.table.empty()) choice.label += "/" + choice.table;
    if (!choice.linear_solver.empty()) choice.label += "/" + choice.linear_solver;
  }
  return choice;
}

}  // namespace

Experiment load_experiment(const std::string& path) {
  YamlSource source{path, {}};
  YAML::Node root;
  try {
    root = YAML::LoadFile(path);
  } catch (const YAML::BadFile&) {
    throw InputError(fmt::format("{}: cannot read the experiment file", path));
  } catch (const YAML::ParserException& error) {
    throw InputError(
        fmt::format("{}:{}: not valid YAML: {}", path, error.mark.line + 1, error.msg));
  }
  MapReader reader(root, "", source);
  Experiment experiment;
  experiment.source = path;
  experiment.name = reader.string("name", fs::path(path).stem().string());

  ReferenceChoice default_reference;
  if (reader.has("reference")) {
    MapReader reference(reader.get("reference"), "reference", source);
    default_reference = read_reference(reference, default_reference);
  }
  const fs::path folder = fs::path(path).parent_path();
  reader.require("scenes");
  const YAML::Node scenes = reader.sequence("scenes");
  for (std::size_t i = 0; i < scenes.size(); ++i) {
    experiment.scenes.push_back(
        read_scene(scenes[i], fmt::format("scenes[{}]", i), source, folder, default_reference));
  }
  if (experiment.scenes.empty()) reader.fail("scenes", "needs at least one scene");

  reader.require("integrators");
  const YAML::Node integrators = reader.sequence("integrators");
  std::set<std::string> labels;
  for (std::size_t i = 0; i < integrators.size(); ++i) {
    const std::string item = fmt::format("integrators[{}]", i);
    experiment.integrators.push_back(read_integrator(integrators[i], item, source));
    if (!labels.insert(experiment.integrators.back().label).second) {
      throw_yaml_error(source, integrators[i], item,
                       fmt::format("label '{}' is used twice (give each a `label`)",
                                   experiment.integrators.back().label));
    }
  }
  if (experiment.integrators.empty()) reader.fail("integrators", "needs at least one integrator");

  const bool any_adaptive =
      std::any_of(experiment.integrators.begin(), experiment.integrators.end(),
                  [](const IntegratorChoice& c) { return !c.fixed_step; });
  if (reader.has("tolerances")) {
    MapReader tolerances(reader.get("tolerances"), "tolerances", source);
    experiment.rtols = positive_list(tolerances, "rtol");
    experiment.atol_factor = tolerances.positive("atol_factor", experiment.atol_factor);
    tolerances.reject_unknown_keys();
  }
  if (any_adaptive && experiment.rtols.empty()) {
    reader.fail("tolerances", "adaptive integrators need tolerances: {rtol: [...]}");
  }

  if (reader.has("parameters")) {
    const YAML::Node parameters = reader.get("parameters");
    if (!parameters.IsMap()) {
      throw_yaml_error(source, parameters, "parameters", "must map scene keys to value lists");
    }
    for (const auto& entry : parameters) {
      const std::string key = entry.first.Scalar();
      const std::string item = "parameters." + key;
      if (!entry.second.IsSequence() || entry.second.size() == 0) {
        throw_yaml_error(source, entry.second, item, "must be a non-empty list of values");
      }
      ParameterSweep sweep{key, {}};
      for (const auto& value : entry.second) {
        YAML::Emitter emitter;
        emitter << YAML::Flow << value;
        sweep.values.emplace_back(emitter.c_str());
      }
      // Every value must give a valid scene, checked now rather than in the middle of a batch.
      for (const SceneChoice& scene : experiment.scenes) {
        for (const std::string& value : sweep.values) {
          try {
            load_scene_file(scene.path, {key + "=" + value});
          } catch (const InputError& error) {
            throw_yaml_error(source, entry.second, item, error.what());
          }
        }
      }
      experiment.parameters.push_back(std::move(sweep));
    }
  }
  experiment.repetitions = static_cast<int>(reader.positive("repetitions", 1.0));
  experiment.warmup = reader.boolean("warmup", experiment.warmup);
  experiment.grid_points = static_cast<int>(reader.positive("grid_points", 200.0));
  if (experiment.grid_points < 2) reader.fail("grid_points", "needs at least 2 points");
  experiment.time_limit = reader.positive("time_limit", experiment.time_limit);
  reader.reject_unknown_keys();
  return experiment;
}

std::vector<RunSpec> expand_runs(const Experiment& experiment) {
  // Parameter sets: every combination, the last sweep varying fastest.
  std::vector<std::vector<std::string>> parameter_sets = {{}};
  for (const ParameterSweep& sweep : experiment.parameters) {
    std::vector<std::vector<std::string>> extended;
    for (const auto& set : parameter_sets) {
      for (const std::string& value : sweep.values) {
        extended.push_back(set);
        extended.back().push_back(sweep.key + "=" + value);
      }
    }
    parameter_sets = std::move(extended);
  }
  std::vector<RunSpec> runs;
  int configuration = 0;
  for (int scene = 0; scene < static_cast<int>(experiment.scenes.size()); ++scene) {
    for (const auto& overrides : parameter_sets) {
      std::string parameters;
      for (const std::string& assignment : overrides) {
        parameters += (parameters.empty() ? "" : "; ") + assignment;
      }
      for (int i = 0; i < static_cast<int>(experiment.integrators.size()); ++i) {
        const IntegratorChoice& choice = experiment.integrators[i];
        std::vector<IntegratorSettings> sweep;
        if (choice.fixed_step) {
          for (const double h : choice.step_sizes) sweep.push_back({.step_size = h});
        } else {
          for (const double rtol : experiment.rtols) {
            sweep.push_back({.rtol = rtol, .atol = experiment.atol_factor * rtol});
          }
        }
        for (IntegratorSettings settings : sweep) {
          settings.table = choice.table;
          settings.linear_solver = choice.linear_solver;
          for (int repetition = 0; repetition < experiment.repetitions; ++repetition) {
            runs.push_back({static_cast<int>(runs.size()), configuration, scene, i, overrides,
                            parameters, settings, repetition});
          }
          ++configuration;
        }
      }
    }
  }
  return runs;
}

}  // namespace hybridsim::batch
