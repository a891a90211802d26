// Reading the scene's `wheels` (spec/scene-format.md): each wheel's body, spin axis, radius,
// touching shapes, wheel-slip compliance, plowing and rolling resistance.
#pragma once

#include "core/model.hpp"
#include "models/yaml_reader.hpp"

namespace hybridsim {

// Reads `wheels` into model.wheels (bodies and joints already read). Errors name the file, key
// and value: a wheel without a touching shape, on a fixed or prescribed body or on a body that is
// the child of more than one joint, a zero axis, a negative compliance, a plowing deadband at or
// above its saturation speed, a shape in two wheels.
void read_wheels(MapReader& root, Model& model);

}  // namespace hybridsim
