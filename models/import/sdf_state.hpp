// SDFormat's //world/state: the initial poses and velocities a world file gives its models and
// links (Gazebo applies a world's state when it loads it). libsdformat keeps <state> only as
// elements whose velocity it parses as a pose, turning the angular part into a rotation (and an
// angular speed above pi into another); this reads the numbers from the text itself.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/math.hpp"
#include "models/import/scene_tree.hpp"

namespace hybridsim {

// One <model> of a state (nested ones too) that gives its pose.
struct SdfModelPose {
  std::string model;  // "outer::inner::", the scope its links are named in
  ImportPose X_WM;    // the model frame in world
  std::string where;  // "file:line: <model name='...'>" for messages
};

// One <link> of a state's <model>.
struct SdfLinkState {
  std::string link;                // "model::link", nested models joined by "::"
  std::optional<ImportPose> X_WL;  // the link frame in world, where the state gives it
  bool velocity_given = false;     // whether <velocity> is there (empty: at rest)
  Vec3 linear_W = Vec3::Zero();    // m/s, of the link frame's origin
  Vec3 angular_W = Vec3::Zero();   // rad/s
  std::string where;               // "file:line: <link name='...'>" for messages
};

struct SdfWorldState {
  std::vector<SdfModelPose> models;  // outer models before the models nested in them
  std::vector<SdfLinkState> links;
};

// The first <world>'s first <state> in SDFormat `text` (named `source` in messages). A pose is
// x y z roll pitch yaw (radians, or degrees where `degrees='true'`) or, with
// rotation_format='quat_xyzw', x y z qx qy qz qw; relative to another frame it is a load error (a
// state's poses are in world). Warns through `context` of what else a state holds (joint angles,
// accelerations, wrenches, a scale other than 1), which hybridsim does not read.
SdfWorldState read_sdf_state(const std::string& text, const std::string& source,
                             ImportContext& context);

}  // namespace hybridsim
