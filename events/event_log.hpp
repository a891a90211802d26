// The human event log in the format of seed 002 (spec/outputs.md):
//
//   State event (zero-crossing) at time = 0.4515236409 s (due to z[2])
//       distance(ground/plate,ball/0) = -2.000000001e-13 became <= 0
//       contact normal = [0, 0, 1], contact position = [0, 0, -1e-13], c_res = 1.1e+11, d_res =
//       0.06 restart = Restart
//
// The distance printed is the force-law distance distanceOrg + contact_eps, as in the seed.
#pragma once

#include <span>
#include <string>

#include "core/hybrid_system.hpp"

namespace hybridsim {

// The log entry of one event instant, each line ending in a newline.
std::string format_event_log_entry(const EventInstant& instant);

}  // namespace hybridsim
