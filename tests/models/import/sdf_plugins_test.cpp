// Gazebo's plugins read from SDFormat (models/import/sdf_plugins.cpp): the WheelSlip test's
// tricycles climbing a slope, their wheels from the WheelSlip plugin and their drive and steering
// from joint controllers, against the climb speed's closed form and, bit for bit, against the
// catalog scene tricycles_uphill; and the plugins' bad input.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <yaml-cpp/yaml.h>

#include "core/errors.hpp"
#include "import_test_support.hpp"
#include "models/scene_import.hpp"

namespace hybridsim {
namespace {

using testing::import_data;

double final_velocity_x(testing::Run& run, const std::string& body) {
  const auto kinematics = run.system->compute_kinematics(run.final_state);
  const BodyKinematics& k = kinematics[static_cast<std::size_t>(run.model.find_body(body))];
  return (k.v_WCom_W + k.w_WB_W.cross(k.X_WB.translation - k.p_WCom)).x();
}

TEST_CASE("SDF tricycles uphill: WheelSlip and joint controllers climb at R omega (1 - c T / N)") {
  const std::vector<std::string> settings = {
      "simulation.stop_time=6.0", "simulation.integrator=cvode-bdf", "simulation.rtol=1e-8",
      "simulation.atol=1e-10", "simulation.output_interval=0.05"};
  const Model sdf = load_scene_file(import_data("tricycles_uphill.sdf"), settings);
  // The plugins' wheels and servos.
  REQUIRE(sdf.wheels.size() == 3);
  const Wheel& rear = sdf.wheels[1];
  CHECK(rear.name == "tricycle::rear_left_wheel");
  CHECK(rear.normal_force_estimate == 32.0);
  CHECK(rear.lateral_compliance == 1.0);
  CHECK(rear.longitudinal_compliance == 1.0);
  const Joint& drive = sdf.joints[sdf.find_joint("tricycle::rear_left_axle")];
  CHECK(drive.servo.mode == JointServo::Mode::velocity);
  CHECK(drive.servo.ideal);
  const Joint& steer = sdf.joints[sdf.find_joint("tricycle::steer")];
  CHECK(steer.servo.mode == JointServo::Mode::position);
  CHECK(steer.servo.kp == 1000.0);
  CHECK(steer.servo.kd == 50.0);

  // The catalog scene with the friction Gazebo's rules give these surfaces (mu = mu2 = 1 among
  // few bodies: stick-slip; the wheels' own slip-compliance law acts on their contacts either way).
  YAML::Node scene =
      YAML::LoadFile(std::string(HYBRIDSIM_MODELS_DIR) + "/scenes/tricycles_uphill.yaml");
  YAML::Node friction;
  friction["model"] = "stick_slip";
  friction["mu_static"] = 1.0;
  friction["mu_kinetic"] = 1.0;
  scene["contact_materials"][0]["friction"] = friction;
  const Model yaml = load_scene_text(YAML::Dump(scene), "tricycles_uphill.yaml", settings);
  const auto sdf_run = testing::run_scene(sdf);
  const auto yaml_run = testing::run_scene(yaml);
  testing::check_same_motion(*sdf_run, *yaml_run);

  // Gazebo's reference, independently: each rear wheel pushes T = 14.5 kg * 2 m/s^2 / 2 =
  // 14.5 N, slips by c T / N_est and the tricycle climbs at 0.9 (1 - c T / 32) m/s: 0.4921875 at
  // c = 1 and 0.9 at c = 0. 1e-4 m/s as the catalog test (the Hertz penetration shortens R by
  // 3e-6 relative; Gazebo checks 5e-3).
  CHECK(std::abs(final_velocity_x(*sdf_run, "tricycle::frame") - 0.4921875) < 1e-4);
  std::vector<std::string> rigid = settings;
  for (const char* wheel : {"front_wheel", "rear_left_wheel", "rear_right_wheel"}) {
    for (const char* direction : {"lateral", "longitudinal"}) {
      rigid.push_back(fmt::format("wheels.tricycle::{}.slip_compliance.{}=0", wheel, direction));
    }
  }
  const auto rigid_run =
      testing::run_scene(load_scene_file(import_data("tricycles_uphill.sdf"), rigid));
  REQUIRE(rigid_run->result.status == SimulationStatus::ok);
  CHECK(std::abs(final_velocity_x(*rigid_run, "tricycle::frame") - 0.9) < 1e-4);
}

std::string plugin_world(const std::string& plugin) {
  return "<?xml version='1.0'?>\n<sdf version='1.9'>\n<world name='w'>\n"
         "<model name='cart'><link name='body'><inertial><mass>1</mass><inertia><ixx>0.01</ixx>"
         "<iyy>0.01</iyy><izz>0.01</izz></inertia></inertial></link>\n"
         "<link name='wheel'><inertial><mass>0.5</mass><inertia><ixx>0.005</ixx><iyy>0.005</iyy>"
         "<izz>0.005</izz></inertia></inertial><collision name='tyre'><geometry><sphere>"
         "<radius>0.1</radius></sphere></geometry></collision></link>\n"
         "<joint name='axle' type='revolute'><parent>body</parent><child>wheel</child><axis>"
         "<xyz>0 1 0</xyz></axis></joint>\n" +
         plugin + "\n</model>\n</world>\n</sdf>\n";
}

std::string plugin_error(const std::string& plugin) {
  try {
    (void)convert_scene_text(plugin_world(plugin), "bad.sdf");
  } catch (const InputError& error) {
    return error.what();
  }
  return "";
}

TEST_CASE("SDF plugins of an outer model name the links and joints of the models nested in it") {
  // The cart nested in a rover; the rover's plugins name "cart::wheel" and "cart::axle", read
  // after the nested models so that those names exist.
  std::string world = plugin_world("");
  world.replace(world.find("<model name='cart'>"), 19, "<model name='rover'><model name='cart'>");
  const std::string model_end = "\n</model>\n</world>";
  world.replace(world.find(model_end), model_end.size(),
                "</model>\n<plugin filename='libWheelSlipPlugin.so' name='s'><wheel "
                "link_name='cart::wheel'><wheel_normal_force>5</wheel_normal_force></wheel>"
                "</plugin><plugin filename='gz-sim-joint-controller-system' name='c'><joint_name>"
                "cart::axle</joint_name><initial_velocity>-2</initial_velocity></plugin>\n"
                "</model>\n</world>");
  const Model model = load_scene_text(world, "nested.sdf");
  REQUIRE(model.wheels.size() == 1);
  CHECK(model.bodies[static_cast<std::size_t>(model.wheels[0].body)].name == "rover::cart::wheel");
  const Joint& axle = model.joints[model.find_joint("rover::cart::axle")];
  CHECK(axle.servo.mode == JointServo::Mode::velocity);
  CHECK(axle.servo.ideal);
}

TEST_CASE("SDF plugins: wheels, servos, PID gains and unknown plugins, bad input with its line") {
  // A force-command joint controller is a proportional velocity servo; its i_gain is warned of.
  ConvertedScene converted = convert_scene_text(
      plugin_world("<plugin filename='gz-sim-joint-controller-system' name='c'>"
                   "<joint_name>axle</joint_name><initial_velocity>-2</initial_velocity>"
                   "<use_force_commands>true</use_force_commands><p_gain>3</p_gain>"
                   "<i_gain>0.1</i_gain></plugin>\n<plugin filename='libOther.so' name='o'/>"),
      "w.sdf");
  const YAML::Node servo = YAML::Load(converted.yaml)["joints"][0]["servo"];
  CHECK(servo["velocity"].as<double>() == -2.0);
  CHECK(servo["gain"].as<double>() == 3.0);
  CHECK_FALSE(servo["ideal"]);
  const std::string warnings = fmt::format("{}", fmt::join(converted.warnings, "\n"));
  CHECK(warnings.find("i_gain and d_gain are not modelled") != std::string::npos);
  // An ideal velocity controller (Gazebo sets the joint's velocity) on a joint with a <limit>:
  // the rate is held against any effort, so the limit is dropped with a warning (the loader
  // refuses the pair).
  std::string limited = plugin_world(
      "<plugin filename='gz-sim-joint-controller-system' name='c'>"
      "<joint_name>axle</joint_name><initial_velocity>1</initial_velocity></plugin>");
  limited.replace(limited.find("</axis>"), 0, "<limit><lower>-1</lower><upper>1</upper></limit>");
  const ConvertedScene ideal = convert_scene_text(limited, "w.sdf");
  const YAML::Node ideal_joint = YAML::Load(ideal.yaml)["joints"][0];
  CHECK(ideal_joint["servo"]["ideal"].as<bool>());
  CHECK_FALSE(ideal_joint["limit"]);
  CHECK(fmt::format("{}", fmt::join(ideal.warnings, "\n"))
            .find("joint 'axle' keeps its velocity command exactly, so its <limit> is not "
                  "enforced") != std::string::npos);
  CHECK(load_scene_text(limited, "w.sdf").joints[0].servo.ideal);
  // A setting hybridsim does not model is named; so is an unknown setting of a wheel.
  converted =
      convert_scene_text(plugin_world("<plugin filename='gz-sim-joint-controller-system' name='c'>"
                                      "<joint_name>axle</joint_name><cmd_max>5</cmd_max></plugin>"),
                         "w.sdf");
  CHECK(fmt::format("{}", fmt::join(converted.warnings, "\n"))
            .find("w.sdf:7: <plugin name='c'>: <cmd_max> is not modelled: ignored") !=
        std::string::npos);
  CHECK(warnings.find("w.sdf:8: <plugin name='o'>: <plugin> is not read") != std::string::npos);

  // A wheel's axis is its joint's; a radius given is kept.
  converted = convert_scene_text(
      plugin_world("<plugin filename='libWheelSlipPlugin.so' name='s'><wheel link_name='wheel'>"
                   "<wheel_normal_force>5</wheel_normal_force><wheel_radius>0.1</wheel_radius>"
                   "<slip_compliance_lateral>0.5</slip_compliance_lateral></wheel></plugin>"),
      "w.sdf");
  const YAML::Node wheel = YAML::Load(converted.yaml)["wheels"][0];
  CHECK(wheel["body"].as<std::string>() == "cart::wheel");
  CHECK(wheel["axis"][1].as<double>() == 1.0);
  CHECK(wheel["radius"].as<double>() == 0.1);
  CHECK(wheel["slip_compliance"]["lateral"].as<double>() == 0.5);
  CHECK(wheel["slip_compliance"]["longitudinal"].as<double>() == 0.0);

  // Bad input: a link, a joint that does not exist, a missing normal force, a bad number.
  CHECK(plugin_error("<plugin filename='libWheelSlipPlugin.so' name='s'>\n<wheel "
                     "link_name='nothing'><wheel_normal_force>5</wheel_normal_force></wheel>"
                     "</plugin>")
            .find("bad.sdf:7: <plugin name='s'> <wheel link_name='nothing'>: the model has no link "
                  "'nothing'") != std::string::npos);
  CHECK(plugin_error("<plugin filename='libWheelSlipPlugin.so' name='s'>\n<wheel "
                     "link_name='body'><wheel_normal_force>5</wheel_normal_force></wheel>"
                     "</plugin>")
            .find("no revolute joint has the link 'body' as its child") != std::string::npos);
  // A prismatic joint gives no spin axis.
  std::string prismatic = plugin_world(
      "<plugin filename='libWheelSlipPlugin.so' name='s'><wheel link_name='wheel'>"
      "<wheel_normal_force>5</wheel_normal_force></wheel></plugin>");
  prismatic.replace(prismatic.find("type='revolute'"), 15, "type='prismatic'");
  std::string message;
  try {
    (void)convert_scene_text(prismatic, "bad.sdf");
  } catch (const InputError& error) {
    message = error.what();
  }
  CHECK(message.find("no revolute joint has the link 'wheel' as its child") != std::string::npos);
  CHECK(plugin_error("<plugin filename='libWheelSlipPlugin.so' name='s'>\n<wheel "
                     "link_name='wheel'></wheel></plugin>")
            .find("<wheel_normal_force> must be given") != std::string::npos);
  CHECK(plugin_error("<plugin filename='gz-sim-joint-controller-system' name='c'>\n"
                     "<joint_name>nothing</joint_name></plugin>")
            .find(":7: <plugin name='c'>: the model has no joint 'nothing'") != std::string::npos);
  CHECK(plugin_error("<plugin filename='gz-sim-joint-controller-system' name='c'>\n"
                     "<joint_name>axle</joint_name><initial_velocity>fast</initial_velocity>"
                     "</plugin>")
            .find("<initial_velocity> 'fast' is not a finite number") != std::string::npos);
}

}  // namespace
}  // namespace hybridsim
