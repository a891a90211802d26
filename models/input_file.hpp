// Files a scene names (the scene itself, meshes, heightmaps): checked before they are read, so
// that a device (/dev/zero) or a huge file is refused at once with its name, not read for minutes.
#pragma once

#include <cstdint>
#include <string>

namespace hybridsim {

inline constexpr std::uintmax_t kMaxSceneFileBytes = std::uintmax_t{64} << 20;  // 64 MiB
inline constexpr std::uintmax_t kMaxDataFileBytes = std::uintmax_t{1} << 30;    // 1 GiB

// Throws InputError "'PATH' (WHAT): ..." unless `path` is a regular file of at most `max_bytes`.
void check_input_file(const std::string& path, const std::string& what, std::uintmax_t max_bytes);

// The text of a scene file, checked as above: InputError naming the file when it cannot be read.
std::string read_scene_text(const std::string& path);

}  // namespace hybridsim
