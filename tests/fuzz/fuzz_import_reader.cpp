// libFuzzer harness: the SDFormat, URDF and MJCF importers (models/scene_import.hpp) on arbitrary
// XML text, then the scene loader on what they make of it (tools/fuzz.sh, seeds: the importers'
// test files and tests/fuzz/corpus/import). Bad input must be an InputError whose message names
// the file; anything else, a crash, a leak, undefined behaviour or more than 2 s, is a finding.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "core/errors.hpp"
#include "models/scene_import.hpp"
#include "models/scene_loader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  // Only the importers: YAML text is fuzz_scene_loader's.
  if (hybridsim::detect_scene_format(text) == hybridsim::SceneFormat::yaml) return 0;
  // libsdformat takes about 4 ms per collision to read (docs/import.md): an SDF world above
  // 16 kB could pass the 2 s limit in libsdformat's own code, not in ours.
  constexpr std::size_t kLargestSdf = 16384;
  if (hybridsim::detect_scene_format(text) == hybridsim::SceneFormat::sdf && size > kLargestSdf) {
    return 0;
  }
  try {
    (void)hybridsim::load_scene_text(text, "fuzz.xml");
  } catch (const hybridsim::InputError& error) {
    const std::string_view message = error.what();
    if (message.find("fuzz.xml") == std::string_view::npos) {
      std::fprintf(stderr, "a message without its file: %s\n", error.what());
      std::abort();
    }
  }
  return 0;
}
