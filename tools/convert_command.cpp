#include "tools/convert_command.hpp"

#include <filesystem>
#include <iostream>

#include "core/errors.hpp"

namespace hybridsim {

void add_import_options(CLI::App& app, ImportOptions& options) {
  app.add_option("--resource-path", options.resource_paths,
                 "Directories (colon-separated) for package:// and model:// URIs, searched after "
                 "ROS_PACKAGE_PATH, AMENT_PREFIX_PATH, GZ_SIM_RESOURCE_PATH, GAZEBO_MODEL_PATH "
                 "and SDF_PATH")
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  app.add_option("--urdf-root", options.urdf_root,
                 "URDF: the root link 'fixed' to the world or 'floating'")
      ->check(CLI::IsMember({"fixed", "floating"}))
      ->capture_default_str();
  app.add_option("--default-material", options.default_material,
                 "Palette material of imported shapes, whose files state no contact law")
      ->capture_default_str();
}

int convert_command(const ConvertCommandOptions& options) {
  try {
    // Written with the output's folder known, so that mesh paths are relative to it.
    const ConvertedScene converted =
        convert_scene_file(options.input, options.import, options.output);
    for (const std::string& warning : converted.warnings) {
      std::cerr << "hybridsim convert: warning: " << warning << '\n';
    }
    if (options.output.empty()) std::cout << converted.yaml;
  } catch (const InputError& error) {
    const bool write_failed = std::string(error.what()).find("cannot write") != std::string::npos;
    std::cerr << "hybridsim convert: " << error.what() << '\n';
    return write_failed ? 4 : 2;
  }
  return 0;
}

}  // namespace hybridsim
