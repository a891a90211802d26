// The built-in material palette: models/materials.yaml, compiled in (palette.cpp.in) so that an
// installed or moved binary has it.
#pragma once

namespace hybridsim {

extern const char* const kMaterialPaletteYaml;  // the YAML text of models/materials.yaml

}  // namespace hybridsim
