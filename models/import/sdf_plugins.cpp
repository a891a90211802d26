#include "models/import/sdf_plugins.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <initializer_list>
#include <optional>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include "core/errors.hpp"
#include "models/import/sdf_surface.hpp"

namespace hybridsim {
namespace {

enum class PluginKind { wheel_slip, joint_controller, joint_position_controller, other };

// By the library (gazebo-classic) or system (gz-sim, ignition-gazebo) the plugin names.
PluginKind plugin_kind(const sdf::ElementPtr& plugin) {
  std::string names;
  for (const char* attribute : {"filename", "name"}) {
    if (plugin->HasAttribute(attribute)) {
      names += plugin->GetAttribute(attribute)->GetAsString() + " ";
    }
  }
  const auto has = [&](const char* part) { return names.find(part) != std::string::npos; };
  if (has("WheelSlip") || has("wheel-slip") || has("wheel_slip")) return PluginKind::wheel_slip;
  if (has("JointPositionController") || has("joint-position-controller")) {
    return PluginKind::joint_position_controller;
  }
  if (has("JointController") || has("joint-controller")) return PluginKind::joint_controller;
  return PluginKind::other;
}

// Children of a plugin are kept by libsdformat as text; these read them.
class PluginReader {
 public:
  // `where` names the element in messages (libsdformat keeps no lines inside a plugin: a <wheel>
  // is named after its plugin's line).
  PluginReader(sdf::ElementPtr element, std::string where)
      : element_(std::move(element)), where_(std::move(where)) {}

  const std::string& where() const { return where_; }

  std::optional<std::string> text(const char* key) const {
    if (!element_->HasElement(key)) return std::nullopt;
    return element_->GetElement(key)->Get<std::string>();
  }
  std::optional<double> number(const char* key) const {
    const std::optional<std::string> value = text(key);
    if (!value) return std::nullopt;
    const std::size_t first = value->find_first_not_of(" \t\r\n");
    const std::size_t last = value->find_last_not_of(" \t\r\n");
    double number = 0.0;
    const char* begin = first == std::string::npos ? value->data() : value->data() + first;
    const char* end = last == std::string::npos ? value->data() : value->data() + last + 1;
    const auto [stop, error] = std::from_chars(begin, end, number);
    if (error != std::errc() || stop != end || !std::isfinite(number)) {
      throw InputError(fmt::format("{}: <{}> '{}' is not a finite number", where(), key, *value));
    }
    return number;
  }
  double non_negative(const char* key, double fallback) const {
    const double value = number(key).value_or(fallback);
    if (value < 0.0) {
      throw InputError(fmt::format("{}: <{}> {} must be 0 or more", where(), key, value));
    }
    return value;
  }
  bool boolean(const char* key) const {
    const std::optional<std::string> value = text(key);
    return value && (*value == "true" || *value == "1");
  }

 private:
  sdf::ElementPtr element_;
  std::string where_;
};

// A warning for each child of `element` that is not among `read` (a plugin's setting hybridsim
// does not model: a command clamp, a velocity-command mode, a wheel's unknown setting).
void warn_unread_settings(const sdf::ElementPtr& element,
                          std::initializer_list<std::string_view> read, const std::string& where,
                          ImportContext& context) {
  for (sdf::ElementPtr child = element->GetFirstElement(); child; child = child->GetNextElement()) {
    const std::string name = child->GetName();
    if (std::find(read.begin(), read.end(), name) != read.end()) continue;
    context.warn_once("sdf-plugin-setting|" + name,
                      fmt::format("{}: <{}> is not modelled: ignored", where, name));
  }
}

// The index in tree["joints"] of the joint named `name`, or -1.
int find_joint(const YAML::Node& tree, const std::string& name) {
  const YAML::Node& joints = tree["joints"];
  if (!joints) return -1;
  for (std::size_t i = 0; i < joints.size(); ++i) {
    if (joints[i]["name"].as<std::string>() == name) return static_cast<int>(i);
  }
  return -1;
}

Quat body_orientation(const YAML::Node& tree, const std::string& body) {
  for (const YAML::Node& node : tree["bodies"]) {
    if (node["name"].as<std::string>() != body) continue;
    if (!node["orientation"]) return Quat::Identity();
    const YAML::Node& q = node["orientation"]["quaternion"];
    return Quat(q[0].as<double>(), q[1].as<double>(), q[2].as<double>(), q[3].as<double>());
  }
  return Quat::Identity();
}

void read_wheel_slip(const sdf::ElementPtr& plugin, const std::string& prefix,
                     const std::map<std::string, std::string>& body_names, YAML::Node tree,
                     ImportContext& context) {
  const YAML::Node& read_only = tree;
  warn_unread_settings(plugin, {"wheel"}, locate_sdf_element(plugin, context.source()), context);
  for (sdf::ElementPtr wheel = plugin->HasElement("wheel") ? plugin->GetElement("wheel") : nullptr;
       wheel; wheel = wheel->GetNextElement("wheel")) {
    const std::string link =
        wheel->HasAttribute("link_name") ? wheel->GetAttribute("link_name")->GetAsString() : "";
    const PluginReader reader(wheel,
                              fmt::format("{} <wheel link_name='{}'>",
                                          locate_sdf_element(plugin, context.source()), link));
    const auto body = body_names.find(prefix + link);
    if (body == body_names.end()) {
      throw InputError(fmt::format("{}: the model has no link '{}'", reader.where(), link));
    }
    // The spin axis: that of the revolute joint the wheel hangs on, turned into the wheel's frame.
    std::optional<Vec3> axis_W;
    const YAML::Node& joints = read_only["joints"];
    for (std::size_t j = 0; joints && j < joints.size(); ++j) {
      const YAML::Node& joint = joints[j];
      if (joint["child"].as<std::string>() != body->second ||
          joint["type"].as<std::string>() != "revolute") {
        continue;
      }
      if (axis_W) {
        throw InputError(
            fmt::format("{}: two revolute joints have the link '{}' as their child: "
                        "which axis the wheel spins about is not clear",
                        reader.where(), link));
      }
      axis_W = Vec3(joint["axis"][0].as<double>(), joint["axis"][1].as<double>(),
                    joint["axis"][2].as<double>());
    }
    if (!axis_W) {
      throw InputError(fmt::format(
          "{}: no revolute joint has the link '{}' as its child (a wheel spins about its joint's "
          "axis)",
          reader.where(), link));
    }
    warn_unread_settings(wheel,
                         {"slip_compliance_lateral", "slip_compliance_longitudinal",
                          "wheel_normal_force", "wheel_radius"},
                         reader.where(), context);
    const std::optional<double> normal_force = reader.number("wheel_normal_force");
    if (!normal_force || !(*normal_force > 0.0)) {
      throw InputError(
          fmt::format("{}: <wheel_normal_force> must be given, above 0 N", reader.where()));
    }
    YAML::Node entry;
    entry["name"] = body->second;
    entry["body"] = body->second;
    const Quat q_WB = body_orientation(read_only, body->second);
    entry["axis"] = vec3_node(is_identity(q_WB) ? *axis_W : Vec3(q_WB.conjugate() * *axis_W));
    if (const std::optional<double> radius = reader.number("wheel_radius")) {
      if (!(*radius > 0.0)) {
        throw InputError(fmt::format("{}: <wheel_radius> must be above 0 m", reader.where()));
      }
      entry["radius"] = number_node(*radius);
    }
    entry["normal_force"] = number_node(*normal_force);
    entry["slip_compliance"]["lateral"] =
        number_node(reader.non_negative("slip_compliance_lateral", 0.0));
    entry["slip_compliance"]["longitudinal"] =
        number_node(reader.non_negative("slip_compliance_longitudinal", 0.0));
    entry["slip_compliance"].SetStyle(YAML::EmitterStyle::Flow);
    tree["wheels"].push_back(entry);
  }
}

// JointController and JointPositionController: a servo on each <joint_name>.
void read_joint_controller(const sdf::ElementPtr& plugin, PluginKind kind,
                           const std::string& prefix, YAML::Node tree, ImportContext& context) {
  const PluginReader reader(plugin, locate_sdf_element(plugin, context.source()));
  if (kind == PluginKind::joint_controller) {
    warn_unread_settings(
        plugin,
        {"joint_name", "initial_velocity", "use_force_commands", "p_gain", "i_gain", "d_gain"},
        reader.where(), context);
  } else {
    warn_unread_settings(plugin, {"joint_name", "initial_position", "p_gain", "i_gain", "d_gain"},
                         reader.where(), context);
  }
  YAML::Node servo;
  if (kind == PluginKind::joint_controller) {
    servo["velocity"] = number_node(reader.number("initial_velocity").value_or(0.0));
    if (reader.boolean("use_force_commands")) {
      servo["gain"] = number_node(reader.non_negative("p_gain", 1.0));
      if (reader.number("i_gain").value_or(0.0) != 0.0 ||
          reader.number("d_gain").value_or(0.0) != 0.0) {
        context.warn_once("sdf-plugin-pid", fmt::format("{}: i_gain and d_gain are not modelled "
                                                        "(hybridsim's velocity servo is "
                                                        "proportional)",
                                                        reader.where()));
      }
    } else {
      servo["ideal"] = true;  // Gazebo sets the joint's velocity: a constraint
    }
  } else {
    servo["position"] = number_node(reader.number("initial_position").value_or(0.0));
    servo["kp"] = number_node(reader.non_negative("p_gain", 1.0));
    servo["kd"] = number_node(reader.non_negative("d_gain", 0.0));
    if (reader.number("i_gain").value_or(0.0) != 0.0) {
      context.warn_once("sdf-plugin-pid",
                        fmt::format("{}: i_gain is not modelled (hybridsim's position servo is a "
                                    "spring and damper)",
                                    reader.where()));
    }
  }
  servo.SetStyle(YAML::EmitterStyle::Flow);
  bool named = false;
  for (sdf::ElementPtr name = plugin->HasElement("joint_name") ? plugin->GetElement("joint_name")
                                                               : nullptr;
       name; name = name->GetNextElement("joint_name")) {
    named = true;
    const std::string joint = name->Get<std::string>();
    const int index = find_joint(tree, prefix + joint);
    if (index < 0) {
      throw InputError(fmt::format("{}: the model has no joint '{}'", reader.where(), joint));
    }
    YAML::Node joint_node = tree["joints"][index];
    joint_node["servo"] = YAML::Clone(servo);
    // An ideal servo sets the joint's rate whatever the effort: a limit's spring could not stop
    // it, and the loader refuses the pair.
    if (servo["ideal"] && joint_node["limit"]) {
      joint_node.remove("limit");
      context.warn_once("sdf-plugin-limit|" + joint,
                        fmt::format("{}: joint '{}' keeps its velocity command exactly, so its "
                                    "<limit> is not enforced",
                                    reader.where(), joint));
    }
  }
  if (!named) throw InputError(fmt::format("{}: <joint_name> is required", reader.where()));
}

}  // namespace

void read_sdf_model_plugins(const sdf::ElementPtr& model, const std::string& prefix,
                            const std::map<std::string, std::string>& body_names, YAML::Node tree,
                            ImportContext& context) {
  if (!model || !model->HasElement("plugin")) return;
  for (sdf::ElementPtr plugin = model->GetElement("plugin"); plugin;
       plugin = plugin->GetNextElement("plugin")) {
    const PluginKind kind = plugin_kind(plugin);
    switch (kind) {
      case PluginKind::wheel_slip:
        read_wheel_slip(plugin, prefix, body_names, tree, context);
        break;
      case PluginKind::joint_controller:
      case PluginKind::joint_position_controller:
        read_joint_controller(plugin, kind, prefix, tree, context);
        break;
      case PluginKind::other:
        context.warn_once("sdf-element|plugin",
                          fmt::format("{}: <plugin> is not read (no counterpart in hybridsim's "
                                      "model)",
                                      locate_sdf_element(plugin, context.source())));
        break;
    }
  }
}

}  // namespace hybridsim
