#include "models/import/scene_tree.hpp"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <filesystem>
#include <numbers>
#include <sstream>
#include <utility>

#include <fmt/format.h>
#include <Eigen/Eigenvalues>

namespace hybridsim {

ImportPose compose(const ImportPose& X_AB, const ImportPose& X_BC) {
  return {X_AB.p + X_AB.q * X_BC.p, X_AB.q * X_BC.q};
}

Quat rotation_from_rpy(const Vec3& rpy) {
  return Quat(Eigen::AngleAxisd(rpy.z(), Vec3::UnitZ()) *
              Eigen::AngleAxisd(rpy.y(), Vec3::UnitY()) *
              Eigen::AngleAxisd(rpy.x(), Vec3::UnitX()));
}

bool is_identity(const Quat& q) {
  return q.w() == 1.0 && q.x() == 0.0 && q.y() == 0.0 && q.z() == 0.0;
}

std::string inertia_problem(const Mat3& inertia) {
  const Vec3 principal = Eigen::SelfAdjointEigenSolver<Mat3>(inertia).eigenvalues();
  if (!(principal.minCoeff() > 0.0)) {
    return fmt::format(
        "the inertia must be positive definite (principal moments {:.6g}, {:.6g}, "
        "{:.6g})",
        principal[0], principal[1], principal[2]);
  }
  for (int i = 0; i < 3; ++i) {
    if (principal[i] > (principal.sum() - principal[i]) * (1.0 + 1e-9)) {
      return fmt::format(
          "principal moments {:.6g}, {:.6g}, {:.6g}: one exceeds the sum of the "
          "other two, which no body has",
          principal[0], principal[1], principal[2]);
    }
  }
  return "";
}

YAML::Node number_node(double value) {
  char text[64];
  const auto result = std::to_chars(text, text + sizeof(text), value);
  // -0 prints as "-0", which YAML reads back as the same signed zero.
  return YAML::Node(std::string(text, result.ptr));
}

YAML::Node numbers_node(const std::vector<double>& values) {
  YAML::Node node(YAML::NodeType::Sequence);
  for (double value : values) node.push_back(number_node(value));
  node.SetStyle(YAML::EmitterStyle::Flow);
  return node;
}

YAML::Node vec3_node(const Vec3& v) {
  return numbers_node({v.x(), v.y(), v.z()});
}

YAML::Node orientation_node(const Quat& q) {
  YAML::Node node;
  node["quaternion"] = numbers_node({q.w(), q.x(), q.y(), q.z()});
  node.SetStyle(YAML::EmitterStyle::Flow);
  return node;
}

void set_pose(YAML::Node node, const ImportPose& pose) {
  if (!pose.p.isZero(0.0)) node["position"] = vec3_node(pose.p);
  if (!is_identity(pose.q)) node["orientation"] = orientation_node(pose.q);
}

YAML::Node inertia_node(const Mat3& I) {
  return numbers_node({I(0, 0), I(1, 1), I(2, 2), I(0, 1), I(0, 2), I(1, 2)});
}

ImportContext::ImportContext(const ImportOptions& options, std::string source,
                             std::string output_directory)
    : options_(options),
      source_(std::move(source)),
      output_directory_(std::move(output_directory)) {}

void ImportContext::warn_once(const std::string& kind, const std::string& message) {
  if (warned_.insert(kind).second) warnings_.push_back(message);
}

YAML::Node limit_node(double lower, double upper, double stiffness, double damping, bool revolute,
                      const std::string& where, ImportContext& context) {
  constexpr double kNoBound = 1e15;
  bool has_lower = lower > -kNoBound;
  bool has_upper = upper < kNoBound;
  // A revolute bound at or past +-pi (URDF's -3.1416, MJCF's -180 degrees) is moved inside by
  // kRevoluteBoundMargin, where the wrapped angle meets it from the right side: the joint stops
  // there, as it does at +-pi in Gazebo and MuJoCo, whose angles do not wrap.
  constexpr double kRevoluteBoundMargin = 0.01;  // rad
  constexpr double kInside = std::numbers::pi - kRevoluteBoundMargin;
  if (revolute && ((has_lower && lower < -kInside) || (has_upper && upper > kInside))) {
    const double new_lower = has_lower ? std::max(lower, -kInside) : lower;
    const double new_upper = has_upper ? std::min(upper, kInside) : upper;
    context.warn_once(
        "limit-wrap|" + where,
        fmt::format("{}: a revolute bound at or past +-pi is moved inside to {:g} "
                    "rad (the joint angle wraps at +-pi); limit [{:g}, {:g}] rad",
                    where, upper > kInside ? kInside : -kInside, has_lower ? new_lower : -kInfinity,
                    has_upper ? new_upper : kInfinity));
    lower = new_lower;
    upper = new_upper;
  }
  if (!has_lower && !has_upper) return {};
  // The wrapped angle would meet a single bound from the far side after a turn (joint_reader).
  if (revolute && !(has_lower && has_upper)) {
    context.warn_once("limit-one-sided|" + where,
                      fmt::format("{}: a revolute limit with one bound is not enforced (the joint "
                                  "angle wraps at +-pi, so it would be met from the far side); "
                                  "the joint turns freely",
                                  where));
    return {};
  }
  if (has_lower && has_upper && !(lower < upper)) {
    context.warn_once("limit-empty|" + where,
                      fmt::format("{}: a limit with lower >= upper ({} >= {}) is not enforced: the "
                                  "joint moves freely (make it fixed to lock it)",
                                  where, lower, upper));
    return {};
  }
  if (!(stiffness > 0.0)) {
    context.warn_once("limit-stiffness|" + where,
                      fmt::format("{}: a limit of stiffness {} is not enforced", where, stiffness));
    return {};
  }
  YAML::Node node;
  if (has_lower) node["lower"] = number_node(lower);
  if (has_upper) node["upper"] = number_node(upper);
  node["stiffness"] = number_node(stiffness);
  if (damping > 0.0) node["damping"] = number_node(damping);
  return node;
}

std::vector<std::string> resource_directories(const ImportOptions& options) {
  std::vector<std::string> directories;
  const auto add_list = [&](const char* list, const char* suffix) {
    if (list == nullptr) return;
    std::stringstream stream(list);
    std::string entry;
    while (std::getline(stream, entry, ':')) {
      if (!entry.empty()) directories.push_back(entry + suffix);
    }
  };
  add_list(std::getenv("ROS_PACKAGE_PATH"), "");
  add_list(std::getenv("AMENT_PREFIX_PATH"), "/share");
  for (const char* variable :
       {"GZ_SIM_RESOURCE_PATH", "IGN_GAZEBO_RESOURCE_PATH", "GAZEBO_MODEL_PATH", "SDF_PATH"}) {
    add_list(std::getenv(variable), "");
  }
  for (const std::string& list : options.resource_paths) add_list(list.c_str(), "");
  return directories;
}

std::string ImportContext::find_file(const std::string& uri, std::string& searched) const {
  namespace fs = std::filesystem;
  searched.clear();
  const auto found = [](const fs::path& path) {
    std::error_code error;
    return fs::is_regular_file(path, error);
  };
  for (const char* scheme : {"package://", "model://"}) {
    const std::string prefix(scheme);
    if (uri.rfind(prefix, 0) != 0) continue;
    const std::string rest = uri.substr(prefix.size());
    std::vector<std::string> tried;
    for (const std::string& directory : resource_directories(options_)) {
      const fs::path candidate = fs::path(directory) / rest;
      if (found(candidate)) return fs::absolute(candidate).lexically_normal().string();
      tried.push_back(directory);
    }
    searched = tried.empty() ? "no directories: set --resource-path or ROS_PACKAGE_PATH"
                             : fmt::format("{}", fmt::join(tried, ":"));
    return "";
  }
  std::string path = uri.rfind("file://", 0) == 0 ? uri.substr(7) : uri;
  fs::path candidate(path);
  if (candidate.is_relative()) candidate = fs::path(source_).parent_path() / candidate;
  if (found(candidate)) return fs::absolute(candidate).lexically_normal().string();
  searched = fs::absolute(candidate).parent_path().string();
  return "";
}

std::string ImportContext::scene_path(const std::string& file) const {
  namespace fs = std::filesystem;
  if (output_directory_.empty()) return file;
  return fs::path(file).lexically_relative(fs::absolute(output_directory_)).string();
}

std::string emit_scene(const YAML::Node& tree, const std::string& source,
                       const std::vector<std::string>& warnings) {
  YAML::Emitter out;
  out << tree;
  std::string text = fmt::format("# Converted by hybridsim from {}\n", source);
  if (!warnings.empty()) {
    text += "# What the scene cannot honour exactly:\n";
    for (const std::string& warning : warnings) text += fmt::format("#   {}\n", warning);
  }
  return text + out.c_str() + "\n";
}

}  // namespace hybridsim
