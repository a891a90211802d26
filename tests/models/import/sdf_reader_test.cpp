// SDFormat worlds (models/import/sdf_reader.cpp, sdf_surface.cpp) read by libsdformat: Gazebo's
// friction test worlds written as SDF from their published parameters against the catalog scenes
// that model the same worlds (bit-identical motion), the references those scenes are checked
// against, Gazebo's rules for combining two surfaces, includes along the resource path, and bad
// input with file, line and element.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <numbers>

#include <fmt/ranges.h>
#include <yaml-cpp/yaml.h>

#include "cli_support.hpp"
#include "collision/triangle_surface.hpp"
#include "core/errors.hpp"
#include "import_test_support.hpp"
#include "models/scene_import.hpp"

namespace hybridsim {
namespace {

using testing::check_same_motion;
using testing::import_data;

constexpr double kG = 9.81;

TEST_CASE("SDF friction demo: the catalog scene's motion bit for bit, mu 0.98 slides, 1 holds") {
  // The catalog scene's own simulation settings (SDFormat has no place for them).
  const std::vector<std::string> settings = {
      "simulation.stop_time=1.0", "simulation.integrator=cvode-bdf", "simulation.rtol=1e-8",
      "simulation.atol=1e-10", "simulation.output_interval=0.005"};
  const Model sdf = load_scene_file(import_data("friction_demo.sdf"), settings);
  const Model yaml = load_scene_file("friction_demo_stick_slip", settings);
  // Gazebo's rules made the catalog's pairs: mu = min(floor 100, plate), restitution 0.5 above
  // 0.01 m/s, ODE's sticking friction as stick-slip with mu_s = mu_k.
  const int floor = sdf.shapes[sdf.bodies[sdf.find_body("floor")].shapes.front()].contact_material;
  const int plate = sdf.shapes[sdf.bodies[sdf.find_body("mu_098")].shapes.front()].contact_material;
  const ContactMaterial& pair = sdf.contact_materials[sdf.find_contact_material(floor, plate)];
  CHECK(pair.friction.model == FrictionModel::stick_slip);
  CHECK(pair.friction.mu_kinetic == 0.98);
  CHECK(pair.friction.mu_static == 0.98);
  CHECK(pair.restitution == 0.5);
  CHECK(pair.v_small == 0.01);

  const auto sdf_run = testing::run_scene(sdf);
  const auto yaml_run = testing::run_scene(yaml);
  check_same_motion(*sdf_run, *yaml_run);

  // Gazebo's expectation, independently: mu = 0.98 slides from rest at a = g (sin 45 - mu cos 45)
  // (1e-6: rtol 1e-8 and the plate's pitch transient as it starts), the others do not move
  // (1e-12 m: they stick from t = 0).
  const testing::Recorder& recorder = sdf_run->recorder;
  const auto body_state = [&](const std::string& name) {
    return sdf_run->system->compute_kinematics(recorder.output_states.back())[sdf.find_body(name)];
  };
  const double s45 = std::sin(std::numbers::pi / 4.0);
  CHECK(body_state("mu_098").v_WCom_W.x() == testing::relative(kG * (s45 - 0.98 * s45), 1e-6));
  for (const char* name : {"mu_100", "mu_102"}) {
    CAPTURE(name);
    const Body& body = sdf.bodies[sdf.find_body(name)];
    CHECK((body_state(name).X_WB.translation - body.p_WB).norm() < 1e-12);
  }
}

TEST_CASE("SDF sphere slip: the catalog scene's motion bit for bit, steady slip m g_t c / n") {
  const std::vector<std::string> settings = {
      "simulation.stop_time=6.0",     "simulation.integrator=cvode-bdf",
      "simulation.linear_solver=klu", "simulation.rtol=1e-8",
      "simulation.atol=1e-10",        "simulation.output_interval=0.05"};
  const Model sdf = load_scene_file(import_data("sphere_slip.sdf"), settings);
  const Model yaml = load_scene_file("sphere_slip", settings);
  const auto sdf_run = testing::run_scene(sdf);
  const auto yaml_run = testing::run_scene(yaml);
  check_same_motion(*sdf_run, *yaml_run);

  // Gazebo's reference: the slip speed v = m g_t c / n of each model (n = 1 for lowball, 2 and 3
  // for two- and triball, 4 corners for the box whose compliance the contact count scales back),
  // reached to e^-10 by 6 s: 1e-3 relative, as the catalog test.
  const auto kinematics =
      sdf_run->system->compute_kinematics(sdf_run->recorder.output_states.back());
  int checked = 0;
  for (std::size_t b = 0; b < sdf.bodies.size(); ++b) {
    const Body& body = sdf.bodies[b];
    if (body.fixed) continue;
    CAPTURE(body.name);
    const double c = body.name.back() == 'a' ? 0.2 : 0.1;
    const int points = body.name.starts_with("twoball")   ? 2
                       : body.name.starts_with("triball") ? 3
                                                          : 1;
    const double expected = body.mass * 2.0 * c / points;
    CHECK(kinematics[b].v_WCom_W.y() == testing::relative(expected, 1e-3));
    ++checked;
  }
  CHECK(checked == 24);
}

std::string sdf_world(const std::string& models) {
  return "<?xml version='1.0'?>\n<sdf version='1.9'>\n<world name='w'>\n" + models +
         "\n</world>\n</sdf>\n";
}

// A static plane and a free ball, each with the surface text given.
std::string two_surfaces(const std::string& ground, const std::string& ball) {
  return sdf_world(
      "<model name='ground'><static>true</static><link name='l'><collision name='plane'>"
      "<geometry><plane><normal>0 0 1</normal></plane></geometry>\n<surface>" +
      ground +
      "</surface></collision></link></model>\n"
      "<model name='ball'><pose>0 0 1 0 0 0</pose><link name='l'><inertial><mass>1</mass>"
      "<inertia><ixx>0.004</ixx><iyy>0.004</iyy><izz>0.004</izz></inertia></inertial>"
      "<collision name='s'><geometry><sphere><radius>0.1</radius></sphere></geometry>\n<surface>" +
      ball + "</surface></collision></link></model>");
}

// The contact pair of the ground and the ball in a converted world.
YAML::Node ground_ball_pair(const ConvertedScene& converted) {
  const YAML::Node scene = YAML::Load(converted.yaml);
  const std::string ground = scene["bodies"][0]["shapes"][0]["material"].as<std::string>();
  const std::string ball = scene["bodies"][1]["shapes"][0]["material"].as<std::string>();
  for (const YAML::Node& pair : scene["contact_materials"]) {
    const auto a = pair["pair"][0].as<std::string>(), b = pair["pair"][1].as<std::string>();
    if ((a == ground && b == ball) || (a == ball && b == ground)) return pair;
  }
  FAIL("no pair of the ground and the ball");
  return {};
}

TEST_CASE("SDF min_depth: ODE's uncorrected depth per link, the last collision's") {
  // gazebo-classic gives each link's ODE body the min_depth of its collisions in turn (the last
  // holds) and a static link none (the ground's 0.001 would otherwise be the smaller); the
  // contact joint takes the smaller of its two bodies'. A
  // 1 kg ball (kp 1e5 and ODE's default 1e12 of the ground in series, kd 50 + 1: decay time
  // 2 m / kd = 0.04 s, settled at 2 s) then rests at min_depth + m g / kp. max_vel is not read:
  // gazebo-classic corrects positions in full and caps only the velocity kept, so the ball
  // rests under SDFormat's default max_vel of 0.01 m/s too. SDFormat's gravity is 9.8 m/s^2.
  const double g = 9.8, kp = 1e5 * 1e12 / (1e5 + 1e12);
  const std::string world =
      "<model name='ground'><static>true</static><link name='l'><collision name='plane'>"
      "<geometry><plane><normal>0 0 1</normal></plane></geometry><surface><contact><ode>"
      "<min_depth>0.001</min_depth></ode></contact></surface></collision></link></model>\n"
      "<model name='ball'><pose>0 0 0.11 0 0 0</pose><link name='l'><inertial><mass>1</mass>"
      "<inertia><ixx>0.004</ixx><iyy>0.004</iyy><izz>0.004</izz></inertia></inertial>"
      "<collision name='a'><geometry><sphere><radius>0.1</radius></sphere></geometry>"
      "<surface><contact><ode><kp>1e5</kp><kd>50</kd><min_depth>0.5</min_depth></ode></contact>"
      "</surface></collision>"
      "<collision name='b'><pose>0 0 0.2 0 0 0</pose><geometry><sphere><radius>0.05</radius>"
      "</sphere></geometry><surface><contact><ode><kp>1e5</kp><kd>50</kd>"
      "<min_depth>0.002</min_depth></ode></contact></surface></collision></link></model>";
  const ConvertedScene converted = convert_scene_text(sdf_world(world), "w.sdf");
  const YAML::Node pair = ground_ball_pair(converted);
  CHECK(pair["min_depth"].as<double>() == 0.002);
  CHECK(!pair["max_vel"]);
  const std::string warnings = fmt::format("{}", fmt::join(converted.warnings, "\n"));
  CHECK(warnings.find("<collision name='plane'>: min_depth on a static link does not act") !=
        std::string::npos);
  CHECK(warnings.find("different min_depth: the last one's, 0.002 m, holds for all") !=
        std::string::npos);
  const Model model =
      load_scene_text(converted.yaml, "w.yaml",
                      {"simulation.stop_time=2", "simulation.rtol=1e-10", "simulation.atol=1e-14"});
  const auto run = testing::run_scene(model);
  REQUIRE(run->result.status == SimulationStatus::ok);
  const double z = run->final_state[model.bodies[model.find_body("ball")].state_offset + 2];
  // rtol 1e-10 on a depth of 2e-3 m, the transient e^-50: 1e-7 relative is ample.
  CHECK(0.1 - z == testing::relative(0.002 + g / kp, 1e-7));
}

TEST_CASE("SDF surfaces: Gazebo's rules for two surfaces, warnings with their lines") {
  // Springs in series, dampers in parallel; the smaller friction and restitution; bounce above
  // the smaller threshold.
  ConvertedScene converted = convert_scene_text(
      two_surfaces("<contact><ode><kp>1e6</kp><kd>10</kd></ode></contact>"
                   "<bounce><restitution_coefficient>0.8</restitution_coefficient>"
                   "<threshold>0.5</threshold></bounce>"
                   "<friction><ode><mu>0.4</mu><mu2>0.4</mu2></ode></friction>",
                   "<contact><ode><kp>3e6</kp><kd>20</kd>\n<max_vel>0.1</max_vel>"
                   "<min_depth>0.001</min_depth></ode></contact>"
                   "<bounce><restitution_coefficient>0.6</restitution_coefficient>"
                   "<threshold>0.2</threshold></bounce>"
                   "<friction><ode><mu>0.7</mu><mu2>0.7</mu2></ode></friction>"),
      "w.sdf");
  YAML::Node pair = ground_ball_pair(converted);
  CHECK(pair["normal_law"].as<std::string>() == "linear");
  CHECK(pair["kp"].as<double>() == testing::relative(1e6 * 3e6 / 4e6, 1e-15));
  CHECK(pair["kd"].as<double>() == 30.0);
  CHECK(pair["restitution"].as<double>() == 0.6);
  CHECK(pair["v_small"].as<double>() == 0.2);
  CHECK(pair["friction"]["model"].as<std::string>() == "stick_slip");
  CHECK(pair["friction"]["mu_kinetic"].as<double>() == 0.4);
  // ODE's uncorrected depth of the moving ball's link; max_vel has no counterpart, with the line.
  CHECK(pair["min_depth"].as<double>() == 0.001);
  CHECK(!pair["max_vel"]);
  const std::string warnings = fmt::format("{}", fmt::join(converted.warnings, "\n"));
  CHECK(warnings.find("<collision name='s'> (line 8, <max_vel>): ignored") != std::string::npos);
  // The converted scene loads and runs: the ball lands.
  const Model model = load_scene_text(converted.yaml, "w.yaml", {"simulation.stop_time=0.5"});
  const auto run = testing::run_scene(model);
  CHECK(run->result.status == SimulationStatus::ok);

  // Slip compliances add (Gazebo 11) and the contact count scales them; mu and mu2 that differ
  // give a regularised pyramid with a warning; a torsional patch (3 pi / 16) a mu N.
  converted = convert_scene_text(
      two_surfaces("<friction><ode><slip1>0.01</slip1><slip2>0.02</slip2></ode></friction>",
                   "<friction><ode><mu>0.5</mu><mu2>0.3</mu2><slip1>0.03</slip1>"
                   "<slip2>0.04</slip2></ode><torsional><coefficient>0.2</coefficient>"
                   "<patch_radius>0.01</patch_radius></torsional></friction>"),
      "w.sdf");
  pair = ground_ball_pair(converted);
  CHECK(pair["friction"]["model"].as<std::string>() == "slip_compliance");
  CHECK(pair["friction"]["slip_compliance"][0].as<double>() == testing::relative(0.04, 1e-15));
  CHECK(pair["friction"]["slip_compliance"][1].as<double>() == testing::relative(0.06, 1e-15));
  CHECK(pair["friction"]["scale_by_contact_count"].as<bool>());
  CHECK(pair["friction"]["mu2"].as<double>() == 0.3);
  CHECK(pair["torsional_friction"].as<double>() == 0.2);
  CHECK(pair["torsional_patch_radius"].as<double>() == 0.01);
  // Neither an elastic modulus nor kp: the default material's Hertz law, said once.
  CHECK(fmt::format("{}", fmt::join(converted.warnings, "\n"))
            .find("give neither contact/elastic_modulus nor contact/ode/kp") != std::string::npos);

  // Surface radii: curvatures add; collide_without_contact: an observer pair.
  converted = convert_scene_text(
      two_surfaces("<friction><torsional><use_patch_radius>false</use_patch_radius>"
                   "<surface_radius>0.3</surface_radius></torsional></friction>"
                   "<contact><collide_without_contact>true</collide_without_contact></contact>",
                   "<friction><torsional><use_patch_radius>false</use_patch_radius>"
                   "<surface_radius>0.1</surface_radius></torsional></friction>"),
      "w.sdf");
  pair = ground_ball_pair(converted);
  CHECK(pair["torsional_surface_radius"].as<double>() ==
        testing::relative(1.0 / (1.0 / 0.3 + 1.0 / 0.1), 1e-15));
  CHECK(pair["observer"].as<bool>());
}

TEST_CASE("Gazebo's torsional patch: a spinning ball slows at (3 pi / 16) a mu m g / I") {
  // A ball spinning about the vertical on a plane, the only torque the patch's: the spin falls
  // linearly at (3 pi / 16) a mu m g / I above w_small. Timed from 10 to 2 rad/s.
  const double a = 0.01, mu_tor = 0.5, m = 1.0, r = 0.1, I = 0.4 * m * r * r;
  const ConvertedScene converted = convert_scene_text(
      two_surfaces("<friction><torsional><coefficient>0.5</coefficient><patch_radius>0.01"
                   "</patch_radius></torsional><ode><mu>0</mu><mu2>0</mu2></ode></friction>",
                   ""),
      "w.sdf");
  const Model model = load_scene_text(
      converted.yaml, "w.yaml",
      {"bodies.ball.position=[0, 0, 0.0999]", "bodies.ball.inertia=[0.004, 0.004, 0.004, 0, 0, 0]",
       "bodies.ball.angular_velocity=[0, 0, 12]", "simulation.stop_time=3", "simulation.rtol=1e-10",
       "simulation.atol=1e-12", "simulation.output_interval=0.01"});
  const auto run = testing::run_scene(model);
  REQUIRE(run->result.status == SimulationStatus::ok);
  const double g = 9.8;  // SDFormat's default gravity: the world gives none
  const double rate = 3.0 * std::numbers::pi / 16.0 * a * mu_tor * m * g / I;
  // The times the spin passes 10 and 2 rad/s, interpolated between outputs (it falls linearly).
  double t10 = -1.0, t2 = -1.0, previous_w = 0.0;
  for (std::size_t i = 0; i < run->recorder.output_states.size(); ++i) {
    const double w = run->system->compute_kinematics(run->recorder.output_states[i])[1].w_WB_W.z();
    const double t = run->recorder.output_times[i];
    const auto crossing = [&](double level) {
      const double dt = t - run->recorder.output_times[i - 1];
      return t - dt * (level - w) / (previous_w - w);
    };
    if (t10 < 0.0 && i > 0 && w <= 10.0) t10 = crossing(10.0);
    if (t2 < 0.0 && i > 0 && w <= 2.0) t2 = crossing(2.0);
    previous_w = w;
  }
  REQUIRE(t2 > t10);
  // Measured 8.9e-16 relative: the spin falls exactly linearly, so interpolation is exact; 1e-9
  // leaves room for rtol 1e-10 over the 1.1 s.
  CHECK((t2 - t10) == testing::relative(8.0 / rate, 1e-9));
}

TEST_CASE("SDF includes: model:// along the resource path, nested models, relative meshes") {
  const auto dir = testing::temporary_directory();
  std::filesystem::create_directories(dir / "models" / "rock" / "meshes");
  std::ofstream(dir / "models" / "rock" / "model.config")
      << "<?xml version='1.0'?><model><name>rock</name><sdf version='1.9'>model.sdf</sdf></model>";
  std::ofstream(dir / "models" / "rock" / "model.sdf")
      << "<?xml version='1.0'?><sdf version='1.9'><model name='rock'><link name='l'>"
         "<inertial><mass>2</mass><inertia><ixx>0.1</ixx><iyy>0.1</iyy><izz>0.1</izz></inertia>"
         "</inertial><collision name='hull'><geometry><mesh><uri>meshes/tetra.obj</uri></mesh>"
         "</geometry></collision></link></model></sdf>";
  std::ofstream(dir / "models" / "rock" / "meshes" / "tetra.obj")
      << "v 0 0 0\nv 0.1 0 0\nv 0 0.1 0\nv 0 0 0.1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n";
  const std::string world = sdf_world(
      "<model name='pile'><pose>1 0 0 0 0 1.5707963267948966</pose>"
      "<include><uri>model://rock</uri><name>rock_a</name><pose>2 0 0.5 0 0 0</pose></include>"
      "<model name='inner'><pose>0 0 1 0 0 0</pose><link name='l'><inertial><mass>1</mass>"
      "<inertia><ixx>1</ixx><iyy>1</iyy><izz>1</izz></inertia></inertial></link></model>"
      "</model>");
  std::ofstream(dir / "world.sdf") << world;
  // Without the resource path the include cannot be found: an error naming the URI.
  try {
    (void)convert_scene_file((dir / "world.sdf").string(), ImportOptions{});
    FAIL("the include was found without its path");
  } catch (const InputError& error) {
    CHECK(std::string(error.what()).find("model://rock") != std::string::npos);
  }
  ImportOptions options;
  options.resource_paths = {std::string((dir / "models").string())};
  const Model model = load_scene_file((dir / "world.sdf").string(), {}, options);
  // The included model, a body of one link named after the model inside its parent; its pose is
  // the parent's composed with the include's: (1, 0, 0) + Rz(90) (2, 0, 0.5) = (1, 2, 0.5).
  const Body& rock = model.bodies[model.find_body("pile::rock_a")];
  CHECK((rock.p_WB - Vec3(1.0, 2.0, 0.5)).norm() < 1e-15);
  CHECK(rock.mass == 2.0);
  CHECK(model.shapes[rock.shapes.front()].type == ShapeType::convex);
  const Body& inner = model.bodies[model.find_body("pile::inner")];
  CHECK((inner.p_WB - Vec3(1.0, 0.0, 1.0)).norm() < 1e-15);
  std::filesystem::remove_all(dir);
}

TEST_CASE("SDF static geometry: a heightmap image with its offset, a mesh as triangles") {
  const auto dir = testing::temporary_directory();
  // A 3 x 3 gray image, levels 0..4 mapped to 0..1 m over 4 x 4 m.
  std::ofstream(dir / "terrain.pgm") << "P2\n3 3\n4\n0 1 2\n1 2 3\n2 3 4\n";
  std::ofstream(dir / "rock.obj")
      << "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n";
  std::ofstream(dir / "world.sdf") << sdf_world(
      "<model name='ground'><static>true</static><link name='l'>"
      "<collision name='hills'><pose>1 0 0 0 0 0</pose><geometry><heightmap>"
      "<uri>terrain.pgm</uri><size>4 4 1</size><pos>0 0 0.5</pos></heightmap></geometry>"
      "</collision><collision name='rock'><geometry><mesh><uri>rock.obj</uri><scale>2 2 2</scale>"
      "</mesh></geometry></collision></link></model>"
      "<model name='ball'><pose>0 0 3 0 0 0</pose><link name='l'><inertial><mass>1</mass>"
      "<inertia><ixx>1</ixx><iyy>1</iyy><izz>1</izz></inertia></inertial></link></model>");
  const Model model = load_scene_file((dir / "world.sdf").string());
  const Body& ground = model.bodies[model.find_body("ground")];
  REQUIRE(ground.shapes.size() == 2u);
  const Shape& hills = model.shapes[ground.shapes[0]];
  CHECK(hills.type == ShapeType::heightmap);
  // The collision's pose and the heightmap's <pos> added: (1, 0, 0.5).
  CHECK((hills.X_BS.translation - Vec3(1.0, 0.0, 0.5)).norm() < 1e-15);
  const Shape& rock = model.shapes[ground.shapes[1]];
  CHECK(rock.type == ShapeType::mesh);
  // Gazebo's orientation: the image's top row at +y/2 (gray 0, 1, 2 from -x to +x), its bottom
  // row at -y/2 (2, 3, 4): the highest point, 1 m, at (+2, -2).
  const TriangleSurface& surface = *hills.surface;
  const auto height_at = [&](double x, double y) {
    for (const Vec3& v : surface.vertices_S) {
      if (std::abs(v.x() - x) < 1e-12 && std::abs(v.y() - y) < 1e-12) return v.z();
    }
    return kNaN;
  };
  CHECK(height_at(-2.0, 2.0) == 0.0);
  CHECK(height_at(2.0, 2.0) == testing::relative(0.5, 1e-15));
  CHECK(height_at(2.0, -2.0) == testing::relative(1.0, 1e-15));
  // Gazebo raises the brightest pixel, not the format's maximum, to <size>'s z: levels 0..4 of
  // 8 still reach 1 m.
  std::ofstream(dir / "dim.pgm") << "P2\n3 3\n8\n0 1 2\n1 2 3\n2 3 4\n";
  std::ofstream(dir / "dim.sdf") << sdf_world(
      "<model name='ground'><static>true</static><link name='l'><collision name='hills'>"
      "<geometry><heightmap><uri>dim.pgm</uri><size>4 4 1</size></heightmap></geometry>"
      "</collision></link></model>"
      "<model name='ball'><pose>0 0 3 0 0 0</pose><link name='l'><inertial><mass>1</mass>"
      "<inertia><ixx>1</ixx><iyy>1</iyy><izz>1</izz></inertia></inertial></link></model>");
  const Model dim = load_scene_file((dir / "dim.sdf").string());
  const Shape& dim_hills = dim.shapes[dim.bodies[dim.find_body("ground")].shapes[0]];
  CHECK(dim_hills.surface->max_S.z() == testing::relative(1.0, 1e-15));  // 0.5 without
  // An image that cannot be read: the error names the collision and the file.
  std::ofstream(dir / "dim.pgm") << "P2\n3 3\n8\n0 1\n";
  std::string message;
  try {
    (void)load_scene_file((dir / "dim.sdf").string());
  } catch (const InputError& error) {
    message = error.what();
  }
  CHECK(message.find("<collision name='hills'>") != std::string::npos);
  CHECK(message.find("dim.pgm") != std::string::npos);
  std::filesystem::remove_all(dir);
}

std::string sdf_error(const std::string& text) {
  try {
    (void)convert_scene_text(text, "bad.sdf");
  } catch (const InputError& error) {
    return error.what();
  }
  return "";
}

TEST_CASE("SDF bad input: every class is an error naming the file, the line and the element") {
  const std::string link =
      "<link name='l'><inertial><mass>1</mass><inertia><ixx>1</ixx>"
      "<iyy>1</iyy><izz>1</izz></inertia></inertial></link>";
  // Malformed XML.
  CHECK(sdf_error("<?xml version='1.0'?>\n<sdf version='1.9'>\n<world name='w'>\n</sdf>")
            .find("bad.sdf") != std::string::npos);
  // A joint whose parent does not exist: libsdformat's message with the joint's line.
  const std::string joint =
      sdf_error(sdf_world("<model name='m'>" + link +
                          "\n<joint name='j' type='revolute'><parent>nowhere</parent>"
                          "<child>l</child><axis><xyz>0 0 1</xyz></axis></joint></model>"));
  CHECK(joint.find("bad.sdf") != std::string::npos);
  CHECK(joint.find("nowhere") != std::string::npos);
  // A required attribute missing (found by fuzzing: libsdformat names the text "<data-string>").
  CHECK(sdf_error(sdf_world("<model name='m'>" + link +
                            "\n<joint type='fixed'><parent>world</parent><child>l</child></joint>"
                            "</model>"))
            .find("bad.sdf:5: Required attribute[name] in element[joint] is not specified") !=
        std::string::npos);
  // A moving link without a positive mass.
  CHECK(sdf_error(sdf_world("<model name='m'>\n<link name='l'><inertial><mass>0</mass>"
                            "</inertial></link></model>"))
            .find("bad.sdf:5: <link name='l'>: a moving link needs a positive mass") !=
        std::string::npos);
  // An inertia no body has: libsdformat's own check, which names the link but no line.
  CHECK(sdf_error(sdf_world("<model name='m'>\n<link name='l'><inertial><mass>1</mass><inertia>"
                            "<ixx>1</ixx><iyy>1</iyy><izz>3</izz></inertia></inertial></link>"
                            "</model>"))
            .find("bad.sdf: A link named l has invalid inertia") != std::string::npos);
  // A missing mesh, an unresolvable model:// URI, a mesh format hybridsim does not read.
  const auto mesh = [&](const std::string& uri) {
    return sdf_error(
        sdf_world("<model name='m'><static>true</static><link name='l'>\n"
                  "<collision name='c'><geometry><mesh><uri>" +
                  uri + "</uri></mesh></geometry></collision></link></model>"));
  };
  CHECK(mesh("missing.obj")
            .find("bad.sdf:5: <collision name='c'>: the mesh 'missing.obj' is not "
                  "found") != std::string::npos);
  CHECK(mesh("model://nowhere/m.obj").find("the mesh 'model://nowhere/m.obj' is not found") !=
        std::string::npos);
  CHECK(mesh(import_data("pendulum.urdf")).find("hybridsim reads OBJ meshes") != std::string::npos);
  // Surface values no law takes: negative friction (libsdformat's range check).
  CHECK(sdf_error(two_surfaces("<friction><ode><mu>-1</mu></ode></friction>", ""))
            .find(":5: Error reading element <mu>") != std::string::npos);
  // Ones libsdformat accepts: NaN (its range check passes it), a negative slip compliance.
  CHECK(sdf_error(two_surfaces("<friction><ode>\n<mu>nan</mu></ode></friction>", ""))
            .find("bad.sdf:4: <collision name='plane'> (line 6, <mu>): must be a finite number") !=
        std::string::npos);
  CHECK(sdf_error(two_surfaces("<friction><ode>\n<slip1>-1</slip1></ode></friction>", ""))
            .find("bad.sdf:4: <collision name='plane'> (line 6, <slip1>): must be 0 or more") !=
        std::string::npos);
}

}  // namespace
}  // namespace hybridsim
