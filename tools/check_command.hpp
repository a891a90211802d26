// `hybridsim check SCENE`: loads a scene without running it and prints what the loader made of
// it: per body its mass, centre of mass, inertia and shapes; per contact-material pair in use its
// law, parameters and where they came from; joints, wheels; the contacts at the start with their
// depths; and the warnings (loader warnings, initial overlaps deeper than --overlap).
#pragma once

#include <string>
#include <vector>

#include "models/scene_import.hpp"

namespace hybridsim {

struct CheckCommandOptions {
  std::string scene;
  std::vector<std::string> overrides;  // --set KEY=VALUE
  ImportOptions import;                // --resource-path, --urdf-root, --default-material
  bool strict = false;                 // exit 1 when there is a warning
  bool json = false;                   // print JSON instead of text
  double overlap = 1e-4;               // m: an initial overlap deeper than this is a warning
};

// Returns the process exit status: 0 ok, 1 a warning with --strict, 2 a load error.
int check_command(const CheckCommandOptions& options);

}  // namespace hybridsim
