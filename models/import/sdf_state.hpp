// SDFormat's //world/state: the initial link velocities a world file gives (Gazebo applies a
// world's state when it loads it). libsdformat keeps <state> only as elements whose velocity it
// parses as a pose, turning the angular part into a rotation (and an angular speed above pi into
// another); this reads the numbers from the text itself.
#pragma once

#include <string>
#include <vector>

#include "core/math.hpp"
#include "models/import/scene_tree.hpp"

namespace hybridsim {

// One <link> of a state's <model>: its velocity in the world frame.
struct SdfLinkVelocity {
  std::string link;               // "model::link", nested models joined by "::"
  Vec3 linear_W = Vec3::Zero();   // m/s, of the link frame's origin
  Vec3 angular_W = Vec3::Zero();  // rad/s
  std::string where;              // "file:line: <link name='...'>" for messages
};

// The link velocities of the first <world>'s first <state> in SDFormat `text` (named `source` in
// messages). Warns through `context` of what else a state holds (poses, joint angles,
// accelerations, wrenches), which hybridsim does not read.
std::vector<SdfLinkVelocity> read_sdf_state_velocities(const std::string& text,
                                                       const std::string& source,
                                                       ImportContext& context);

}  // namespace hybridsim
