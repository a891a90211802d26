// `hybridsim run` on URDF and MJCF files and `hybridsim convert`: the converted scene gives the
// same outputs byte for byte (the same YAML text reaches the same loader), files are told by
// content, mesh paths follow the converted scene, bad input exits 2 naming file and line; and the
// same through the C API.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "cli_support.hpp"
#include "hybridsim/hybridsim.h"
#include "models/import/import_test_support.hpp"
#include "models/scene_import.hpp"

namespace hybridsim {
namespace {

using testing::import_data;
using testing::read_file;
using testing::run_cli;

// Runs FILE directly and through `convert`, and compares the trajectory and event files.
void check_convert_then_run(const std::string& file, const std::string& sets) {
  CAPTURE(file);
  const auto dir = testing::temporary_directory();
  const auto direct =
      run_cli(fmt::format("run {} {} --out {}", file, sets, (dir / "direct").string()), dir);
  REQUIRE(direct.status == 0);
  const auto converted =
      run_cli(fmt::format("convert {} -o {}", file, (dir / "scenes" / "scene.yaml").string()), dir);
  // The folder does not exist yet: writing fails with status 4, naming the file.
  CHECK(converted.status == 4);
  std::filesystem::create_directories(dir / "scenes");
  REQUIRE(
      run_cli(fmt::format("convert {} -o {}", file, (dir / "scenes" / "scene.yaml").string()), dir)
          .status == 0);
  const auto again =
      run_cli(fmt::format("run {} {} --out {}", (dir / "scenes" / "scene.yaml").string(), sets,
                          (dir / "converted").string()),
              dir);
  REQUIRE(again.status == 0);
  for (const char* output : {"trajectory.csv", "events.jsonl"}) {
    CAPTURE(std::string(output));
    const std::string a = read_file(dir / "direct" / output);
    if (std::string(output) == "trajectory.csv") CHECK(a.size() > 1000u);
    CHECK(a == read_file(dir / "converted" / output));
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("convert then run: bit-identical trajectories and events for URDF, MJCF and SDF files") {
  check_convert_then_run(import_data("pendulum.urdf"),
                         "--set joints.hinge.initial.position=2.9 --stop-time 0.5");
  check_convert_then_run(import_data("two_link_arm.urdf"),
                         "--set joints.elbow.initial.position=1 --stop-time 0.5");
  check_convert_then_run(import_data("three_bodies.xml"), "--stop-time 0.8");
  check_convert_then_run(import_data("friction_demo.sdf"), "--stop-time 0.3");
  check_convert_then_run(import_data("sphere_slip.sdf"), "--stop-time 0.5");
  check_convert_then_run(import_data("fdir1_ring.sdf"), "--stop-time 0.2");
  check_convert_then_run(import_data("tricycles_uphill.sdf"), "--stop-time 1");
}

TEST_CASE("convert: mesh paths relative to the converted scene, formats told by content") {
  const auto dir = testing::temporary_directory();
  std::filesystem::create_directories(dir / "robot" / "meshes");
  std::filesystem::create_directories(dir / "out");
  std::filesystem::copy_file(std::string(HYBRIDSIM_MODELS_DIR) + "/scenes/meshes/gem.obj",
                             dir / "robot" / "meshes" / "gem.obj");
  // A URDF in a file named .xml, after a declaration and a comment.
  std::ofstream(dir / "robot" / "gem.xml")
      << "<?xml version='1.0'?>\n<!-- a gem on a floor -->\n<robot name='gem'>"
         "<link name='floor'><collision><origin xyz='0 0 -1'/><geometry><box size='4 4 2'/>"
         "</geometry></collision></link>"
         "<link name='gem'><inertial><mass value='0.5'/><inertia ixx='0.01' iyy='0.01' "
         "izz='0.01' ixy='0' ixz='0' iyz='0'/></inertial><collision><geometry>"
         "<mesh filename='meshes/gem.obj' scale='0.1 0.1 0.1'/></geometry></collision></link>"
         "<joint name='drop' type='floating'><parent link='floor'/><child link='gem'/>"
         "<origin xyz='0 0 0.5'/></joint></robot>\n";
  const auto converted =
      run_cli(fmt::format("convert {} -o {}", (dir / "robot" / "gem.xml").string(),
                          (dir / "out" / "gem.yaml").string()),
              dir);
  REQUIRE(converted.status == 0);
  CHECK(read_file(dir / "out" / "gem.yaml").find("mesh: ../robot/meshes/gem.obj") !=
        std::string::npos);
  const std::string sets = "--stop-time 0.6";
  const auto direct =
      run_cli(fmt::format("run {} {} --out {}", (dir / "robot" / "gem.xml").string(), sets,
                          (dir / "a").string()),
              dir);
  const auto again = run_cli(fmt::format("run {} {} --out {}", (dir / "out" / "gem.yaml").string(),
                                         sets, (dir / "b").string()),
                             dir);
  REQUIRE(direct.status == 0);
  REQUIRE(again.status == 0);
  CHECK(read_file(dir / "a" / "events.jsonl").find("contact_start") != std::string::npos);
  CHECK(read_file(dir / "a" / "trajectory.csv") == read_file(dir / "b" / "trajectory.csv"));
  CHECK(read_file(dir / "a" / "events.jsonl") == read_file(dir / "b" / "events.jsonl"));

  CHECK(detect_scene_format("\xEF\xBB\xBF<?xml version='1.0'?><!-- x --><mujoco/>") ==
        SceneFormat::mjcf);
  CHECK(detect_scene_format("<!DOCTYPE robot>\n<robot name='r'/>") == SceneFormat::urdf);
  CHECK(detect_scene_format("<sdf version='1.9'/>") == SceneFormat::sdf);
  CHECK(detect_scene_format("# <robot>\nname: x\n") == SceneFormat::yaml);
  std::filesystem::remove_all(dir);
}

TEST_CASE("import errors on the command line: exit 2 naming the file, the line, the element") {
  const auto dir = testing::temporary_directory();
  const std::string file = (dir / "bad.urdf").string();
  std::ofstream(file) << "<robot name='r'>\n<link name='a'>\n<inertial>\n<mass value='-1'/>\n"
                         "</inertial>\n</link>\n</robot>\n";
  for (const char* command : {"run", "check", "convert"}) {
    CAPTURE(std::string(command));
    const auto result = run_cli(fmt::format("{} {}", command, file), dir);
    CHECK(result.status == 2);
    CHECK(result.err.find(file + ":4: <mass>: the mass must be positive") != std::string::npos);
  }
  // An SDFormat world libsdformat refuses (a world without a name): its message with the file.
  std::ofstream(dir / "world.sdf") << "<?xml version='1.0'?>\n<sdf version='1.9'><world/></sdf>\n";
  const auto sdf = run_cli(fmt::format("run {}", (dir / "world.sdf").string()), dir);
  CHECK(sdf.status == 2);
  CHECK(sdf.err.find((dir / "world.sdf").string()) != std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST_CASE("c api: URDF and MJCF files load and convert, import options by hybridsim_set_option") {
  hybridsim_simulator* sim = hybridsim_create();
  CHECK(hybridsim_set_option(sim, "urdf_root", "hanging") == HYBRIDSIM_ERROR_INPUT);
  CHECK(hybridsim_set_option(sim, "urdf_root", "fixed") == HYBRIDSIM_OK);
  CHECK(hybridsim_set_option(sim, "resource_path", "/nonexistent") == HYBRIDSIM_OK);
  CHECK(hybridsim_add_override(sim, "joints.hinge.initial.position=0.3") == HYBRIDSIM_OK);
  REQUIRE(hybridsim_load_file(sim, import_data("pendulum.urdf").c_str()) == HYBRIDSIM_OK);
  double t = 0.0;
  CHECK(hybridsim_advance_to(sim, 0.1, 0, &t) == HYBRIDSIM_OK);
  hybridsim_free(sim);

  const auto dir = testing::temporary_directory();
  sim = hybridsim_create();
  const std::string output = (dir / "three_bodies.yaml").string();
  REQUIRE(hybridsim_convert_file(sim, import_data("three_bodies.xml").c_str(), output.c_str()) ==
          HYBRIDSIM_OK);
  CHECK(read_file(output).find("type: halfspace") != std::string::npos);
  CHECK(hybridsim_convert_file(sim, import_data("pendulum_urdf.yaml").c_str(), output.c_str()) ==
        HYBRIDSIM_ERROR_INPUT);
  CHECK(std::string(hybridsim_error_message(sim)).find("not an SDFormat (<sdf>), URDF") !=
        std::string::npos);
  REQUIRE(hybridsim_load_file(sim, output.c_str()) == HYBRIDSIM_OK);
  hybridsim_free(sim);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace hybridsim
