// MJCF's element model (MuJoCo's XML reference, "Default settings" and "Frame orientations"): the
// default classes that give elements their attributes, and frames from pos and one of quat,
// axisangle, euler, xyaxes, zaxis in the compiler's angle unit and Euler sequence.
#pragma once

#include <cstddef>
#include <map>
#include <numbers>
#include <string>
#include <vector>

#include "core/math.hpp"
#include "models/import/scene_tree.hpp"
#include "models/import/xml_document.hpp"

namespace hybridsim {

using MjcfAttributes = std::map<std::string, std::string>;

// An element's effective attributes: its class's defaults overlaid by its own.
struct MjcfElement {
  const XmlElement* element = nullptr;
  MjcfAttributes attributes;
  bool has(const std::string& key) const { return attributes.count(key) != 0; }
  std::string text(const std::string& key, const std::string& fallback) const {
    const auto found = attributes.find(key);
    return found == attributes.end() ? fallback : found->second;
  }
};

// <compiler angle eulerseq>: degrees by default, Euler angles about x, y, z turning with the frame.
struct MjcfAngles {
  double scale = std::numbers::pi / 180.0;  // radians per unit of the file's angles
  std::string eulerseq = "xyz";
};

// The default classes: "main" (the top <default>) and its nested classes, each inheriting its
// parent's attributes per element tag.
class MjcfDefaults {
 public:
  MjcfDefaults();
  // A top-level <default> and the classes nested in it.
  void read(const XmlDocument& document, const XmlElement& top);
  // The element's attributes over those of its `class`, else `childclass` (the enclosing body's),
  // else main. Fails naming the element for an unknown class.
  MjcfElement resolve(const XmlDocument& document, const XmlElement& element,
                      const std::string& childclass) const;

 private:
  struct DefaultClass {
    std::map<std::string, MjcfAttributes> by_tag;  // element tag -> attributes
  };
  void read_class(const XmlDocument& document, const XmlElement& element,
                  const DefaultClass& parent, bool top);
  std::map<std::string, DefaultClass> classes_;
};

// An attribute's numbers (`count` of them, any when 0), one number or a 3-vector, failing with
// the element's line.
std::vector<double> mjcf_values(const XmlDocument& document, const MjcfElement& element,
                                const char* key, std::size_t count);
double mjcf_value(const XmlDocument& document, const MjcfElement& element, const char* key,
                  double fallback);
Vec3 mjcf_vec3(const XmlDocument& document, const MjcfElement& element, const char* key,
               const Vec3& fallback);

// An element's frame in its parent's: pos, and one of quat (w x y z), axisangle, euler, xyaxes,
// zaxis.
ImportPose mjcf_frame(const XmlDocument& document, const MjcfElement& element,
                      const MjcfAngles& angles);

// Euler angles (radians) in a sequence such as "xyz": a lowercase axis turns with the frame
// (intrinsic, multiplied on the right), an uppercase one stays fixed (extrinsic, on the left).
Quat mjcf_euler_rotation(const Vec3& angles, const std::string& eulerseq);

}  // namespace hybridsim
