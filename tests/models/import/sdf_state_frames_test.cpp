// Where an SDFormat world puts its links and how it starts them (models/import/sdf_reader.cpp,
// sdf_state.cpp): the world's <state> link velocities, read as written, of the link origin, for
// nested models, with what a state holds beyond them warned of; and poses given relative_to
// another frame.
#include <doctest/doctest.h>

#include <string>

#include <fmt/ranges.h>

#include "core/errors.hpp"
#include "import_test_support.hpp"
#include "models/scene_import.hpp"

namespace hybridsim {
namespace {

std::string spinning_ball_world(const std::string& state) {
  return "<?xml version='1.0'?>\n<sdf version='1.9'>\n<world name='w'>\n"
         "<gravity>0 0 0</gravity>\n"
         "<model name='ground'><static>true</static><link name='l'/></model>\n"
         "<model name='ball'><link name='l'><inertial><mass>2</mass><inertia><ixx>0.008</ixx>"
         "<iyy>0.008</iyy><izz>0.008</izz></inertia></inertial><collision name='s'><geometry>"
         "<sphere><radius>0.1</radius></sphere></geometry></collision></link></model>\n"
         "<state world_name='w'><iterations>0</iterations>\n" +
         state + "\n</state>\n</world>\n</sdf>\n";
}

std::string state_error(const std::string& state) {
  try {
    (void)convert_scene_text(spinning_ball_world(state), "bad.sdf");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

std::string joined(const ConvertedScene& converted) {
  return fmt::format("{}", fmt::join(converted.warnings, "\n"));
}

TEST_CASE("SDF <state>: link velocities read as written, the rest warned of, bad links refused") {
  // An angular speed above pi: libsdformat's pose would wrap it into a rotation; the text keeps
  // it. Without gravity or contact the ball's momentum and spin are conserved: after 1 s it has
  // moved by its velocity (1e-12 m: the integration of a constant velocity) and spins as it
  // started.
  const ConvertedScene converted = convert_scene_text(
      spinning_ball_world("<model name='ball'><link name='l'>\n<velocity>0.5 -0.25 0 0 0 "
                          "7.5</velocity>\n<acceleration>0 0 0 0 0 0</acceleration></link>"
                          "</model>"),
      "w.sdf");
  const Model model = load_scene_text(converted.yaml, "w.yaml", {"simulation.stop_time=1"});
  const Body& ball = model.bodies[model.find_body("ball")];
  CHECK(ball.v_WB_W == Vec3(0.5, -0.25, 0.0));
  CHECK(ball.w_WB_W == Vec3(0.0, 0.0, 7.5));
  const auto run = testing::run_scene(model);
  REQUIRE(run->result.status == SimulationStatus::ok);
  const auto end = run->system->compute_kinematics(run->recorder.output_states.back());
  const int b = model.find_body("ball");
  CHECK((end[b].X_WB.translation - ball.p_WB - Vec3(0.5, -0.25, 0.0)).norm() < 1e-12);
  CHECK(end[b].w_WB_W.z() == testing::relative(7.5, 1e-12));
  // What else a state holds is warned of with its line.
  CHECK(joined(converted).find("w.sdf:10: <acceleration>: <state> is read for model and link "
                               "poses and link velocities only") != std::string::npos);

  // Gazebo saves the velocity of static links too, zero: accepted silently; a non-zero one is
  // not applied, with a warning. An empty <velocity/> is at rest.
  const ConvertedScene saved = convert_scene_text(
      spinning_ball_world("<model name='ground'><link name='l'><velocity>0 0 0 0 -0 "
                          "0</velocity></link></model>\n<model name='ball'><link "
                          "name='l'><velocity/></link></model>"),
      "w.sdf");
  CHECK(joined(saved).find("static") == std::string::npos);
  const Model at_rest = load_scene_text(saved.yaml, "w.yaml");
  CHECK(at_rest.bodies[at_rest.find_body("ball")].v_WB_W == Vec3::Zero());
  CHECK(at_rest.bodies[at_rest.find_body("ground")].fixed);
  CHECK(joined(convert_scene_text(spinning_ball_world("<model name='ground'>\n<link "
                                                      "name='l'><velocity>1 0 0 0 0 "
                                                      "0</velocity></link></model>"),
                                  "w.sdf"))
            .find("w.sdf:9: <link name='l'>: the link ground::l is static: its velocity is not "
                  "applied") != std::string::npos);

  // A link or model that does not exist, a word that is not a number (libsdformat's own check), a
  // count that is not six (ours, naming the element).
  CHECK(state_error("<model name='ball'>\n<link name='nothing'><velocity>1 0 0 0 0 0</velocity>"
                    "</link></model>")
            .find("bad.sdf:9: <link name='nothing'>: the world has no link ball::nothing") !=
        std::string::npos);
  CHECK(state_error("<model name='cart'><link name='l'>\n<velocity>1 0 0 0 0 0</velocity></link>"
                    "</model>")
            .find("the world has no link cart::l") != std::string::npos);
  CHECK(state_error("<model name='ball'><link name='l'>\n<velocity>1 0 x 0 0 0</velocity></link>"
                    "</model>")
            .find(":9: Error reading element <velocity>") != std::string::npos);
}

TEST_CASE("SDF <state>: the velocity of the link origin, in nested models and turned links") {
  // A link turned a quarter about z with its centre of mass 0.1 m along its own x, so at
  // (0, 0.1, 0) from its origin in the world, in a model nested in another. The state gives its
  // origin v = (1, 0, 0) and w = (0, 0, 2): the centre of mass moves at v + w x r =
  // (1, 0, 0) + (-0.2, 0, 0). (Gazebo-classic's Link::SetState would give the centre of mass
  // the origin's velocity; SDFormat states, saved from Link::WorldLinearVel, are the origin's.)
  const std::string world =
      "<?xml version='1.0'?>\n<sdf version='1.9'>\n<world name='w'>\n<gravity>0 0 0</gravity>\n"
      "<model name='outer'><model name='inner'><pose>1 2 0 0 0 0</pose><link name='l'>"
      "<pose>0 0 0.5 0 0 1.5707963267948966</pose><inertial><pose>0.1 0 0 0 0 0</pose>"
      "<mass>2</mass><inertia><ixx>0.01</ixx><iyy>0.01</iyy><izz>0.01</izz></inertia></inertial>"
      "</link><link name='m'><inertial><mass>1</mass><inertia><ixx>0.01</ixx><iyy>0.01</iyy>"
      "<izz>0.01</izz></inertia></inertial></link></model></model>\n"
      "<state world_name='w'><model name='outer'><model name='inner'><link name='l'>"
      "<velocity>1 0 0 0 0 2</velocity></link></model></model></state>\n</world>\n</sdf>\n";
  const Model model = load_scene_text(convert_scene_text(world, "w.sdf").yaml, "w.yaml",
                                      {"simulation.stop_time=1e-6"});
  const auto run = testing::run_scene(model);
  REQUIRE(run->result.status == SimulationStatus::ok);
  const auto start = run->system->compute_kinematics(run->recorder.output_states.front());
  const BodyKinematics& link = start[model.find_body("outer::inner::l")];
  // 1e-15 m/s: one rotation of the offset by a quarter-turn quaternion, in double precision.
  CHECK((link.X_WB.translation - Vec3(1.0, 2.0, 0.5)).norm() < 1e-15);
  CHECK((link.p_WCom - Vec3(1.0, 2.1, 0.5)).norm() < 1e-15);
  const Vec3 v_origin = link.v_WCom_W + link.w_WB_W.cross(link.X_WB.translation - link.p_WCom);
  CHECK((v_origin - Vec3(1.0, 0.0, 0.0)).norm() < 1e-15);
  CHECK((link.v_WCom_W - Vec3(0.8, 0.0, 0.0)).norm() < 1e-15);
  CHECK(link.w_WB_W == Vec3(0.0, 0.0, 2.0));
  // The other link of the nested model keeps its default, at rest.
  CHECK(start[model.find_body("outer::inner::m")].v_WCom_W == Vec3::Zero());
}

TEST_CASE("SDF relative_to: a link placed in another link's frame, a collision in a frame") {
  // Link b sits 1 m along link a's x; a is turned a quarter about z, so b is 1 m along the
  // world's y from a, and turned as a. The collision of b sits 0.2 m along the frame f's x, f
  // being 0.3 m above b: (0.2, 0, 0.3) from b, turned with b into the world: (0, 0.2, 0.3).
  const std::string world =
      "<?xml version='1.0'?>\n<sdf version='1.9'>\n<world name='w'>\n<gravity>0 0 0</gravity>\n"
      "<model name='m'><pose>0 0 1 0 0 0</pose>"
      "<link name='a'><pose>0.5 0 0 0 0 1.5707963267948966</pose><inertial><mass>1</mass>"
      "<inertia><ixx>0.01</ixx><iyy>0.01</iyy><izz>0.01</izz></inertia></inertial></link>"
      "<link name='b'><pose relative_to='a'>1 0 0 0 0 0</pose><inertial><mass>1</mass>"
      "<inertia><ixx>0.01</ixx><iyy>0.01</iyy><izz>0.01</izz></inertia></inertial>"
      "<collision name='c'><pose relative_to='f'>0.2 0 0 0 0 0</pose><geometry><sphere>"
      "<radius>0.05</radius></sphere></geometry></collision></link>"
      "<frame name='f' attached_to='b'><pose relative_to='b'>0 0 0.3 0 0 0</pose></frame>"
      "</model>\n</world>\n</sdf>\n";
  const Model model = load_scene_text(convert_scene_text(world, "w.sdf").yaml, "w.yaml");
  const Body& a = model.bodies[model.find_body("m::a")];
  const Body& b = model.bodies[model.find_body("m::b")];
  // libsdformat's frame graph composes in double precision: 1e-15 m and 1e-15 in the quaternion.
  CHECK((a.p_WB - Vec3(0.5, 0.0, 1.0)).norm() < 1e-15);
  CHECK((b.p_WB - Vec3(0.5, 1.0, 1.0)).norm() < 1e-15);
  CHECK(b.q_WB.angularDistance(a.q_WB) < 1e-15);
  REQUIRE(b.shapes.size() == 1);
  const Shape& collision = model.shapes[b.shapes.front()];
  CHECK((collision.X_BS.translation - Vec3(0.2, 0.0, 0.3)).norm() < 1e-15);
}

}  // namespace
}  // namespace hybridsim
