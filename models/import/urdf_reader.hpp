// URDF robot descriptions (wiki.ros.org/urdf/XML) to the scene tree, read by urdfdom; a tinyxml2
// pass first checks what urdfdom reports without a line (missing links, bad masses and inertias).
#pragma once

#include <string>

#include <yaml-cpp/yaml.h>

#include "models/import/scene_tree.hpp"

namespace hybridsim {

YAML::Node read_urdf(const std::string& text, ImportContext& context);

}  // namespace hybridsim
