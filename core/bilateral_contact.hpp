// Bilateral contacts (seed 003): two bodies held with no relative motion along chosen directions,
// switched on and off at run time, such as a gripper closing on a ladder rung. While on, a
// bilateral contact is a constraint like a joint's (core/joint_constraints.hpp: evaluate_weld);
// its frame and anchor are fixed at the instant it is switched on (design.md §4b: a switch is an
// event with a restart).
#pragma once

#include <array>
#include <string>

#include "core/math.hpp"

namespace hybridsim {

struct BilateralContact {
  // What switches it on or off, besides the host (Simulator::set_bilateral switches any bilateral
  // contact). contact_start: a contact between a shape of body_a and one of body_b starts (on
  // only). time: at `time`. api: nothing but the host. never: off only (no rule switches it off).
  enum class Trigger { contact_start, time, api, never };

  std::string name;  // unique among Model::bilateral_contacts
  int body_a = -1;   // index into Model::bodies: the frame's body
  int body_b = -1;   // index into Model::bodies, != body_a
  // Held directions in the contact frame (x, y: tangents, z: the normal from A to B): relative
  // translation along x, y, z, then relative rotation about x, y, z. All six: a weld.
  std::array<bool, 6> directions{true, true, true, true, true, true};
  Trigger on = Trigger::api;
  double on_time = kNaN;  // s, Trigger::time
  Trigger off = Trigger::never;
  double off_time = kNaN;  // s, Trigger::time

  int direction_count() const {
    int count = 0;
    for (bool held : directions) count += held ? 1 : 0;
    return count;
  }
};

// "contact_start", "time", "api", "never".
const char* to_string(BilateralContact::Trigger trigger);

}  // namespace hybridsim
