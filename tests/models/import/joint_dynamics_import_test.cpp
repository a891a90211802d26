// Joint limits and friction of imported files. Limits (models/import/scene_tree.hpp: limit_node):
// URDF's <limit> with SDFormat's default stiffness and dissipation, SDFormat's <limit> with its
// own, and the bounds the joint model cannot enforce given as warnings. Friction: URDF's and
// SDFormat's <dynamics friction>, MJCF's frictionloss. Their physics: tests/physics/
// joint_limit_test.cpp and joint_friction_test.cpp.
#include <doctest/doctest.h>

#include <numbers>
#include <string>

#include "core/errors.hpp"
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
  // A revolute bound at or past pi: the angle wraps there, so the bound moves inside by 0.01 rad,
  // where the joint stops as it does at -pi in Gazebo (whose angle does not wrap).
  const Model wrap = load_scene_text(
      urdf_rotor("revolute", "<limit lower='-3.2' upper='1' effort='1' velocity='1'/>"), "r.urdf");
  CHECK(wrap.joints[0].limit.lower == -(std::numbers::pi - 0.01));
  CHECK(wrap.joints[0].limit.upper == 1.0);
  const ConvertedScene wrap_text = convert_scene_text(
      urdf_rotor("revolute", "<limit lower='-3.2' upper='1' effort='1' velocity='1'/>"), "r.urdf");
  CHECK(joined(wrap_text.warnings).find("a revolute bound at or past +-pi is moved inside") !=
        std::string::npos);
  // Both bounds inside: kept as they are.
  const ConvertedScene inside = convert_scene_text(
      urdf_rotor("revolute", "<limit lower='-3.1' upper='1' effort='1' velocity='1'/>"), "r.urdf");
  CHECK(inside.yaml.find("    limit:\n      lower: -3.1\n      upper: 1\n") != std::string::npos);
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
  // One bound only (libsdformat's 1e16 for the other): the wrapped angle would meet it from the
  // far side after a turn, so the joint turns freely, with a warning.
  const ConvertedScene one_sided =
      convert_scene_text(sdf_rotor("<limit><lower>-1</lower></limit>"), "w.sdf");
  CHECK(one_sided.yaml.find("limit:") == std::string::npos);
  CHECK(joined(one_sided.warnings).find("a revolute limit with one bound is not enforced") !=
        std::string::npos);
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

// An MJCF rotor on a joint of the given type and attributes, under the given <compiler>.
std::string mjcf_rotor(const std::string& compiler, const std::string& joint) {
  return "<mujoco>" + compiler +
         "<worldbody><body name='rotor'><inertial pos='0 0 0' mass='1' "
         "diaginertia='0.1 0.1 0.2'/><joint name='hinge' axis='0 0 1' " +
         joint + "/></body></worldbody></mujoco>";
}

TEST_CASE("MJCF range and limited: the joint's limit in the compiler's unit, MuJoCo's rules") {
  // A hinge's range in degrees (the compiler's default unit): -90 .. 45 degrees in radians.
  const Model degrees = load_scene_text(mjcf_rotor("", "type='hinge' range='-90 45'"), "m.xml");
  REQUIRE(degrees.joints.size() == 1);
  CHECK(degrees.joints[0].limit.enabled);
  CHECK(degrees.joints[0].limit.lower == doctest::Approx(-std::numbers::pi / 2).epsilon(1e-15));
  CHECK(degrees.joints[0].limit.upper == doctest::Approx(std::numbers::pi / 4).epsilon(1e-15));
  CHECK(degrees.joints[0].limit.stiffness == kSdfLimitStiffness);
  CHECK(degrees.joints[0].limit.damping == kSdfLimitDissipation);
  // The range counts from ref (MuJoCo's qpos at the model's pose, hybridsim's q = 0).
  const Model ref =
      load_scene_text(mjcf_rotor("", "type='hinge' range='-90 45' ref='30'"), "m.xml");
  CHECK(ref.joints[0].limit.lower == doctest::Approx(-2 * std::numbers::pi / 3).epsilon(1e-15));
  CHECK(ref.joints[0].limit.upper == doctest::Approx(std::numbers::pi / 12).epsilon(1e-15));
  // A later <compiler> without angle keeps radians.
  const Model later =
      load_scene_text(mjcf_rotor("<compiler angle='radian'/><compiler eulerseq='xyz'/>",
                                 "type='hinge' range='-1 0.5'"),
                      "m.xml");
  CHECK(later.joints[0].limit.lower == -1.0);
  // In radians, and a slide's range in metres whatever the unit.
  const Model radians = load_scene_text(
      mjcf_rotor("<compiler angle='radian'/>", "type='hinge' range='-1 0.5'"), "m.xml");
  CHECK(radians.joints[0].limit.lower == -1.0);
  CHECK(radians.joints[0].limit.upper == 0.5);
  const Model slide = load_scene_text(mjcf_rotor("", "type='slide' range='-0.2 0.3'"), "m.xml");
  CHECK(slide.joints[0].limit.lower == -0.2);
  CHECK(slide.joints[0].limit.upper == 0.3);
  const ConvertedScene converted = convert_scene_text(mjcf_rotor("", "range='-90 45'"), "m.xml");
  CHECK(joined(converted.warnings).find("solreflimit and solimplimit is not modelled") !=
        std::string::npos);
  // limited='false' turns the range off; under autolimits='false' a range alone is not a limit.
  const Model off =
      load_scene_text(mjcf_rotor("", "type='hinge' range='-90 45' limited='false'"), "m.xml");
  CHECK_FALSE(off.joints[0].limit.enabled);
  const ConvertedScene no_auto =
      convert_scene_text(mjcf_rotor("<compiler autolimits='false'/>", "range='-90 45'"), "m.xml");
  CHECK(no_auto.yaml.find("limit:") == std::string::npos);
  CHECK(joined(no_auto.warnings).find("under autolimits='false' is not enforced") !=
        std::string::npos);
  // limited='true' without a range: MuJoCo's default range 0 0, lower = upper, not enforced.
  const ConvertedScene empty = convert_scene_text(mjcf_rotor("", "limited='true'"), "m.xml");
  CHECK(empty.yaml.find("limit:") == std::string::npos);
  CHECK(joined(empty.warnings).find("lower >= upper (0 >= 0) is not enforced") !=
        std::string::npos);
  // A hinge range reaching past pi: the bound moves inside by 0.01 rad, with a warning.
  const Model wrap = load_scene_text(mjcf_rotor("", "range='-200 10'"), "m.xml");
  CHECK(wrap.joints[0].limit.lower == -(std::numbers::pi - 0.01));
  CHECK(wrap.joints[0].limit.upper == doctest::Approx(std::numbers::pi / 18).epsilon(1e-15));
  CHECK_THROWS_WITH_AS(load_scene_text(mjcf_rotor("", "limited='maybe'"), "m.xml"),
                       doctest::Contains("limited 'maybe': true, false or auto"), InputError);
}

}  // namespace
}  // namespace hybridsim
