#include "models/import/sdf_state.hpp"

#include <cmath>
#include <numbers>

#include <fmt/format.h>

#include "core/errors.hpp"
#include "models/import/xml_document.hpp"

namespace hybridsim {
namespace {

void warn_unread_state(const XmlDocument& document, const XmlElement& element,
                       ImportContext& context) {
  context.warn_once(
      std::string("sdf-state|") + element_name(element),
      fmt::format("{}: <state> is read for model and link poses and link velocities only; this "
                  "is ignored",
                  document.locate(element)));
}

bool is_blank(const XmlElement& element) {
  return element_text(element).value_or("").find_first_not_of(" \t\r\n") == std::string::npos;
}

// A state's <pose>, in world. Gazebo writes `frame=''`; any other frame is refused.
ImportPose read_state_pose(const XmlDocument& document, const XmlElement& pose) {
  for (const char* key : {"relative_to", "frame"}) {
    const std::string frame = attribute(pose, key).value_or("");
    if (!frame.empty() && frame != "world") {
      throw InputError(fmt::format("{}: a state's pose is in world; {}='{}' is not read",
                                   document.locate(pose), key, frame));
    }
  }
  ImportPose X;
  if (is_blank(pose)) return X;
  const std::string format = attribute(pose, "rotation_format").value_or("euler_rpy");
  if (format == "quat_xyzw") {
    const std::vector<double> v = element_numbers(document, pose, 7);
    X.p = Vec3(v[0], v[1], v[2]);
    X.q = Quat(v[6], v[3], v[4], v[5]);
    if (!(std::abs(X.q.norm() - 1.0) < 1e-6)) {
      throw InputError(fmt::format("{}: the quaternion is not of unit length (|q| = {})",
                                   document.locate(pose), X.q.norm()));
    }
    X.q.normalize();
    return X;
  }
  if (format != "euler_rpy") {
    throw InputError(fmt::format("{}: rotation_format '{}' (euler_rpy or quat_xyzw)",
                                 document.locate(pose), format));
  }
  const std::vector<double> v = element_numbers(document, pose, 6);
  const double unit =
      attribute(pose, "degrees").value_or("false") == "true" ? std::numbers::pi / 180.0 : 1.0;
  X.p = Vec3(v[0], v[1], v[2]);
  X.q = rotation_from_rpy(unit * Vec3(v[3], v[4], v[5]));
  return X;
}

// Gazebo saves <scale>1 1 1</scale> with every model; another scale is not applied.
void read_scale(const XmlDocument& document, const XmlElement& scale, ImportContext& context) {
  if (!is_blank(scale) && element_numbers(document, scale, 3) == std::vector<double>{1, 1, 1}) {
    return;
  }
  warn_unread_state(document, scale, context);
}

SdfLinkState read_link_state(const XmlDocument& document, const XmlElement& link,
                             const std::string& prefix, ImportContext& context) {
  SdfLinkState entry;
  entry.link = prefix + attribute(link, "name").value_or("");
  entry.where = document.locate(link);
  for (const XmlElement* part = first_child(link); part != nullptr; part = next_sibling(*part)) {
    const std::string tag = element_name(*part);
    if (tag == "pose") {
      entry.X_WL = read_state_pose(document, *part);
    } else if (tag == "velocity") {
      // An empty <velocity/> is SDFormat's default, at rest.
      if (!is_blank(*part)) {
        const std::vector<double> values = element_numbers(document, *part, 6);
        entry.linear_W = Vec3(values[0], values[1], values[2]);
        entry.angular_W = Vec3(values[3], values[4], values[5]);
      }
      entry.velocity_given = true;
    } else {
      warn_unread_state(document, *part, context);
    }
  }
  return entry;
}

void read_model_state(const XmlDocument& document, const XmlElement& model,
                      const std::string& scope, ImportContext& context, SdfWorldState& state) {
  const std::string prefix = scope + attribute(model, "name").value_or("") + "::";
  // The model's own pose first: Gazebo's Model::SetState moves the model, then sets its links,
  // then its nested models.
  if (const XmlElement* pose = first_child(model, "pose")) {
    state.models.push_back({prefix, read_state_pose(document, *pose), document.locate(model)});
  }
  for (const XmlElement* child = first_child(model); child != nullptr;
       child = next_sibling(*child)) {
    const std::string tag = element_name(*child);
    if (tag == "link") {
      state.links.push_back(read_link_state(document, *child, prefix, context));
    } else if (tag == "scale") {
      read_scale(document, *child, context);
    } else if (tag != "model" && tag != "pose") {
      warn_unread_state(document, *child, context);
    }
  }
  for (const XmlElement* child = first_child(model, "model"); child != nullptr;
       child = next_sibling(*child, "model")) {
    read_model_state(document, *child, prefix, context, state);
  }
}

}  // namespace

SdfWorldState read_sdf_state(const std::string& text, const std::string& source,
                             ImportContext& context) {
  const XmlDocument document(text, source);
  SdfWorldState state;
  const XmlElement* world = first_child(document.root(), "world");
  const XmlElement* first = world != nullptr ? first_child(*world, "state") : nullptr;
  if (first == nullptr) return state;
  if (next_sibling(*first, "state") != nullptr) {
    warn_unread_state(document, *next_sibling(*first, "state"), context);
  }
  for (const XmlElement* child = first_child(*first); child != nullptr;
       child = next_sibling(*child)) {
    const std::string tag = element_name(*child);
    if (tag == "model") {
      read_model_state(document, *child, "", context, state);
    } else if (tag != "sim_time" && tag != "wall_time" && tag != "real_time" &&
               tag != "iterations") {
      warn_unread_state(document, *child, context);
    }
  }
  return state;
}

}  // namespace hybridsim
