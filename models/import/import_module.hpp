// What the import module (import_module.cpp) and its loader (models/scene_import.cpp) pass each
// other: pointers to the loader's objects, filled in place. Both are built from these sources by
// the same build (the module's version is checked on loading), so the C++ types agree.
#pragma once

#include <string>

#include "models/scene_import.hpp"

namespace hybridsim {

struct ImportRequest {
  enum class Error { none, input, not_supported, other };

  const std::string* text = nullptr;
  const std::string* source = nullptr;
  const ImportOptions* options = nullptr;
  const std::string* output_directory = nullptr;
  ConvertedScene* result = nullptr;  // filled on success
  Error error = Error::none;
  std::string* message = nullptr;  // filled on failure
};

// The module's entry, hybridsim_import_convert.
using ImportConvertFunction = void(ImportRequest*);

}  // namespace hybridsim
