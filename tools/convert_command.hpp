// `hybridsim convert FILE -o scene.yaml`: a URDF or MJCF file as the hybridsim scene that
// `hybridsim run FILE` simulates, to read and edit (docs/import.md).
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "models/scene_import.hpp"

namespace hybridsim {

struct ConvertCommandOptions {
  std::string input;
  std::string output;  // empty: standard output
  ImportOptions import;
};

// --resource-path, --urdf-root and --default-material, for every command that loads scenes.
void add_import_options(CLI::App& app, ImportOptions& options);

// Exit status: 0 written, 2 bad input (the message names the file, line and element), 4 the
// output could not be written.
int convert_command(const ConvertCommandOptions& options);

}  // namespace hybridsim
