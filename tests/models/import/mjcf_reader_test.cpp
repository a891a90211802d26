// MJCF models (models/import/mjcf_reader.cpp) against hybridsim scenes written by hand from
// MuJoCo's XML reference (half-sizes, frames, default classes, density-derived mass, the larger
// sliding friction of a pair), and against physics: free fall to the first contact, the hinged
// bob's period, a box at rest on the floor.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <numbers>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "core/errors.hpp"
#include "import_test_support.hpp"
#include "models/scene_import.hpp"
#include "physics/pendulum_reference.hpp"

namespace hybridsim {
namespace {

using testing::import_data;
using testing::largest_state_difference;

const std::vector<std::string> kThreeBodiesRun = {"joints.hinge.initial.position=0.5",
                                                  "simulation.stop_time=1.6",
                                                  "simulation.rtol=1e-10", "simulation.atol=1e-12"};

TEST_CASE("MJCF free sphere, hinged bob and box on a plane: the hand-written scene's motion") {
  const Model mjcf = load_scene_file(import_data("three_bodies.xml"), kThreeBodiesRun);
  const Model yaml = load_scene_file(import_data("three_bodies.yaml"), kThreeBodiesRun);
  const auto mjcf_run = testing::run_scene(mjcf, "cvode-bdf", 1e-3);
  const auto yaml_run = testing::run_scene(yaml, "cvode-bdf", 1e-3);
  REQUIRE(mjcf_run->result.status == SimulationStatus::ok);
  REQUIRE(mjcf_run->recorder.events.size() == yaml_run->recorder.events.size());
  // The same data but the box's rotation, a quaternion (normalised by the loader) here and an
  // axis-angle there: 1e-16 apart, far below 1e-12 over 1.6 s.
  CHECK(largest_state_difference(*mjcf_run, *yaml_run) <= 1e-12);
}

TEST_CASE("MJCF three bodies against physics: fall time, pendulum period, box at rest") {
  const Model model = load_scene_file(import_data("three_bodies.xml"), kThreeBodiesRun);
  // Masses from the geoms' densities: 7850 kg/m^3 by the main class, 2700 by class "light".
  CHECK(model.bodies[1].mass ==
        testing::relative(7850.0 * 4.0 / 3.0 * std::numbers::pi * 1e-3, 1e-14));
  CHECK(model.bodies[3].mass == testing::relative(2700.0 * 0.4 * 0.2 * 0.2, 1e-14));
  const auto run = testing::run_scene(model, "cvode-bdf", 1e-3);
  REQUIRE(run->result.status == SimulationStatus::ok);

  // The ball (r 0.1) dropped from 2 m touches the floor after sqrt(2 (2 - 0.1) / g): the event
  // time to 1e-8 (free fall is a quadratic the integrator follows to rtol 1e-10).
  std::vector<double> ball_contacts;
  for (const EventRecord& record : run->recorder.contact_records()) {
    if (record.pair_b == "ball/ball" && record.kind == EventRecord::Kind::contact_start) {
      ball_contacts.push_back(record.t);
    }
  }
  REQUIRE(!ball_contacts.empty());
  const double fall_time = std::sqrt(2.0 * 1.9 / 9.81);
  CHECK(ball_contacts.front() == testing::relative(fall_time, 1e-8));

  // The bob (r 0.05, 1 m below the hinge) released at 0.5 rad: T = 4 sqrt(L_eq/g) K(sin(th0/2))
  // with L_eq = (I_com + m L^2)/(m L); crossings to 1e-7 at rtol 1e-10.
  const Body& bob = model.bodies[2];
  const double L_eq = (bob.inertia_com_B(0, 0) + bob.mass) / bob.mass;
  const double period = 4.0 * std::sqrt(L_eq / 9.81) * testing::complete_elliptic_k(std::sin(0.25));
  const std::vector<double> crossings = testing::zero_crossings(testing::joint_history(*run, 0));
  REQUIRE(crossings.size() >= 2);
  CHECK(crossings[0] == testing::relative(period / 4.0, 1e-7));
  CHECK(crossings[1] - crossings[0] == testing::relative(period / 2.0, 1e-7));

  // The box starts touching the floor and settles on its four bottom corners without sliding or
  // turning, each corner carrying m g / 4 at the Hertz depth of a contact sphere of radius
  // R = 0.1 m (half the box's smallest width) on a plane: m g / 4 = (4/3) E* sqrt(R) d^(3/2),
  // 1/E* = 2 (1 - nu^2) / E for two steels' moduli. Settled (no rebound, e = 0) to 1e-3 of d.
  const VectorX& x0 = run->recorder.output_states.front();
  const VectorX& x1 = run->final_state;
  const int box = model.bodies[3].state_offset;
  CHECK(std::abs(x1[box + 0] - x0[box + 0]) < 1e-9);
  CHECK(std::abs(x1[box + 1] - x0[box + 1]) < 1e-9);
  const double E_star = 2.0e11 / (2.0 * (1.0 - 0.3 * 0.3));
  const double corner_load = model.bodies[3].mass * 9.81 / 4.0;
  const double depth = std::pow(corner_load / (4.0 / 3.0 * E_star * std::sqrt(0.1)), 2.0 / 3.0);
  CHECK(0.1 - x1[box + 2] == testing::relative(depth, 1e-3));
}

// The first body's orientation in world of an inline MJCF body.
Quat body_orientation(const std::string& compiler, const std::string& body_attributes) {
  const std::string text = "<mujoco>" + compiler + "<worldbody><body " + body_attributes +
                           "><freejoint/><geom size='0.1'/></body></worldbody></mujoco>";
  return load_scene_text(text, "frames.xml").bodies[1].q_WB;  // after the world body
}

double angle_between(const Quat& a, const Quat& b) {
  return a.angularDistance(b);
}

TEST_CASE("MJCF frames: degrees, radians, euler sequences, axisangle, xyaxes, zaxis, fromto") {
  using std::numbers::pi;
  const Quat x90(Eigen::AngleAxisd(pi / 2, Vec3::UnitX()));
  const Quat y30(Eigen::AngleAxisd(pi / 6, Vec3::UnitY()));
  // Angles are degrees unless the compiler says radians (1e-15: one rounding of pi/180).
  CHECK(angle_between(body_orientation("", "euler='90 0 0'"), x90) < 1e-15);
  CHECK(angle_between(
            body_orientation("<compiler angle='radian'/>", "euler='1.5707963267948966 0 0'"), x90) <
        1e-15);
  CHECK(angle_between(body_orientation("", "axisangle='1 0 0 90'"), x90) < 1e-15);
  // Lowercase axes turn with the frame (intrinsic: R = Rx Ry), uppercase stay fixed (R = Ry Rx).
  CHECK(angle_between(body_orientation("", "euler='90 30 0'"), x90 * y30) < 1e-15);
  CHECK(angle_between(body_orientation("<compiler eulerseq='XYZ'/>", "euler='90 30 0'"),
                      y30 * x90) < 1e-15);
  // xyaxes: the body's x and y axes; zaxis: the shortest turn of z onto it.
  CHECK(angle_between(body_orientation("", "xyaxes='1 0 0 0 0 1'"), x90) < 1e-15);
  CHECK(angle_between(body_orientation("", "zaxis='0 -1 0'"), x90) < 1e-15);
  // fromto: a capsule between two points, its length the cylinder part.
  const Model model = load_scene_text(
      "<mujoco><worldbody><body><freejoint/>"
      "<geom type='capsule' size='0.1' fromto='0 0 0 2 0 0'/></body></worldbody></mujoco>",
      "fromto.xml");
  const Shape& capsule = model.shapes[0];
  CHECK(capsule.length == 2.0);
  CHECK((capsule.X_BS.translation - Vec3(1, 0, 0)).norm() < 1e-15);
  CHECK((capsule.X_BS.rotation * Vec3::UnitZ() - Vec3::UnitX()).norm() < 1e-15);
}

TEST_CASE("MJCF default classes: nested classes inherit, childclass applies, attributes win") {
  const std::string text = R"(<mujoco>
  <default>
    <geom density="1000"/>
    <default class="dense"><geom density="8000"/>
      <default class="small"><geom size="0.05"/></default>
    </default>
  </default>
  <worldbody>
    <body name="a"><freejoint/><geom size="0.1"/></body>
    <body name="b" childclass="small"><freejoint/><geom/></body>
    <body name="c" childclass="small"><freejoint/><geom density="500"/></body>
    <body name="d"><freejoint/><geom class="dense" size="0.1"/></body>
  </worldbody>
</mujoco>)";
  const Model model = load_scene_text(text, "defaults.xml");  // bodies[0]: the world body
  const auto sphere_mass = [](double density, double r) {
    return density * 4.0 / 3.0 * std::numbers::pi * r * r * r;
  };
  CHECK(model.bodies[1].mass == testing::relative(sphere_mass(1000, 0.1), 1e-14));
  CHECK(model.bodies[2].mass == testing::relative(sphere_mass(8000, 0.05), 1e-14));
  CHECK(model.bodies[3].mass == testing::relative(sphere_mass(500, 0.05), 1e-14));
  CHECK(model.bodies[4].mass == testing::relative(sphere_mass(8000, 0.1), 1e-14));
  // A geom's mass sets its density: m / (4/3 pi r^3).
  const Model given = load_scene_text(
      "<mujoco><worldbody><body><freejoint/><geom size='0.2' mass='3'/></body></worldbody>"
      "</mujoco>",
      "mass.xml");
  CHECK(given.bodies[1].mass == testing::relative(3.0, 1e-14));
}

TEST_CASE("MJCF friction: the larger sliding coefficient of a pair, the cone by <option>") {
  const std::string text = R"(<mujoco><option cone="elliptic"/><worldbody>
    <geom type="plane" friction="0.2"/>
    <body><freejoint/><geom size="0.1" friction="0.7 0 0"/></body>
    <body pos="1 0 0"><freejoint/><geom size="0.1" friction="0.4"/></body>
  </worldbody></mujoco>)";
  const Model model = load_scene_text(text, "friction.xml");
  int imported = 0;
  for (const ContactMaterial& pair : model.contact_materials) {
    if (pair.material_a.rfind("mjcf", 0) != 0) continue;  // the palette's own pairs
    ++imported;
    const auto mu = [&](const std::string& name) {
      return name == "mjcf_material0" ? 0.2 : name == "mjcf_material1" ? 0.7 : 0.4;
    };
    CAPTURE(pair.material_a);
    CAPTURE(pair.material_b);
    CHECK(pair.friction.mu_kinetic == std::max(mu(pair.material_a), mu(pair.material_b)));
    CHECK(pair.friction.cone);
    CHECK(pair.restitution == 0.0);
  }
  CHECK(imported == 6);  // three materials, every pair

  // condim: a pair takes the larger of its geoms' (MuJoCo's rule at equal priority), from a geom
  // or its default class; 1 is frictionless, 4 adds the spin torque, 6 the rolling torque.
  const auto pair_of = [](const std::string& plane, const std::string& ball) {
    const YAML::Node scene = YAML::Load(
        convert_scene_text("<mujoco><default><default class='spin'><geom condim='4'/></default>"
                           "</default><worldbody><geom type='plane' size='0 0 1' " +
                               plane + "/><body><freejoint/><geom size='0.1' density='7850' " +
                               ball + "/></body></worldbody></mujoco>",
                           "condim.xml")
            .yaml);
    for (const YAML::Node& pair : scene["contact_materials"]) {
      const std::string a = pair["pair"][0].as<std::string>();
      if (a.rfind("mjcf", 0) == 0 && a != pair["pair"][1].as<std::string>()) return pair;
    }
    return YAML::Node();
  };
  const YAML::Node frictionless = pair_of("condim='1'", "condim='1'");
  CHECK(frictionless["friction"]["mu_kinetic"].as<double>() == 0.0);
  CHECK_FALSE(frictionless["torsional_friction"]);
  const YAML::Node spin = pair_of("condim='1'", "class='spin' friction='0.5 0.02 0.003'");
  CHECK(spin["friction"]["mu_kinetic"].as<double>() == 1.0);  // the plane's default 1, larger
  CHECK(spin["torsional_patch_radius"].as<double>() ==
        testing::relative(16.0 * 0.02 / (3.0 * std::numbers::pi), 1e-15));
  CHECK_FALSE(spin["rolling_lever"]);
  const YAML::Node rolling = pair_of("condim='6'", "friction='0.5 0.02 0.003'");
  CHECK(rolling["rolling_lever"].as<double>() == 0.003);
  CHECK(rolling["rolling_resistance"].as<double>() == 1.0);

  // A geom's friction with fewer than three numbers keeps its class's others (MuJoCo reads the
  // attribute into the class's values): '0.7' under a class of '1.5 0.03 0.002' is
  // '0.7 0.03 0.002', and a nested class's '0.9' over it '0.9 0.03 0.002'.
  // (No structured binding: clang 14's CAPTURE cannot name one.)
  for (const auto& geom :
       {std::pair{"class='grippy' friction='0.7'", 0.7}, std::pair{"class='softer'", 0.9}}) {
    const std::string ball = geom.first;
    const double sliding = geom.second;
    const YAML::Node scene = YAML::Load(
        convert_scene_text(
            std::string("<mujoco><default><default class='grippy'><geom condim='6' "
                        "friction='1.5 0.03 0.002'/><default class='softer'><geom "
                        "friction='0.9'/></default></default></default><worldbody><geom "
                        "type='plane' size='0 0 1' friction='0.2'/><body><freejoint/><geom "
                        "size='0.1' density='7850' ") +
                ball + "/></body></worldbody></mujoco>",
            "partial.xml")
            .yaml);
    YAML::Node pair;
    for (const YAML::Node& entry : scene["contact_materials"]) {
      if (entry["pair"][0].as<std::string>() != entry["pair"][1].as<std::string>()) pair = entry;
    }
    CAPTURE(ball);
    REQUIRE(pair.IsMap());
    CHECK(pair["friction"]["mu_kinetic"].as<double>() == sliding);  // above the plane's 0.2
    CHECK(pair["torsional_patch_radius"].as<double>() ==
          testing::relative(16.0 * 0.03 / (3.0 * std::numbers::pi), 1e-15));
    CHECK(pair["rolling_lever"].as<double>() == 0.002);
  }
  // An empty friction is refused, class or not.
  bool refused = false;
  try {
    (void)convert_scene_text(
        "<mujoco><default><geom friction='1 0.01 0.001'/></default><worldbody><geom "
        "type='plane' size='0 0 1' friction=' '/></worldbody></mujoco>",
        "empty.xml");
  } catch (const InputError& e) {
    refused = std::string(e.what()).find("friction") != std::string::npos;
  }
  CHECK(refused);
}

// A steel ball (r = 0.1 m, MJCF density 7850) on the plane, both geoms with `geom_keys`, started
// at its Hertz depth under its weight (each body is named "ball" for the overrides).
Model ball_on_plane(const std::string& geom_keys, const std::vector<std::string>& overrides) {
  const double r = 0.1;
  const double mass = 7850.0 * 4.0 / 3.0 * std::numbers::pi * r * r * r;
  // The palette's steel for imported shapes: E* = E / (2 (1 - nu^2)), r_geo = r on a plane.
  const double E_star = 2.0e11 / (2.0 * (1.0 - 0.3 * 0.3));
  const double depth = std::pow(mass * 9.81 / (4.0 / 3.0 * E_star * std::sqrt(r)), 2.0 / 3.0);
  const std::string text = fmt::format(R"(<mujoco><worldbody>
    <geom type="plane" size="0 0 1" {0}/>
    <body name="ball" pos="0 0 {1:.17g}"><freejoint/><geom size="0.1" density="7850" {0}/></body>
  </worldbody></mujoco>)",
                                       geom_keys, r - depth);
  std::vector<std::string> all = {"simulation.rtol=1e-10", "simulation.atol=1e-12",
                                  "simulation.output_interval=0.05"};
  all.insert(all.end(), overrides.begin(), overrides.end());
  return load_scene_text(text, "ball_on_plane.xml", all);
}

TEST_CASE("MJCF condim 4: the spin slows at mu_t m g / I, mu_t the torsional coefficient (m)") {
  // MuJoCo's torsional friction is a length: spin torque mu_t f_n. A ball spinning at w0 about
  // the normal on a plane slows at alpha = mu_t m g / (2 m r^2 / 5) until it stops; with condim 3
  // (MuJoCo's default) nothing slows it. Above w_small (0.01 rad/s) the law is exact: 1e-9.
  const double r = 0.1, mu_t = 0.02, w0 = 20.0;
  const double alpha = mu_t * 9.81 / (0.4 * r * r);
  for (const int condim : {3, 4}) {
    CAPTURE(condim);
    const Model model =
        ball_on_plane(fmt::format("condim='{}' friction='0.5 {} 0'", condim, mu_t),
                      {"bodies.ball.angular_velocity=[0, 0, 20]", "simulation.stop_time=0.35"});
    const auto run = testing::run_scene(model);
    REQUIRE(run->result.status == SimulationStatus::ok);
    const int ball = model.bodies[1].state_offset;
    for (std::size_t i = 1; i < run->recorder.output_times.size(); ++i) {
      const double t = run->recorder.output_times[i];
      const double w = run->recorder.output_states[i][ball + 12];
      CAPTURE(t);
      CHECK(w == testing::relative(condim == 4 ? w0 - alpha * t : w0, 1e-9));
    }
  }
}

TEST_CASE("MJCF condim 6: rolling friction (m) slows a rolling ball at 5 mu_r g / (7 r)") {
  // MuJoCo's rolling friction is a length: rolling torque mu_r f_n. A ball rolling at v0 slows at
  // a = mu_r g / (r (1 + I / (m r^2))) = 5 mu_r g / (7 r), friction keeping it rolling (a creep
  // slip of about 1e-4 m/s, steady while the ball slows, so that it does not change a). Measured
  // between 0.2 s (the creep settled) and 1 s. The friction acts at the contact point, half the
  // Hertz depth (3.6e-6 m) inside the ball: with that lever rho, a = mu_r g rho / (r (I / m +
  // rho^2)) is larger by (3/7)(delta / 2r) = 7.8e-6 (measured 6.4e-6); 2e-5 bounds it.
  const double r = 0.1, mu_r = 0.002, v0 = 1.0;
  const double a = 5.0 * mu_r * 9.81 / (7.0 * r);
  const Model model = ball_on_plane(
      fmt::format("condim='6' friction='0.5 0 {}'", mu_r),
      {fmt::format("bodies.ball.linear_velocity=[{}, 0, 0]", v0),
       fmt::format("bodies.ball.angular_velocity=[0, {}, 0]", v0 / r), "simulation.stop_time=1.0"});
  const auto run = testing::run_scene(model);
  REQUIRE(run->result.status == SimulationStatus::ok);
  const int ball = model.bodies[1].state_offset;
  const auto velocity_at = [&](double t) {
    const auto& times = run->recorder.output_times;
    const auto i = static_cast<std::size_t>(
        std::find_if(times.begin(), times.end(), [t](double s) { return s > t - 1e-9; }) -
        times.begin());
    REQUIRE(i < times.size());
    return run->recorder.output_states[i][ball + 7];
  };
  CHECK(velocity_at(0.2) - velocity_at(1.0) == testing::relative(a * 0.8, 2e-5));
}

std::string mjcf_error(const std::string& text) {
  try {
    (void)convert_scene_text(text, "bad.xml");
  } catch (const InputError& error) {
    return error.what();
  }
  return "";
}

TEST_CASE("MJCF bad input: outside the subset, bad mass, missing mesh: file, line, element") {
  CHECK(mjcf_error("<mujoco>\n<worldbody>\n</mujoco>")
            .find("bad.xml:2: XML syntax error: XML_ERROR_MISMATCHED_ELEMENT") !=
        std::string::npos);
  CHECK(mjcf_error("<mujoco>\n<tendon/><worldbody/></mujoco>")
            .find("bad.xml:2: <tendon>: is outside the MJCF subset") != std::string::npos);
  CHECK(mjcf_error("<mujoco><worldbody><body>\n<joint/>\n<joint/><geom size='1'/></body>"
                   "</worldbody></mujoco>")
            .find("bad.xml:3: <joint>: a second joint in one body") != std::string::npos);
  CHECK(mjcf_error("<mujoco><worldbody><body><freejoint/>\n<inertial mass='0' diaginertia='1 1 "
                   "1'/></body></worldbody></mujoco>")
            .find("bad.xml:2: <inertial>: the mass must be positive") != std::string::npos);
  CHECK(mjcf_error("<mujoco><worldbody><body><freejoint/>\n<inertial mass='1' diaginertia='1 1 "
                   "3'/></body></worldbody></mujoco>")
            .find("one exceeds the sum") != std::string::npos);
  CHECK(mjcf_error("<mujoco><asset>\n<mesh name='m' file='missing.obj'/></asset><worldbody><body>"
                   "<freejoint/><geom type='mesh' mesh='m'/></body></worldbody></mujoco>")
            .find("bad.xml:2: <mesh name='m'>: the mesh file 'missing.obj' is not found") !=
        std::string::npos);
  CHECK(mjcf_error("<mujoco><worldbody><body><freejoint/>\n<geom class='nope' size='1'/></body>"
                   "</worldbody></mujoco>")
            .find("bad.xml:2: <geom>: the default class 'nope' does not exist") !=
        std::string::npos);
  CHECK(mjcf_error("<mujoco><worldbody><body><freejoint/>\n<geom size='1 x'/></body>"
                   "</worldbody></mujoco>")
            .find("bad.xml:2: <geom>: attribute size='1 x': 'x' is not a finite number") !=
        std::string::npos);
  CHECK(mjcf_error("<mujoco><worldbody><body><freejoint/>\n<geom size='1' condim='2'/></body>"
                   "</worldbody></mujoco>")
            .find("bad.xml:2: <geom>: condim: 1, 3, 4 or 6") != std::string::npos);
  CHECK(mjcf_error("<mujoco><worldbody><body><freejoint/>\n<geom size='1' friction='1 -1'/>"
                   "</body></worldbody></mujoco>")
            .find("bad.xml:2: <geom>: friction: 'sliding torsional rolling', each >= 0") !=
        std::string::npos);
  // Warned, not dropped: an actuator, with its line.
  const ConvertedScene warned = convert_scene_text(
      "<mujoco><worldbody><body><joint/><geom size='1'/></body></worldbody>\n<actuator/>"
      "</mujoco>",
      "warn.xml");
  REQUIRE(warned.warnings.size() == 1);
  CHECK(warned.warnings[0].find("warn.xml:2: <actuator>: actuators are not imported") !=
        std::string::npos);
  // A hinge to a world body without geoms: the world body is there all the same.
  const Model hinged = load_scene_text(
      "<mujoco><worldbody><body pos='0 0 -1'><joint axis='1 0 0' pos='0 0 1'/><geom size='0.1'/>"
      "</body></worldbody></mujoco>",
      "hinged.xml");
  CHECK(hinged.joints.size() == 1);
  // Values no MuJoCo file means: a fractional contype, degenerate xyaxes, fromto on a box.
  CHECK(mjcf_error("<mujoco><worldbody><body><freejoint/>\n<geom size='1' contype='1.5'/></body>"
                   "</worldbody></mujoco>")
            .find("bad.xml:2: <geom>: contype: a whole number") != std::string::npos);
  CHECK(mjcf_error("<mujoco><worldbody>\n<body xyaxes='1 0 0 2 0 0'><freejoint/><geom size='1'/>"
                   "</body></worldbody></mujoco>")
            .find("bad.xml:2: <body>: xyaxes: the y axis is zero or along x") != std::string::npos);
  CHECK(mjcf_error("<mujoco><worldbody><body><freejoint/>\n<geom type='box' size='1 1 1' "
                   "fromto='0 0 0 1 0 0'/></body></worldbody></mujoco>")
            .find("bad.xml:2: <geom>: fromto") != std::string::npos);
}

}  // namespace
}  // namespace hybridsim
