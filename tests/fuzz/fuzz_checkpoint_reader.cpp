// libFuzzer harness: the checkpoint reader (hybridsim run --resume) on arbitrary file contents,
// against Newton's cradle. Bad input must be an InputError naming the file; anything else is a
// finding (tools/fuzz.sh).
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <string_view>

#include "core/errors.hpp"
#include "models/scene_loader.hpp"
#include "tools/checkpoint_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const hybridsim::Model model = hybridsim::load_scene_file("newtons_cradle");
  static const std::string path =
      "/tmp/hybridsim-fuzz-checkpoint-" + std::to_string(getpid()) + ".json";
  {
    std::ofstream file(path, std::ios::binary | std::ios::trunc);
    file.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  try {
    (void)hybridsim::read_checkpoint_file(path, model);
  } catch (const hybridsim::InputError& error) {
    if (std::string_view(error.what()).find(path) == std::string_view::npos) {
      std::fprintf(stderr, "a message without the file: %s\n", error.what());
      std::abort();
    }
  }
  return 0;
}
