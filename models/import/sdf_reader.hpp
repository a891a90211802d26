// SDFormat worlds and models (sdformat.org, spec 1.9) to the scene tree, read by libsdformat:
// worlds, models, nested models and includes (model:// along the resource search path), links
// with inertials and poses (relative_to frames resolved by libsdformat), collisions, joints with
// damping and springs, gravity, and each collision's surface (sdf_surface.hpp). docs/import.md
// maps every element.
#pragma once

#include <string>

#include <yaml-cpp/yaml.h>

#include "models/import/scene_tree.hpp"

namespace hybridsim {

YAML::Node read_sdf(const std::string& text, ImportContext& context);

}  // namespace hybridsim
