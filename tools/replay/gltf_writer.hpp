// glTF 2.0 binary (.glb) of a run: one node per body, named after it, with its shapes as one
// mesh, and one animation whose translation and rotation channels give each moving body's pose at
// every output time and at every event instant that names it.
#pragma once

#include <string>

#include "core/model.hpp"
#include "tools/replay/replay_recording.hpp"

namespace hybridsim {

// Writes `path`. Times and values are 32-bit floats, as glTF requires for animation channels:
// positions keep about 7 significant digits (0.1 micrometre at 1 m from the origin), and two key
// times closer than a float's resolution keep the later pose. InputError if it cannot be written.
void write_gltf(const Model& model, const ReplayRecording& recording, const std::string& path);

}  // namespace hybridsim
