// URDF robots (models/import/urdf_reader.cpp) against hybridsim scenes written by hand from the
// URDF specification (joint frame = child link frame, inertia given in the inertial frame), and
// against physics: the pendulum's period, the arm's energy balance, a floating root's free fall.
#include <doctest/doctest.h>

#include <cmath>
#include <fstream>

#include "core/errors.hpp"
#include "import_test_support.hpp"
#include "models/scene_import.hpp"
#include "physics/pendulum_reference.hpp"

namespace hybridsim {
namespace {

using testing::import_data;
using testing::largest_state_difference;

TEST_CASE("URDF pendulum: its hand-written scene's motion to 1e-12, and the elliptic period") {
  const std::vector<std::string> overrides = {
      "joints.hinge.initial.position=2.9670597283903604",  // 170 degrees
      "simulation.stop_time=10", "simulation.rtol=1e-12", "simulation.atol=1e-13"};
  const Model urdf = load_scene_file(import_data("pendulum.urdf"), overrides);
  const Model yaml = load_scene_file(import_data("pendulum_urdf.yaml"), overrides);
  const auto urdf_run = testing::run_scene(urdf, "cvode-bdf", 1e-3);
  const auto yaml_run = testing::run_scene(yaml, "cvode-bdf", 1e-3);
  REQUIRE(urdf_run->result.status == SimulationStatus::ok);
  // The same model reached through the URDF frames: equal to the last bit of the data, so
  // equal states to far below the tolerance's 1e-12.
  CHECK(largest_state_difference(*urdf_run, *yaml_run) <= 1e-12);

  // Compound pendulum: T = 4 sqrt(L_eq/g) K(sin(theta0/2)), L_eq = (I_com + m L^2)/(m L); the
  // zero crossings of the joint angle are found to 1e-8 at rtol 1e-12 (joint_scenes_test).
  const Body& bob = urdf.bodies[1];
  const double L = 1.0, g = 9.81, theta0 = urdf.joints[0].initial_position;
  const double L_eq = (bob.inertia_com_B(0, 0) + bob.mass * L * L) / (bob.mass * L);
  const double period =
      4.0 * std::sqrt(L_eq / g) * testing::complete_elliptic_k(std::sin(theta0 / 2));
  const std::vector<double> crossings =
      testing::zero_crossings(testing::joint_history(*urdf_run, 0));
  REQUIRE(crossings.size() == 4);
  CHECK(crossings[0] == testing::relative(period / 4.0, 1e-8));
  CHECK(crossings[2] - crossings[0] == testing::relative(period, 1e-8));
}

TEST_CASE("URDF two-link arm: composed frames, rotated inertia, merged tool, energy balance") {
  const std::vector<std::string> overrides = {
      "joints.shoulder.initial.position=1.2", "joints.elbow.initial.position=-0.7",
      "simulation.stop_time=2", "simulation.rtol=1e-12", "simulation.atol=1e-14"};
  const Model urdf = load_scene_file(import_data("two_link_arm.urdf"), overrides);
  const Model yaml = load_scene_file(import_data("two_link_arm.yaml"), overrides);
  REQUIRE(urdf.bodies.size() == 3);  // the massless tool is part of the forearm
  CHECK(urdf.bodies[0].fixed);       // the root link, fixed by default
  CHECK(urdf.bodies[2].shapes.size() == 2);
  // The rotated inertia differs in its last bit (R I R^T by Eigen here, by the closed form in the
  // scene's file). An adaptive method may then take other steps, which moves the two runs apart
  // by its tolerance (1e-10 at rtol 1e-12), not by the data's 1e-17: the same fixed RK4 steps
  // show the models' difference itself, which the damped motion keeps below 1e-12.
  for (const Model* model : {&urdf, &yaml}) {
    for (std::size_t i = 0; i < 3; ++i) {
      CHECK((urdf.bodies[i].inertia_com_B - model->bodies[i].inertia_com_B).norm() <= 1e-17);
    }
  }
  Model urdf_fixed = urdf, yaml_fixed = yaml;
  urdf_fixed.simulation.step_size = yaml_fixed.simulation.step_size = 1e-3;
  const auto urdf_rk4 = testing::run_scene(urdf_fixed, "rk4", 1e-3);
  const auto yaml_rk4 = testing::run_scene(yaml_fixed, "rk4", 1e-3);
  REQUIRE(urdf_rk4->result.status == SimulationStatus::ok);
  CHECK(largest_state_difference(*urdf_rk4, *yaml_rk4) <= 1e-12);
  const auto urdf_run = testing::run_scene(urdf, "cvode-bdf", 1e-3);
  REQUIRE(urdf_run->result.status == SimulationStatus::ok);

  // Energy balance: what the joints' viscous damping c dissipates, the integral of
  // c (qd1^2 + qd2^2), is the drop of the mechanical energy. The trapezoidal rule over 1 ms
  // outputs errs by O(dt^2) = 1e-6 of the integral; the energy itself is exact to rtol.
  const testing::JointHistory shoulder = testing::joint_history(*urdf_run, 0);
  const testing::JointHistory elbow = testing::joint_history(*urdf_run, 1);
  double dissipated = 0.0;
  for (std::size_t i = 1; i < shoulder.t.size(); ++i) {
    const auto power = [&](std::size_t k) {
      return 0.5 * (shoulder.qd[k] * shoulder.qd[k] + elbow.qd[k] * elbow.qd[k]);
    };
    dissipated += 0.5 * (power(i) + power(i - 1)) * (shoulder.t[i] - shoulder.t[i - 1]);
  }
  const auto& energies = urdf_run->recorder.output_energies;
  REQUIRE(dissipated > 0.01);
  CHECK(energies.front() - energies.back() == testing::relative(dissipated, 1e-5));
}

TEST_CASE("URDF root floating: a free body that falls freely, z = z0 - g t^2 / 2") {
  const std::string text = R"(<robot name="crate">
  <link name="crate">
    <inertial><mass value="2"/><inertia ixx="0.1" iyy="0.1" izz="0.1" ixy="0" ixz="0" iyz="0"/></inertial>
    <collision><geometry><box size="0.5 0.5 0.5"/></geometry></collision>
  </link>
</robot>)";
  ImportOptions floating;
  floating.urdf_root = "floating";
  const Model model = load_scene_text(text, "crate.urdf", {"simulation.stop_time=0.5"}, floating);
  REQUIRE(!model.bodies[0].fixed);
  const auto run = testing::run_scene(model, "cvode-bdf", 0.5);
  // Free fall, no contact: exact to the integrator's tolerance (rtol 1e-6 on a 1.2 m drop).
  CHECK(run->final_state[2] == testing::relative(-0.5 * 9.81 * 0.25, 1e-5));
  // Fixed (the default), the only link cannot move: a load error, as for any scene without a
  // moving body.
  CHECK_THROWS_AS(load_scene_text(text, "crate.urdf"), InputError);
}

TEST_CASE(
    "URDF warnings: the limits' stiffness and the default material, once each, with file and "
    "line") {
  const Model model = load_scene_file(import_data("two_link_arm.urdf"));
  int limits = 0, material = 0;
  for (const Model::LoadWarning& warning : model.warnings) {
    CHECK(warning.kind == "import");
    if (warning.message.find("the limit is a spring-damper of stiffness 1e+08") !=
        std::string::npos) {
      ++limits;
      CHECK(warning.message.find("two_link_arm.urdf:28: <joint name='shoulder'>") !=
            std::string::npos);
    }
    if (warning.message.find("material 'Steel'") != std::string::npos) ++material;
  }
  CHECK(limits == 1);
  CHECK(material == 1);
}

// The message of the InputError a URDF text gives, or "" when it loads.
std::string urdf_error(const std::string& body) {
  try {
    (void)convert_scene_text("<robot name='r'>\n" + body + "\n</robot>", "bad.urdf");
  } catch (const InputError& error) {
    return error.what();
  }
  return "";
}

const char* kLink =
    "<link name='a'><inertial><mass value='1'/>"
    "<inertia ixx='1' iyy='1' izz='1' ixy='0' ixz='0' iyz='0'/></inertial></link>";

TEST_CASE("URDF bad input: every class is an error naming the file, the line and the element") {
  // Malformed XML: the parser's line.
  CHECK(urdf_error("<link name='a'>\n<inertial>\n</link>")
            .find("bad.urdf:3: XML syntax error: XML_ERROR_MISMATCHED_ELEMENT") !=
        std::string::npos);
  // A joint whose parent does not exist.
  const std::string joint =
      std::string(kLink) +
      "\n<joint name='j' type='continuous'>\n<parent link='nowhere'/><child link='a'/></joint>";
  CHECK(urdf_error(joint).find("bad.urdf:4: <parent>: the parent link 'nowhere' does not exist") !=
        std::string::npos);
  // A mass that is not positive.
  CHECK(urdf_error("<link name='a'><inertial>\n<mass value='-1'/></inertial></link>")
            .find("bad.urdf:3: <mass>: the mass must be positive") != std::string::npos);
  // Numbers and elements urdfdom needs, with their lines (urdfdom itself gives none).
  CHECK(urdf_error("<link name='a'><collision><geometry>\n<box size='1 1'/></geometry></collision>"
                   "</link>")
            .find("bad.urdf:3: <box>: attribute size='1 1' needs 3 numbers, not 2") !=
        std::string::npos);
  CHECK(urdf_error("<link name='a'>\n<collision/></link>")
            .find("bad.urdf:3: <collision>: needs a <geometry>") != std::string::npos);
  CHECK(urdf_error(std::string(kLink) + "<link name='b'/>\n<joint name='j' type='revolute'>"
                                        "<parent link='a'/><child link='b'/></joint>")
            .find("bad.urdf:3: <joint name='j'>: a revolute or prismatic joint needs a <limit>") !=
        std::string::npos);
  CHECK(urdf_error(std::string(kLink) + "<link name='b'/>\n<joint name='j' type='hinge'>"
                                        "<parent link='a'/><child link='b'/></joint>")
            .find("bad.urdf:3: <joint name='j'>: type 'hinge'") != std::string::npos);
  // Inertias no body has: not positive definite, and one moment above the sum of the others.
  CHECK(urdf_error("<link name='a'><inertial><mass value='1'/>\n"
                   "<inertia ixx='1' iyy='1' izz='0' ixy='0' ixz='0' iyz='0'/></inertial></link>")
            .find("bad.urdf:3: <inertia>: the inertia must be positive definite") !=
        std::string::npos);
  CHECK(urdf_error("<link name='a'><inertial><mass value='1'/>\n"
                   "<inertia ixx='1' iyy='1' izz='3' ixy='0' ixz='0' iyz='0'/></inertial></link>")
            .find("one exceeds the sum of the other two") != std::string::npos);
  // A missing mesh file, an unresolvable package:// URI, a mesh format hybridsim does not read.
  const auto mesh = [](const std::string& file) {
    return std::string(kLink).insert(
        std::string(kLink).size() - 7,
        "<collision><geometry>\n<mesh filename='" + file + "'/></geometry></collision>");
  };
  CHECK(urdf_error(mesh("no_such_mesh.obj"))
            .find("bad.urdf:3: <mesh>: the mesh 'no_such_mesh.obj' "
                  "is not found") != std::string::npos);
  CHECK(urdf_error(mesh("package://nothing/meshes/a.obj"))
            .find("the mesh 'package://nothing/meshes/a.obj' is not found (searched:") !=
        std::string::npos);
  const std::string stl = import_data("pendulum.urdf");  // exists, but is no OBJ
  CHECK(urdf_error(mesh(stl)).find("hybridsim reads OBJ meshes") != std::string::npos);
  // A moving link without mass (the root floating, or mass 0 on a moving joint).
  ImportOptions floating;
  floating.urdf_root = "floating";
  CHECK_THROWS_WITH_AS(
      convert_scene_text("<robot name='r'>\n<link name='a'/></robot>", "bad.urdf", floating),
      doctest::Contains("bad.urdf:2: <link name='a'>: a moving link needs an <inertial>"),
      InputError);
  CHECK(urdf_error(std::string(kLink) +
                   "\n<link name='b'><inertial><mass value='0'/></inertial></link>"
                   "<joint name='j' type='continuous'><parent link='a'/><child link='b'/></joint>")
            .find("bad.urdf:3: <link name='b'>: a moving link needs an <inertial> with a positive "
                  "mass") != std::string::npos);
}

TEST_CASE("URDF massless links on fixed joints merge, repeated collision names stay apart") {
  // A sensor mount of mass 0 (common in robot files) on a fixed joint joins its parent's body;
  // its collision, named like the parent's, gets a name of its own.
  const std::string text = std::string("<robot name='r'>") + kLink +
                           "<link name='mount'><inertial><mass value='0'/><inertia ixx='0' "
                           "iyy='0' izz='0' ixy='0' ixz='0' iyz='0'/></inertial>"
                           "<collision name='c'><geometry><sphere radius='0.1'/></geometry>"
                           "</collision><collision name='c'><origin xyz='0 0 1'/><geometry>"
                           "<sphere radius='0.1'/></geometry></collision></link>"
                           "<joint name='j' type='fixed'><parent link='a'/><child link='mount'/>"
                           "<origin xyz='1 0 0'/></joint></robot>";
  ImportOptions floating;
  floating.urdf_root = "floating";
  const Model model = load_scene_text(text, "mount.urdf", {}, floating);
  REQUIRE(model.bodies.size() == 1);
  REQUIRE(model.shapes.size() == 2);
  CHECK(model.shapes[0].name == "c");
  CHECK(model.shapes[1].name == "c_2");
  CHECK((model.shapes[1].X_BS.translation - Vec3(1, 0, 1)).norm() == 0.0);
}

TEST_CASE("URDF meshes: package:// found along --resource-path, as a hull on a moving link") {
  const std::string meshes = std::string(HYBRIDSIM_MODELS_DIR) + "/scenes";
  const std::string text = std::string("<robot name='r'>") + kLink +
                           "<link name='b'><inertial><mass value='1'/>"
                           "<inertia ixx='1' iyy='1' izz='1' ixy='0' ixz='0' iyz='0'/>"
                           "</inertial><collision><geometry>"
                           "<mesh filename='package://meshes/gem.obj' scale='0.5 0.5 0.5'/>"
                           "</geometry></collision></link>"
                           "<joint name='j' type='floating'><parent link='a'/><child link='b'/>"
                           "</joint></robot>";
  ImportOptions options;
  CHECK_THROWS_WITH_AS(convert_scene_text(text, "r.urdf", options),
                       doctest::Contains("set --resource-path or ROS_PACKAGE_PATH"), InputError);
  options.resource_paths = {"/nonexistent:" + meshes};
  const ConvertedScene converted = convert_scene_text(text, "r.urdf", options);
  CHECK(converted.yaml.find("type: convex") != std::string::npos);
  CHECK(converted.yaml.find("mesh: " + meshes + "/meshes/gem.obj") != std::string::npos);
  CHECK(converted.yaml.find("scale: 0.5") != std::string::npos);
  const Model model = load_scene_text(text, "r.urdf", {}, options);
  CHECK(model.shapes.back().type == ShapeType::convex);
}

}  // namespace
}  // namespace hybridsim
