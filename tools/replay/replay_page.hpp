// The replay page: one self-contained HTML file (three.js and its OrbitControls from Debian's
// libjs-three inlined, the run's data in it) that plays a run in a browser from disk.
#pragma once

#include <cstddef>
#include <string>

#include "core/model.hpp"
#include "tools/replay/replay_recording.hpp"

namespace hybridsim {

struct ReplayPageOptions {
  // Bytes the page may take; frames are thinned in time to fit, event instants kept first.
  double size_budget_bytes = 20e6;
  std::string title;  // the scene's name
};

// What the page holds of the recording.
struct ReplayPageReport {
  std::size_t frames_recorded = 0, frames_kept = 0;
  std::size_t event_keys_recorded = 0, event_keys_kept = 0;
  std::size_t bytes = 0;
};

// The folder of three.js: $HYBRIDSIM_THREE_DIR, else Debian's /usr/share/javascript/three.
std::string three_js_directory();

// Writes the page to `path`. InputError when three.js is missing, the file cannot be written or
// the budget cannot hold the first and last frames.
ReplayPageReport write_replay_page(const Model& model, const ReplayRecording& recording,
                                   const ReplayPageOptions& options, const std::string& path);

}  // namespace hybridsim
