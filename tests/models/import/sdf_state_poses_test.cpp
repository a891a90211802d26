// The poses of an SDFormat world's <state> (models/import/sdf_state.cpp, sdf_reader.cpp), as
// gazebo-classic's Model::SetState applies them: a link's pose places the link, a model's pose
// moves the model's links and joints rigidly, and a state that turns a joint leaves the links at
// the file's poses with a warning (hybridsim's joints start at the file's poses).
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include <fmt/ranges.h>

#include "core/errors.hpp"
#include "import_test_support.hpp"
#include "models/scene_import.hpp"

namespace hybridsim {
namespace {

constexpr double kGravity = 9.8;  // SDFormat's default, the worlds' own

std::string inertial(double mass) {
  return fmt::format(
      "<inertial><mass>{}</mass><inertia><ixx>0.01</ixx><iyy>0.01</iyy><izz>0.01</izz>"
      "</inertia></inertial>",
      mass);
}

// A ball of radius 0.1 m over a ground plane, written 3 m up.
std::string falling_ball_world(const std::string& state) {
  return "<?xml version='1.0'?>\n<sdf version='1.9'>\n<world name='w'>\n"
         "<model name='ground'><static>true</static><link name='l'><collision name='c'>"
         "<geometry><plane><normal>0 0 1</normal></plane></geometry></collision></link></model>\n"
         "<model name='ball'><pose>0 0 3 0 0 0</pose><link name='l'>" +
         inertial(1.0) +
         "<collision name='s'><geometry><sphere><radius>0.1</radius></sphere></geometry>"
         "</collision></link></model>\n<state world_name='w'>\n" +
         state + "\n</state>\n</world>\n</sdf>\n";
}

// A free two-link arm without gravity, the elbow (a revolute joint about the model's y at the
// lower link's origin) at `pose` in the file; the lower link swings at 2 rad/s about it.
std::string swinging_arm_world(const std::string& pose, const std::string& state) {
  return "<?xml version='1.0'?>\n<sdf version='1.9'>\n<world name='w'>\n<gravity>0 0 0</gravity>\n"
         "<model name='arm'><pose>" +
         pose + "</pose><link name='upper'>" + inertial(2.0) +
         "</link><link name='lower'><pose>0.5 0 0 0 0 0</pose>" + inertial(1.0) +
         "</link><joint name='elbow' type='revolute'><parent>upper</parent><child>lower</child>"
         "<axis><xyz>0 1 0</xyz></axis></joint></model>\n<state world_name='w'>\n" +
         state + "\n</state>\n</world>\n</sdf>\n";
}

std::string joined(const ConvertedScene& converted) {
  return fmt::format("{}", fmt::join(converted.warnings, "\n"));
}

std::string state_error(const std::string& state) {
  try {
    (void)convert_scene_text(falling_ball_world(state), "bad.sdf");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST_CASE("SDF <state> poses: a ball falls from where its link's pose puts it") {
  // The state puts the ball at 0.5 m, turned 0.3 rad about z (the file says 3 m): it touches the
  // ground after falling 0.4 m, at t = sqrt(2 * 0.4 / g) = 0.2857 s.
  const ConvertedScene converted = convert_scene_text(
      falling_ball_world("<model name='ball'><pose>9 9 9 0 0 0</pose><scale>1 1 1</scale><link "
                         "name='l'><pose frame=''>1 2 0.5 0 0 0.3</pose><velocity>0 0 0 0 0 "
                         "0</velocity></link></model>"),
      "w.sdf");
  // Gazebo saves <scale>1 1 1</scale> with every model: nothing to warn of.
  CHECK(joined(converted).find("scale") == std::string::npos);
  const Model model = load_scene_text(converted.yaml, "w.yaml", {"simulation.stop_time=0.3"});
  const Body& ball = model.bodies[model.find_body("ball")];
  // 1e-15: the link pose composed with the inverse of the file's, in double precision.
  CHECK((ball.p_WB - Vec3(1.0, 2.0, 0.5)).norm() < 1e-15);
  CHECK(ball.q_WB.angularDistance(Quat(Eigen::AngleAxisd(0.3, Vec3::UnitZ()))) < 1e-15);
  const auto run = testing::run_scene(model);
  REQUIRE(run->result.status == SimulationStatus::ok);
  double touchdown = -1.0;
  for (const auto& event : run->recorder.events) {
    for (const EventRecord& record : event.outcome.records) {
      if (record.kind == EventRecord::Kind::contact_start && touchdown < 0.0) touchdown = event.t;
    }
  }
  // 1e-6 s: the integrator's tolerance on a free fall is far finer; the contact starts at a
  // distance of contact_eps (nanometres), 1e-9 s early.
  CHECK(touchdown == doctest::Approx(std::sqrt(2.0 * 0.4 / kGravity)).epsilon(1e-6));
}

TEST_CASE("SDF <state> poses: a model's pose moves its links and joint with it") {
  // The arm written at the origin and moved by the state's model pose swings exactly as the arm
  // written at that pose: the elbow moved with its links (an elbow left behind would be a hinge
  // elsewhere on the links and swing them otherwise). The lower link's swing about the elbow
  // (whose axis, the model's y, is the world's -x after the quarter turn) is given as a world
  // velocity in both.
  const std::string moved = "2 0 1 0 0 1.5707963267948966";
  const std::string swing =
      "<model name='arm'><link name='lower'><velocity>0 0 0 -2 0 0</velocity></link></model>";
  const ConvertedScene by_state = convert_scene_text(
      swinging_arm_world("0 0 0 0 0 0",
                         "<model name='arm'><pose>" + moved +
                             "</pose><link name='lower'><velocity>0 0 0 -2 0 0</velocity>"
                             "</link></model>"),
      "a.sdf");
  const ConvertedScene by_file = convert_scene_text(swinging_arm_world(moved, swing), "b.sdf");
  CHECK(joined(by_state).find("turns joint") == std::string::npos);
  const Model a = load_scene_text(by_state.yaml, "a.yaml", {"simulation.stop_time=1"});
  const Model b = load_scene_text(by_file.yaml, "b.yaml", {"simulation.stop_time=1"});
  // The lower link 0.5 m along the model's x, which the turn makes the world's y.
  CHECK((a.bodies[a.find_body("arm::lower")].p_WB - Vec3(2.0, 0.5, 1.0)).norm() < 1e-15);
  const auto run_a = testing::run_scene(a);
  const auto run_b = testing::run_scene(b);
  REQUIRE(run_a->result.status == SimulationStatus::ok);
  REQUIRE(run_b->result.status == SimulationStatus::ok);
  // 1e-10: the two writings differ in the last bits of the poses (the state's motion composed
  // with the file's), which a second of a smooth, non-chaotic swing does not grow past this.
  CHECK(testing::largest_state_difference(*run_a, *run_b) < 1e-10);
  // And the swing happened: the lower link turned about the elbow by about 2 rad/s * 1 s (less
  // the upper link's share of the turn), so an elbow in the wrong place could not hide.
  // (Copies: the kinematics are the system's scratch, overwritten by the next call.)
  const int lower = a.find_body("arm::lower");
  const Mat3 R_end =
      run_a->system->compute_kinematics(run_a->recorder.output_states.back())[lower].X_WB.rotation;
  const Mat3 R_start =
      run_a->system->compute_kinematics(run_a->recorder.output_states.front())[lower].X_WB.rotation;
  CHECK(R_end.col(0).dot(R_start.col(0)) < 0.9);

  // As Gazebo saves it: each link's pose to 6 decimals. The links' motions differ by that
  // rounding (5e-7), not by a turn of the elbow: the arm moves as one, by the motion of one of
  // them, and the elbow stays exact (its two links keep the file's relative pose to 1e-15).
  const ConvertedScene saved = convert_scene_text(
      swinging_arm_world("0 0 0 0 0 0",
                         "<model name='arm'><pose>2 0 1 0 0 1.570796</pose><link "
                         "name='upper'><pose>2 0 1 0 0 1.570796</pose></link><link "
                         "name='lower'><pose>2 0.5 1 0 0 1.570796</pose></link></model>"),
      "s.sdf");
  CHECK(joined(saved).find("turns joint") == std::string::npos);
  const Model c = load_scene_text(saved.yaml, "s.yaml");
  const Body& upper_c = c.bodies[c.find_body("arm::upper")];
  const Body& lower_c = c.bodies[c.find_body("arm::lower")];
  CHECK((upper_c.q_WB.conjugate() * (lower_c.p_WB - upper_c.p_WB) - Vec3(0.5, 0.0, 0.0)).norm() <
        1e-15);
  CHECK(upper_c.q_WB.angularDistance(lower_c.q_WB) < 1e-15);
  CHECK((lower_c.p_WB - Vec3(2.0, 0.5, 1.0)).norm() < 1e-6);
}

TEST_CASE("SDF <state> poses: a state that turns a joint leaves its links at the file's poses") {
  // Gazebo would place the lower link turned about the elbow; hybridsim's joint angles start at
  // zero at the file's poses, so both links stay there, at rest, with a warning that names the
  // link.
  const ConvertedScene converted = convert_scene_text(
      swinging_arm_world("0 0 0 0 0 0",
                         "<model name='arm'><link name='lower'>\n<pose>0.5 0 0 0 0.4 0</pose>"
                         "<velocity>0 0 0 0 1 0</velocity></link></model>"),
      "t.sdf");
  CHECK(joined(converted).find("t.sdf:7: <link name='lower'>: the state turns joint arm::elbow") !=
        std::string::npos);
  const Model model = load_scene_text(converted.yaml, "t.yaml");
  CHECK(model.bodies[model.find_body("arm::lower")].p_WB == Vec3(0.5, 0.0, 0.0));
  CHECK(model.bodies[model.find_body("arm::lower")].q_WB.angularDistance(Quat::Identity()) == 0.0);
  CHECK(model.bodies[model.find_body("arm::upper")].p_WB == Vec3::Zero());
  // At rest: the state's velocity belongs to the turned pose.
  CHECK(model.bodies[model.find_body("arm::lower")].w_WB_W == Vec3::Zero());
}

TEST_CASE("SDF <state> poses: a pendulum on the world, saved far out, stays where its joint is") {
  // A pendulum hinged to the world 100 m out, its bob's pose saved by Gazebo to 6 decimals: the
  // yaw 0.1234567891 written 0.123457 differs by 2.1e-7 rad, which moves a link 100 m out by
  // 2.1e-5 m. That is rounding, not a turn: no warning, and the bob stays exactly at the file's
  // pose (a set joined to the world does not move).
  const std::string world =
      "<?xml version='1.0'?>\n<sdf version='1.9'>\n<world name='w'>\n"
      "<model name='p'><pose>100 0 1 0 0 0.1234567891</pose><link name='bob'>" +
      inertial(1.0) +
      "</link><joint name='hinge' type='revolute'><parent>world</parent><child>bob</child>"
      "<axis><xyz>0 1 0</xyz></axis></joint></model>\n<state world_name='w'>\n<model "
      "name='p'><pose>100 0 1 0 0 0.123457</pose><link name='bob'><pose>100 0 1 0 0 "
      "0.123457</pose><velocity>0 0 0 0 0 0</velocity></link></model>\n</state>\n</world>\n"
      "</sdf>\n";
  const ConvertedScene converted = convert_scene_text(world, "p.sdf");
  CHECK(joined(converted).find("turns") == std::string::npos);
  const Model model = load_scene_text(converted.yaml, "p.yaml");
  const Body& bob = model.bodies[model.find_body("p")];
  CHECK(bob.p_WB == Vec3(100.0, 0.0, 1.0));
  CHECK(bob.q_WB.angularDistance(Quat(Eigen::AngleAxisd(0.1234567891, Vec3::UnitZ()))) < 1e-15);
}

TEST_CASE("SDF <state> poses: degrees, quaternions, and poses that cannot be read") {
  // 90 degrees about z as degrees and as a quaternion: the same turn (1e-15).
  for (const std::string pose : {"<pose degrees='true'>0 0 1 0 0 90</pose>",
                                 "<pose rotation_format='quat_xyzw'>0 0 1 0 0 0.7071067811865476 "
                                 "0.7071067811865476</pose>"}) {
    const Model model = load_scene_text(
        convert_scene_text(
            falling_ball_world("<model name='ball'><link name='l'>" + pose + "</link></model>"),
            "w.sdf")
            .yaml,
        "w.yaml");
    CHECK(model.bodies[model.find_body("ball")].q_WB.angularDistance(
              Quat(Eigen::AngleAxisd(M_PI / 2, Vec3::UnitZ()))) < 1e-15);
  }
  CHECK(state_error("<model name='ball'><link name='l'>\n<pose relative_to='ground'>0 0 1 0 0 "
                    "0</pose></link></model>")
            .find("bad.sdf:8: <pose>: a state's pose is in world; relative_to='ground' is not "
                  "read") != std::string::npos);
  CHECK(state_error("<model name='cart'>\n<pose>0 0 1 0 0 0</pose></model>")
            .find("the world has no model cart") != std::string::npos);
  CHECK(state_error("<model name='ball'><link name='l'>\n<pose rotation_format='quat_xyzw'>0 0 "
                    "1 0 0 0 2</pose></link></model>")
            .find("bad.sdf:8: <pose>: the quaternion is not of unit length") != std::string::npos);
}

}  // namespace
}  // namespace hybridsim
