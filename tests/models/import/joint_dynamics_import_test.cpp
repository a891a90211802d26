// Joint limits and friction of imported files. Limits (models/import/scene_tree.hpp: limit_node):
// URDF's <limit> with SDFormat's default stiffness and dissipation, SDFormat's <limit> with its
// own, and the bounds the joint model cannot enforce given as warnings. Friction: URDF's and
// SDFormat's <dynamics friction>, MJCF's frictionloss. Their physics: tests/physics/
// joint_limit_test.cpp and joint_friction_test.cpp.
#include <doctest/doctest.h>

#include <string>

#include "import_test_support.hpp"
#include "models/import/scene_tree.hpp"
#include "models/scene_import.hpp"

namespace hybridsim {
namespace {

using testing::import_data;

std::string joined(const std::vector<std::string>& warnings) {
  std::string text;
  for (const std::string& warning : warnings) text += warning + "\n";
  return text;
}

// A URDF rotor on a revolute joint with the given <limit> attributes.
std::string urdf_rotor(const std::string& type, const std::string& limit) {
  return "<robot name='r'>\n<link name='base'/>\n"
         "<link name='rotor'><inertial><mass value='1'/>"
         "<inertia ixx='0.1' iyy='0.1' izz='0.2' ixy='0' ixz='0' iyz='0'/></inertial></link>\n"
         "<joint name='hinge' type='" +
         type + "'>\n<parent link='base'/><child link='rotor'/><axis xyz='0 0 1'/>" + limit +
         "</joint>\n</robot>";
}

TEST_CASE("URDF limits: bounds with SDFormat's default stiffness and dissipation, once warned") {
  const Model arm = load_scene_file(import_data("two_link_arm.urdf"));
  for (const Joint& joint : arm.joints) {
    CAPTURE(joint.name);
    CHECK(joint.limit.enabled);
    CHECK(joint.limit.lower == -3.0);
    CHECK(joint.limit.upper == 3.0);
    CHECK(joint.limit.stiffness == kSdfLimitStiffness);  // SDFormat's <stiffness> default, 1e8
    CHECK(joint.limit.damping == kSdfLimitDissipation);  // and <dissipation>, 1
  }
  const ConvertedScene converted = convert_scene_text(
      urdf_rotor("prismatic", "<limit lower='-0.1' upper='0.2' effort='1' velocity='1'/>"),
      "r.urdf");
  CHECK(converted.yaml.find("    limit:\n      lower: -0.1\n      upper: 0.2\n      stiffness: "
                            "1e+08\n      damping: 1\n") != std::string::npos);
  CHECK(joined(converted.warnings)
            .find("r.urdf:4: <joint name='hinge'>: the limit is a spring-damper of stiffness 1e+08 "
                  "and damping 1 (SDFormat's defaults") != std::string::npos);
}

TEST_CASE(
    "URDF limits the model cannot enforce: warnings naming the joint, the joint moves freely") {
  // lower = upper (URDF's defaults of 0 when only effort and velocity are given).
  const ConvertedScene empty =
      convert_scene_text(urdf_rotor("revolute", "<limit effort='1' velocity='1'/>"), "r.urdf");
  CHECK(empty.yaml.find("limit:") == std::string::npos);
  CHECK(joined(empty.warnings)
            .find("r.urdf:4: <joint name='hinge'>: a limit with lower >= upper (0 >= 0) is not "
                  "enforced") != std::string::npos);
  // Revolute bounds at or past pi: the angle wraps there; the bound inside is kept.
  const ConvertedScene wrap = convert_scene_text(
      urdf_rotor("revolute", "<limit lower='-3.2' upper='1' effort='1' velocity='1'/>"), "r.urdf");
  CHECK(wrap.yaml.find("    limit:\n      upper: 1\n      stiffness: 1e+08\n") !=
        std::string::npos);
  CHECK(joined(wrap.warnings).find("at or past +-pi is not enforced") != std::string::npos);
  // A continuous joint has no limit.
  const ConvertedScene continuous = convert_scene_text(urdf_rotor("continuous", ""), "r.urdf");
  CHECK(continuous.yaml.find("limit:") == std::string::npos);
}

// An SDFormat rotor on a revolute joint with the given <limit> children.
std::string sdf_rotor(const std::string& limit) {
  return "<sdf version='1.9'><world name='w'><gravity>0 0 0</gravity><model name='m'>\n"
         "<link name='rotor'><inertial><mass>1</mass><inertia><ixx>0.1</ixx><iyy>0.1</iyy>"
         "<izz>0.2</izz></inertia></inertial></link>\n"
         "<joint name='hinge' type='revolute'><parent>world</parent><child>rotor</child>\n"
         "<axis><xyz>0 0 1</xyz>" +
         limit + "</axis></joint></model></world></sdf>";
}

TEST_CASE("SDF limits: bounds, stiffness and dissipation as the file gives them") {
  const Model model = load_scene_text(
      sdf_rotor("<limit><lower>-1</lower><upper>0.5</upper><stiffness>200</stiffness>"
                "<dissipation>2</dissipation></limit>"),
      "w.sdf");
  REQUIRE(model.joints.size() == 1);
  CHECK(model.joints[0].limit.enabled);
  CHECK(model.joints[0].limit.lower == -1.0);
  CHECK(model.joints[0].limit.upper == 0.5);
  CHECK(model.joints[0].limit.stiffness == 200.0);
  CHECK(model.joints[0].limit.damping == 2.0);
  // Without <stiffness> and <dissipation>: SDFormat's defaults, 1e8 and 1.
  const Model defaults =
      load_scene_text(sdf_rotor("<limit><lower>-1</lower><upper>0.5</upper></limit>"), "w.sdf");
  CHECK(defaults.joints[0].limit.stiffness == 1e8);
  CHECK(defaults.joints[0].limit.damping == 1.0);
  // Without <limit>: libsdformat's +-1e16, no limit, no warning.
  const ConvertedScene free = convert_scene_text(sdf_rotor(""), "w.sdf");
  CHECK(free.yaml.find("limit:") == std::string::npos);
  CHECK(joined(free.warnings).find("limit") == std::string::npos);
}

TEST_CASE("joint friction from URDF, SDFormat and MJCF: the file's value, no warning") {
  const Model urdf = load_scene_text(
      urdf_rotor("continuous", "<dynamics damping='0.1' friction='0.25'/>"), "r.urdf");
  CHECK(urdf.joints[0].friction == 0.25);
  CHECK(urdf.joints[0].damping == 0.1);
  const ConvertedScene sdf =
      convert_scene_text(sdf_rotor("<dynamics><friction>0.5</friction></dynamics>"), "w.sdf");
  CHECK(sdf.yaml.find("    friction: 0.5\n") != std::string::npos);
  CHECK(joined(sdf.warnings).find("friction") == std::string::npos);
  const ConvertedScene mjcf = convert_scene_text(
      "<mujoco><worldbody><body name='rotor'><inertial pos='0 0 0' mass='1' "
      "diaginertia='0.1 0.1 0.2'/><joint name='hinge' type='hinge' axis='0 0 1' "
      "frictionloss='0.3'/></body></worldbody></mujoco>",
      "m.xml");
  CHECK(mjcf.yaml.find("    friction: 0.3\n") != std::string::npos);
  CHECK(joined(mjcf.warnings).find("frictionloss") == std::string::npos);
}

}  // namespace
}  // namespace hybridsim
