#include "models/import/mjcf_elements.hpp"

#include <cctype>

#include <fmt/format.h>

namespace hybridsim {

namespace {

std::vector<std::string> words(const std::string& text) {
  std::vector<std::string> out;
  std::size_t at = 0;
  while ((at = text.find_first_not_of(" \t\r\n", at)) != std::string::npos) {
    const std::size_t end = text.find_first_of(" \t\r\n", at);
    out.push_back(text.substr(at, end - at));
    at = end;
  }
  return out;
}

// An attribute set over an inherited value. MuJoCo's parser reads `friction` as up to three
// numbers into the values the default class gave (its reader does not require all three): the
// numbers not written keep the class's ("friction='0.5'" under a class of "1 0.02 0.001" is
// "0.5 0.02 0.001"). Every other attribute replaces the inherited value whole.
void overlay(MjcfAttributes& attributes, const std::string& key, const std::string& own) {
  const auto inherited = attributes.find(key);
  // An empty one stays as written: the reader refuses it.
  if (key != "friction" || inherited == attributes.end() || words(own).empty()) {
    attributes[key] = own;
    return;
  }
  const std::vector<std::string> own_words = words(own);
  const std::vector<std::string> class_words = words(inherited->second);
  std::string merged = own;
  for (std::size_t i = own_words.size(); i < class_words.size(); ++i) {
    merged += " " + class_words[i];
  }
  inherited->second = merged;
}

}  // namespace

MjcfDefaults::MjcfDefaults() {
  classes_["main"] = DefaultClass{};
}

void MjcfDefaults::read(const XmlDocument& document, const XmlElement& top) {
  read_class(document, top, DefaultClass{}, true);
}

void MjcfDefaults::read_class(const XmlDocument& document, const XmlElement& element,
                              const DefaultClass& parent, bool top) {
  const std::string name = attribute(element, "class").value_or(top ? "main" : "");
  if (name.empty()) document.fail(element, "a nested default needs a class");
  DefaultClass own = parent;
  for (const XmlElement* child = first_child(element); child; child = next_sibling(*child)) {
    const std::string tag = element_name(*child);
    if (tag == "default") continue;
    MjcfAttributes& attributes = own.by_tag[tag];
    for (const std::string& key : attribute_names(*child)) {
      overlay(attributes, key, *attribute(*child, key.c_str()));
    }
  }
  classes_[name] = own;
  for (const XmlElement* child = first_child(element, "default"); child;
       child = next_sibling(*child, "default")) {
    read_class(document, *child, own, false);
  }
}

MjcfElement MjcfDefaults::resolve(const XmlDocument& document, const XmlElement& element,
                                  const std::string& childclass) const {
  MjcfElement resolved;
  resolved.element = &element;
  const std::string class_name =
      attribute(element, "class").value_or(childclass.empty() ? "main" : childclass);
  const auto found = classes_.find(class_name);
  if (found == classes_.end()) {
    document.fail(element, fmt::format("the default class '{}' does not exist", class_name));
  }
  const auto tag_defaults = found->second.by_tag.find(element_name(element));
  if (tag_defaults != found->second.by_tag.end()) resolved.attributes = tag_defaults->second;
  for (const std::string& key : attribute_names(element)) {
    overlay(resolved.attributes, key, *attribute(element, key.c_str()));
  }
  return resolved;
}

std::vector<double> mjcf_values(const XmlDocument& document, const MjcfElement& element,
                                const char* key, std::size_t count) {
  return numbers_from_text(document, *element.element, key, element.attributes.at(key), count);
}

double mjcf_value(const XmlDocument& document, const MjcfElement& element, const char* key,
                  double fallback) {
  return element.has(key) ? mjcf_values(document, element, key, 1)[0] : fallback;
}

Vec3 mjcf_vec3(const XmlDocument& document, const MjcfElement& element, const char* key,
               const Vec3& fallback) {
  if (!element.has(key)) return fallback;
  const std::vector<double> v = mjcf_values(document, element, key, 3);
  return {v[0], v[1], v[2]};
}

namespace {

// xyaxes: the frame's x axis and (made orthogonal to it) its y axis; checked before normalising,
// since Eigen leaves a zero vector zero.
Quat rotation_from_xy_axes(const XmlDocument& document, const XmlElement& element,
                           const std::vector<double>& v) {
  const Vec3 x_given(v[0], v[1], v[2]), y_given(v[3], v[4], v[5]);
  if (!(x_given.norm() > 1e-12)) document.fail(element, "xyaxes: a zero x axis");
  const Vec3 x = x_given.normalized();
  const Vec3 y = y_given - y_given.dot(x) * x;
  if (!(y.norm() > 1e-12 * y_given.norm()) || !(y.norm() > 0.0)) {
    document.fail(element, "xyaxes: the y axis is zero or along x");
  }
  Mat3 R;
  R << x, y.normalized(), x.cross(y.normalized());
  return Quat(R);
}

}  // namespace

ImportPose mjcf_frame(const XmlDocument& document, const MjcfElement& element,
                      const MjcfAngles& angles) {
  const XmlElement& e = *element.element;
  ImportPose pose;
  pose.p = mjcf_vec3(document, element, "pos", Vec3::Zero());
  int given = 0;
  if (element.has("quat")) {
    ++given;
    const std::vector<double> q = mjcf_values(document, element, "quat", 4);
    pose.q = Quat(q[0], q[1], q[2], q[3]);
    if (!(pose.q.norm() > 1e-12)) document.fail(e, "quat must not be zero");
    pose.q.normalize();
  }
  if (element.has("axisangle")) {
    ++given;
    const std::vector<double> a = mjcf_values(document, element, "axisangle", 4);
    const Vec3 axis(a[0], a[1], a[2]);
    if (!(axis.norm() > 1e-12)) document.fail(e, "axisangle: zero axis");
    pose.q = Quat(Eigen::AngleAxisd(a[3] * angles.scale, axis.normalized()));
  }
  if (element.has("euler")) {
    ++given;
    pose.q = mjcf_euler_rotation(mjcf_vec3(document, element, "euler", Vec3::Zero()) * angles.scale,
                                 angles.eulerseq);
  }
  if (element.has("zaxis")) {
    ++given;
    const Vec3 z = mjcf_vec3(document, element, "zaxis", Vec3::UnitZ());
    if (!(z.norm() > 1e-12)) document.fail(e, "zaxis must not be zero");
    pose.q = Quat::FromTwoVectors(Vec3::UnitZ(), z);
  }
  if (element.has("xyaxes")) {
    ++given;
    pose.q = rotation_from_xy_axes(document, e, mjcf_values(document, element, "xyaxes", 6));
  }
  if (given > 1) document.fail(e, "give one of quat, axisangle, euler, xyaxes, zaxis");
  return pose;
}

Quat mjcf_euler_rotation(const Vec3& angles, const std::string& eulerseq) {
  Quat q = Quat::Identity();
  for (int i = 0; i < 3; ++i) {
    const char axis_name = eulerseq[static_cast<std::size_t>(i)];
    const char lower = static_cast<char>(std::tolower(static_cast<unsigned char>(axis_name)));
    const Vec3 axis = lower == 'x' ? Vec3::UnitX() : lower == 'y' ? Vec3::UnitY() : Vec3::UnitZ();
    const Quat turn(Eigen::AngleAxisd(angles[i], axis));
    q = axis_name == lower ? Quat(q * turn) : Quat(turn * q);
  }
  return q;
}

}  // namespace hybridsim
