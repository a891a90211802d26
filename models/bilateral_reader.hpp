// Reading the scene's `bilateral_contacts` (spec/scene-format.md): switched welds between two
// bodies, with their held directions and what switches them on and off.
#pragma once

#include "core/model.hpp"
#include "models/yaml_reader.hpp"

namespace hybridsim {

// Reads `bilateral_contacts` into model.bilateral_contacts (bodies already read). Errors name the
// file, key and value: an unknown or repeated body, two fixed bodies, an empty or unknown
// direction, a trigger that does not apply (`on: never`, `off: contact_start`), a time that is
// negative or not finite, an off time not after the on time, a duplicate name.
void read_bilateral_contacts(MapReader& root, Model& model);

}  // namespace hybridsim
