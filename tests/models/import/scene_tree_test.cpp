// What the importers share (models/import/scene_tree.hpp): numbers that read back as the same
// double through the scene's YAML, and the search order of package:// and model:// files.
#include <doctest/doctest.h>

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>

#include "models/import/scene_tree.hpp"

namespace hybridsim {
namespace {

// The double the loader reads back from a number node's emitted text.
double through_yaml(double value) {
  YAML::Emitter out;
  out << number_node(value);
  return YAML::Load(out.c_str()).as<double>();
}

bool same_bits(double a, double b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}

TEST_CASE("scene tree numbers: the shortest text that reads back as the same double") {
  // Readable where a shorter text is exact, and exact everywhere: convert-then-run's
  // bit-identity rests on it.
  YAML::Emitter tenth;
  tenth << number_node(0.1);
  CHECK(std::string(tenth.c_str()) == "0.1");
  for (double special : {0.0, -0.0, 1.0, -2.5, DBL_MAX, -DBL_MAX, DBL_MIN, DBL_TRUE_MIN, 1e300,
                         1e-300, 0.1 + 0.2, std::nextafter(1.0, 2.0)}) {
    CAPTURE(special);
    CHECK(same_bits(through_yaml(special), special));
  }
  // 200,000 doubles of random bit patterns (every exponent, normal and subnormal).
  std::mt19937_64 random(20261127);
  int checked = 0;
  for (int i = 0; i < 200000; ++i) {
    const std::uint64_t bits = random();
    double value = 0.0;
    std::memcpy(&value, &bits, sizeof value);
    if (!std::isfinite(value)) continue;
    if (!same_bits(through_yaml(value), value)) {
      FAIL_CHECK("not read back: " << value);
      break;
    }
    ++checked;
  }
  CHECK(checked > 199000);
}

TEST_CASE("resource directories: the environment's, in order, then --resource-path") {
  ::setenv("ROS_PACKAGE_PATH", "/ros/a:/ros/b", 1);
  ::setenv("AMENT_PREFIX_PATH", "/ament", 1);
  ::setenv("GAZEBO_MODEL_PATH", "/gazebo", 1);
  ::unsetenv("GZ_SIM_RESOURCE_PATH");
  ::unsetenv("IGN_GAZEBO_RESOURCE_PATH");
  ::unsetenv("SDF_PATH");
  ImportOptions options;
  options.resource_paths = {"/cli/a:/cli/b", "/cli/c"};
  const std::vector<std::string> expected = {"/ros/a", "/ros/b", "/ament/share", "/gazebo",
                                             "/cli/a", "/cli/b", "/cli/c"};
  CHECK(resource_directories(options) == expected);
  ::unsetenv("ROS_PACKAGE_PATH");
  ::unsetenv("AMENT_PREFIX_PATH");
  ::unsetenv("GAZEBO_MODEL_PATH");
}

}  // namespace
}  // namespace hybridsim
