// MJCF models (MuJoCo's XML, mujoco.readthedocs.io "XML Reference") to the scene tree: the subset
// of docs/import.md (world body, nested bodies, inertials or density-derived mass, primitive and
// mesh geoms, hinge, slide, ball and free joints, gravity, sliding friction, default classes).
// An element outside it is an error or a warning with its line, never silently dropped.
#pragma once

#include <string>

#include <yaml-cpp/yaml.h>

#include "models/import/scene_tree.hpp"

namespace hybridsim {

YAML::Node read_mjcf(const std::string& text, ImportContext& context);

}  // namespace hybridsim
