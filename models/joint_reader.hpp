// Reading the scene's `joints` (spec/scene-format.md): validation, the zero configuration of each
// joint from the bodies' scene poses, and the initial joint positions and velocities applied to
// the bodies.
#pragma once

#include "core/model.hpp"
#include "models/yaml_reader.hpp"

namespace hybridsim {

// Reads `joints` into model.joints (bodies and inputs already read), moves the bodies to the
// joints' initial positions and velocities, and checks that every loop closes there. Inputs
// without a body target must be named by exactly one joint. Errors name the file, key and value.
void read_joints(MapReader& root, Model& model);

}  // namespace hybridsim
