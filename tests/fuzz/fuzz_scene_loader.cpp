// libFuzzer harness: the scene loader on arbitrary YAML text (tools/fuzz.sh). Bad input must be
// an InputError whose message names the scene file (and so its key and value); anything else, a
// crash, a leak, undefined behaviour or more than 2 s (libFuzzer's -timeout), is a finding.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "core/errors.hpp"
#include "models/scene_loader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    (void)hybridsim::load_scene_text(text, "fuzz.yaml");
  } catch (const hybridsim::InputError& error) {
    const std::string_view message = error.what();
    // A scene's error names the scene; one about a file it refers to names that file.
    if (message.find("fuzz.yaml") == std::string_view::npos &&
        message.find(": ") == std::string_view::npos) {
      std::fprintf(stderr, "a message without its file or key: %s\n", error.what());
      std::abort();
    }
  }
  return 0;
}
