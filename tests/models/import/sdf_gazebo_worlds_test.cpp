// Gazebo's friction rings written as SDFormat worlds (tests/models/import/data/
// make_ring_worlds.py writes them from the catalog scenes): ODE's cone_model, fdir1 in turned
// links and models, and launch velocities in the world's <state>. Each runs bit for bit as the
// hybridsim scene it equals and passes the catalog scene's closed forms
// (physics/friction_ring_checks.hpp).
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include <fmt/ranges.h>
#include <yaml-cpp/yaml.h>

#include "core/errors.hpp"
#include "import_test_support.hpp"
#include "models/import/sdf_surface.hpp"
#include "models/scene_import.hpp"
#include "physics/friction_ring_checks.hpp"

namespace hybridsim {
namespace {

using testing::check_same_motion;
using testing::import_data;

// The floor's contact pair with the first box of a ring world.
const ContactMaterial& floor_box_pair(const Model& model) {
  const int floor =
      model.shapes[model.bodies[model.find_body("floor")].shapes.front()].contact_material;
  const int box =
      model.shapes[model.bodies[model.find_body("ring0_box00")].shapes.front()].contact_material;
  return model.contact_materials[model.find_contact_material(floor, box)];
}

// A catalog ring scene as the SDF world gives it: its turns about z as the quaternions SDFormat
// makes of them, (cos, 0, 0, sin) of half the angle normalised (libignition-math's
// Quaternion::Euler), which hybridsim normalises again as it does any scene's quaternion; for 6
// of the 44 yaw angles of fdir1_ring this differs from the rpy's rotation in the last bit. And the
// centre of mass where Gazebo's inertial puts it, at the link's origin (the catalog scene leaves
// it to hybridsim, which takes the shapes' centroid: 0.3 um lower for the corner spheres).
Model ring_scene_with_quaternions(const std::string& name,
                                  const std::vector<std::string>& settings) {
  YAML::Node scene =
      YAML::LoadFile(std::string(HYBRIDSIM_MODELS_DIR) + "/scenes/" + name + ".yaml");
  const auto as_quaternion = [](YAML::Node node) {
    if (!node["orientation"]) return;
    const double yaw = node["orientation"]["rpy"][2].as<double>();
    REQUIRE(node["orientation"]["rpy"][0].as<double>() == 0.0);
    REQUIRE(node["orientation"]["rpy"][1].as<double>() == 0.0);
    const double w = std::cos(yaw / 2.0), z = std::sin(yaw / 2.0);
    const double norm = std::sqrt(w * w + z * z);
    YAML::Node quaternion;
    quaternion["quaternion"].push_back(w / norm);
    quaternion["quaternion"].push_back(0.0);
    quaternion["quaternion"].push_back(0.0);
    quaternion["quaternion"].push_back(z / norm);
    node["orientation"] = quaternion;
  };
  for (std::size_t b = 0; b < scene["bodies"].size(); ++b) {
    as_quaternion(scene["bodies"][b]);
    if (scene["bodies"][b]["mass"]) {
      scene["bodies"][b]["center_of_mass"] = std::vector<double>{0.0, 0.0, 0.0};
    }
    for (std::size_t s = 0; s < scene["bodies"][b]["shapes"].size(); ++s) {
      as_quaternion(scene["bodies"][b]["shapes"][s]);
    }
  }
  return load_scene_text(YAML::Dump(scene), name + ".yaml", settings);
}

TEST_CASE("SDF friction cone ring: cone_model and <state> velocities, the catalog's closed form") {
  // The catalog's settings over 0.5 s (the closed form holds from t = 0; 1.5 s costs 3x).
  const std::vector<std::string> settings = {
      "simulation.stop_time=0.5",     "simulation.integrator=cvode-bdf",
      "simulation.linear_solver=klu", "simulation.rtol=1e-8",
      "simulation.atol=1e-10",        "simulation.output_interval=0.05"};
  // libsdformat takes 3.5 s to read this world's 800 collisions: it is read once, converted,
  // and the converted scene run (the convert-then-run path; `hybridsim run` of the SDF file gives
  // the same model, as tools/import_cli_test.cpp checks with the smaller fdir1 ring).
  const ConvertedScene converted = convert_scene_file(import_data("friction_cone_ring.sdf"));
  const Model sdf = load_scene_text(converted.yaml, "friction_cone_ring.yaml", settings);
  // ODE's cone_model with mu = mu2 = 0.3 is hybridsim's cone; the 160 boxes could touch in
  // 160 * 159 / 2 + 160 = 12,880 pairs of bodies, more than stick-slip friction takes, so the
  // cone is the regularised one, with a warning. The launch speeds are the <state>'s.
  const ContactMaterial& pair = floor_box_pair(sdf);
  CHECK(pair.friction.model == FrictionModel::regularized_coulomb);
  CHECK(pair.friction.cone);
  CHECK(pair.friction.mu_kinetic == 0.3);
  CHECK(pair.friction.v_small == kSdfFrictionSmallSpeed);
  CHECK(fmt::format("{}", fmt::join(converted.warnings, "\n"))
            .find("could touch in 12880 pairs, more than stick-slip friction takes") !=
        std::string::npos);
  const Body& box = sdf.bodies[sdf.find_body("ring4_box31")];
  CHECK(box.v_WB_W.x() == 12.750208645241994);
  CHECK(box.v_WB_W.y() == -2.536174186209673);

  const auto sdf_run = testing::run_scene(sdf);
  const auto yaml_run =
      testing::run_scene(ring_scene_with_quaternions("friction_cone_ring", settings));
  check_same_motion(*sdf_run, *yaml_run);
  testing::check_friction_cone_ring(*sdf_run);
}

TEST_CASE("SDF fdir1 ring: fdir1 in turned links and models, the catalog's motion bit for bit") {
  const std::vector<std::string> settings = {
      "simulation.stop_time=1.5",     "simulation.integrator=cvode-bdf",
      "simulation.linear_solver=klu", "simulation.rtol=1e-8",
      "simulation.atol=1e-10",        "simulation.output_interval=0.05"};
  const Model sdf = load_scene_file(import_data("fdir1_ring.sdf"), settings);
  // mu 100 and mu2 0 differ: the regularised pyramid at hybridsim's stand-in for ODE's sticking.
  const ContactMaterial& pair = floor_box_pair(sdf);
  CHECK(pair.friction.model == FrictionModel::regularized_coulomb);
  CHECK_FALSE(pair.friction.cone);
  CHECK(pair.friction.mu_kinetic == 100.0);
  CHECK(pair.friction.mu2 == 0.0);
  CHECK(pair.friction.v_small == kSdfFrictionSmallSpeed);

  const auto sdf_run = testing::run_scene(sdf);
  const auto yaml_run = testing::run_scene(ring_scene_with_quaternions("fdir1_ring", settings));
  check_same_motion(*sdf_run, *yaml_run);
  testing::check_fdir1_ring(*sdf_run, kSdfFrictionSmallSpeed);
}

TEST_CASE("SDF friction_model: pyramid_model and cone_model, box_model read as the pyramid") {
  const auto pair_of = [](const std::string& model, const std::string& mu2,
                          const std::string& mu = "0.5", const std::string& engine = "ode") {
    const std::string text =
        "<?xml version='1.0'?>\n<sdf version='1.9'>\n<world name='w'>\n"
        "<physics name='p' type='" +
        engine + "'><ode><solver><friction_model>" + model +
        "</friction_model></solver></ode></physics>\n"
        "<model name='ground'><static>true</static><link name='l'><collision name='plane'>"
        "<geometry><plane><normal>0 0 1</normal></plane></geometry><surface><friction><ode>"
        "<mu>" +
        mu + "</mu><mu2>" + mu2 +
        "</mu2></ode></friction></surface></collision></link></model>\n"
        "</world>\n</sdf>\n";
    const ConvertedScene converted = convert_scene_text(text, "w.sdf");
    return std::pair{YAML::Load(converted.yaml)["contact_materials"][0]["friction"],
                     fmt::format("{}", fmt::join(converted.warnings, "\n"))};
  };
  // Unequal coefficients: ODE's pyramid as the regularized pyramid; under the cone, the cone of
  // mu with a warning.
  auto [friction, warnings] = pair_of("pyramid_model", "0.2");
  CHECK(friction["model"].as<std::string>() == "regularized_coulomb");
  CHECK(friction["mu2"].as<double>() == 0.2);
  std::tie(friction, warnings) = pair_of("cone_model", "0.2");
  CHECK(friction["model"].as<std::string>() == "stick_slip");
  CHECK(friction["mu_kinetic"].as<double>() == 0.5);
  CHECK(warnings.find("under cone_model: hybridsim's cone takes mu") != std::string::npos);
  std::tie(friction, warnings) = pair_of("box_model", "0.2");
  CHECK(friction["model"].as<std::string>() == "regularized_coulomb");
  CHECK(warnings.find("w.sdf:4: <friction_model>: friction_model 'box_model' is read as "
                      "pyramid_model") != std::string::npos);
  // The cone takes mu alone: mu 0 is frictionless whatever mu2, without a warning of mu2.
  std::tie(friction, warnings) = pair_of("cone_model", "0.2", "0");
  CHECK(friction["model"].as<std::string>() == "none");
  CHECK(warnings.find("cone_model") == std::string::npos);
  // ODE's solver settings belong to ODE: under another engine the cone_model is not read.
  std::tie(friction, warnings) = pair_of("cone_model", "0.2", "0.5", "dart");
  CHECK(friction["model"].as<std::string>() == "regularized_coulomb");
  CHECK_FALSE(friction["cone"].as<bool>());
  CHECK(warnings.find("w.sdf:4: <physics name='p'>: physics type 'dart': surfaces are read by "
                      "Gazebo's rules for ODE") != std::string::npos);
}

}  // namespace
}  // namespace hybridsim
