// libFuzzer harness: the OBJ mesh reader (vertices for hulls, triangles for meshes) on arbitrary
// file contents, through a real file as the loader reads it. Bad input must be an InputError
// naming the file; anything else is a finding (tools/fuzz.sh).
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <string_view>

#include "core/errors.hpp"
#include "models/mesh_reader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::string path = "/tmp/hybridsim-fuzz-mesh-" + std::to_string(getpid()) + ".obj";
  {
    std::ofstream file(path, std::ios::binary | std::ios::trunc);
    file.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  for (int pass = 0; pass < 2; ++pass) {
    try {
      if (pass == 0) {
        (void)hybridsim::read_mesh_vertices(path);
      } else {
        (void)hybridsim::read_mesh_triangles(path);
      }
    } catch (const hybridsim::InputError& error) {
      if (std::string_view(error.what()).find(path) == std::string_view::npos) {
        std::fprintf(stderr, "a message without the file: %s\n", error.what());
        std::abort();
      }
    }
  }
  return 0;
}
