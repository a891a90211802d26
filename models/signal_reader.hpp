// Reading input signals (constant, step, ramp, sine, table) from a scene.
#pragma once

#include <string>

#include "core/signal.hpp"
#include "models/yaml_reader.hpp"

namespace hybridsim {

// The signal described by a map with exactly one of constant, step, ramp, sine and table.
Signal read_signal_map(MapReader& reader);
// The signal under the parent's key `signal`.
Signal read_signal(MapReader& parent);
// The value under `key`: a number is a constant signal (first component), a map a signal as above.
Signal read_signal_or_number(MapReader& parent, const std::string& key);

}  // namespace hybridsim
