// What the importers share: frames (poses composed as the scene loader composes them), YAML nodes
// for the scene tree with numbers that read back exactly, the search for package:// and model://
// files, and the warnings of an import.
#pragma once

#include <set>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "core/math.hpp"
#include "models/scene_import.hpp"

namespace hybridsim {

// X_AB: frame B's origin and orientation in frame A.
struct ImportPose {
  Vec3 p = Vec3::Zero();
  Quat q = Quat::Identity();
};
ImportPose compose(const ImportPose& X_AB, const ImportPose& X_BC);
// R = Rz(yaw) Ry(pitch) Rx(roll), the scene loader's rpy (fixed axes x, y, z).
Quat rotation_from_rpy(const Vec3& rpy);
bool is_identity(const Quat& q);

// Why a symmetric tensor is no rigid body's inertia (not positive definite, or a principal moment
// above the sum of the other two beyond 1e-9 relative, the rounding of given numbers: the scene
// loader's rule for `inertia`), or empty when it is one.
std::string inertia_problem(const Mat3& inertia);

// A number as the shortest text that reads back as the same double (0.1, not
// 0.10000000000000001).
YAML::Node number_node(double value);
// [a, b, c] in flow style.
YAML::Node numbers_node(const std::vector<double>& values);
YAML::Node vec3_node(const Vec3& v);
// {quaternion: [w, x, y, z]}.
YAML::Node orientation_node(const Quat& q);
// position and orientation keys of a body or shape, each only when it is not the identity.
void set_pose(YAML::Node node, const ImportPose& pose);
// [Ixx, Iyy, Izz, Ixy, Ixz, Iyz] of a symmetric matrix.
YAML::Node inertia_node(const Mat3& inertia);

// The state of one import: options, the file, where relative paths start, the warnings.
class ImportContext {
 public:
  ImportContext(const ImportOptions& options, std::string source, std::string output_directory);

  const ImportOptions& options() const { return options_; }
  const std::string& source() const { return source_; }
  // A warning, once per `kind` (the first element's line stands for the rest).
  void warn_once(const std::string& kind, const std::string& message);
  std::vector<std::string> take_warnings() { return std::move(warnings_); }

  // The file a mesh reference names: package://PKG/rest, model://MODEL/rest, file:///abs, or a
  // path relative to the imported file. Empty when it cannot be found; `searched` then lists the
  // directories tried.
  std::string find_file(const std::string& uri, std::string& searched) const;
  // How the scene writes a file's path: relative to the output's folder, or absolute.
  std::string scene_path(const std::string& file) const;

 private:
  const ImportOptions& options_;
  std::string source_;
  std::string output_directory_;
  std::set<std::string> warned_;
  std::vector<std::string> warnings_;
};

// SDFormat's stiffness and dissipation of a joint limit that states none (`<limit>`'s
// `<stiffness>` and `<dissipation>` defaults): what URDF limits get, as Gazebo gives them.
inline constexpr double kSdfLimitStiffness = 1e8;    // N m/rad or N/m
inline constexpr double kSdfLimitDissipation = 1.0;  // N m s/rad or N s/m

// The `limit` map of a revolute or prismatic joint (docs/scene-format.md) from a file's bounds;
// bounds beyond +-1e15 are none. A null node (not a map), with a warning naming `where`, for what
// the joint model cannot enforce: a revolute bound at or past +-pi (the coordinate wraps there:
// that bound is left out), lower >= upper, a stiffness that is not positive.
YAML::Node limit_node(double lower, double upper, double stiffness, double damping, bool revolute,
                      const std::string& where, ImportContext& context);

// The directories of the environment variables and --resource-path, in search order.
std::vector<std::string> resource_directories(const ImportOptions& options);

// The scene tree as YAML text, under a comment naming its source and its warnings.
std::string emit_scene(const YAML::Node& tree, const std::string& source,
                       const std::vector<std::string>& warnings);

}  // namespace hybridsim
