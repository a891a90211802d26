// The scene format's reference against the loader: docs/scene-reference.md is the generated
// reference, and the keys the loader asks for, section by section, are the keys it lists.
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>
#include <string>

#include <fmt/format.h>

#include "models/scene_keys.hpp"
#include "models/scene_loader.hpp"
#include "models/yaml_reader.hpp"

namespace hybridsim {
namespace {

// Keys the catalog does not use, so that every branch of the loader is visited: signals of every
// kind, a prescribed body, servos with signal maps, an inline mesh and grid, wheels with slope
// compliance, a traction law and a per-direction mu, a joint limit, collision groups, Hunt-Crossley
// and linear laws, a Stribeck pair and a material of the scene's own.
constexpr const char* kCoverageScene = R"(
name: coverage
description: every key the catalog leaves out
reference: none
materials:
  Clay: {density: 1800, youngs_modulus: 1.0e7, poisson_ratio: 0.3, hunt_crossley_stiffness: 1.0e5,
         hunt_crossley_dissipation: 0.5}
contact_materials:
  - {pair: [Clay, Clay], normal_law: hunt_crossley, exponent: 1.5, friction: {model: stribeck,
     mu_kinetic: 0.4, mu_static: 0.6, stiction_tolerance: 1.0e-4}}
  - {pair: [Clay, Steel], normal_law: linear, kp: 1.0e5, kd: 10.0}
inputs:
  - {name: push, target: {body: cart, kind: force}, signal: {step: {time: 0.1, before: [0, 0, 0],
     after: [1, 0, 0]}}}
  - {name: lift, target: {body: cart, kind: force}, signal: {ramp: {time: 0.1, duration: 0.2,
     before: [0, 0, 0], after: [0, 0, 1]}}}
  - {name: wobble, target: {body: cart, kind: torque}, signal: {sine: {amplitude: [0, 0, 1],
     frequency: 2, phase: 0.5, offset: [0, 0, 0]}}}
bodies:
  - name: ground
    fixed: true
    shapes:
      - {name: floor, type: mesh, vertices: [[-5, -5, 0], [5, -5, 0], [5, 5, 0], [-5, 5, 0]],
         triangles: [[0, 1, 2], [0, 2, 3]], material: Steel, group: 1, mask: 3}
      - {name: hills, type: heightmap, grid: [[0, 0], [0, 0]], size: [2, 2], position: [20, 0, 0],
         material: Clay}
  - name: belt
    position: [0, 3, 0.5]
    prescribed:
      linear_velocity: {signal: {table: {points: [[0, 0, 0, 0], [1, 1, 0, 0]]}}}
      angular_velocity: {signal: {constant: [0, 0, 0]}}
    shapes: [{type: box, size: [1, 1, 0.2], material: Clay}]
  - name: cart
    position: [0, 0, 0.3]
    shapes: [{type: box, size: [0.4, 0.3, 0.1], material: Clay, contact_material: Clay}]
  - name: wheel
    position: [0, 0.2, 0.1]
    shapes: [{type: sphere, radius: 0.1, material: Steel}]
  - name: flap
    position: [0, -0.2, 0.3]
    shapes: [{type: box, size: [0.1, 0.1, 0.01], material: Clay}]
joints:
  - {name: axle, type: revolute, parent: cart, child: wheel, axis: [0, 1, 0],
     servo: {velocity: {sine: {amplitude: [1, 0, 0], frequency: 1}}, gain: 1.0}}
  - {name: hinge, type: revolute, parent: cart, child: flap, axis: [1, 0, 0],
     servo: {position: {constant: [0.1, 0, 0]}, kp: 10.0, kd: 1.0},
     limit: {lower: -0.5, upper: 0.5, stiffness: 100.0, damping: 1.0}}
wheels:
  - name: rolling
    body: wheel
    axis: [0, 1, 0]
    slip_compliance: {lateral: 0.1, longitudinal: 0.1}
    normal_force: 10.0
    slope_compliance: {start: 0.1, end: 0.5, factor: 2.0}
    mu: {lateral: 0.5, longitudinal: 0.6}
    traction: {model: janosi_hanamoto, shear_deformation: 0.01, contact_length: 0.05,
               v_small: 1.0e-3}
)";

std::string read_text(const std::string& path) {
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

TEST_CASE("scene reference: the loader asks for exactly the keys the reference lists") {
  SceneKeyLog asked;
  set_scene_key_log(&asked);
  try {
    for (const CatalogEntry& entry : list_catalog()) (void)load_scene_file(entry.name);
    (void)load_scene_text(kCoverageScene, "coverage.yaml");
  } catch (...) {
    set_scene_key_log(nullptr);
    throw;
  }
  set_scene_key_log(nullptr);
  SceneKeyLog listed;
  for (const SceneKey& key : scene_keys()) {
    CHECK_MESSAGE(listed.emplace(std::string(key.section), std::string(key.key)).second,
                  fmt::format("listed twice: {} {}", key.section, key.key));
  }
  for (const auto& entry : asked) {
    // Not a structured binding: clang 14 cannot capture one in a lambda (CAPTURE does).
    const auto& section = std::get<0>(entry);
    const auto& key = std::get<1>(entry);
    CHECK_MESSAGE(
        listed.contains({section, key}),
        fmt::format("the loader reads '{}' in section '{}', the reference lacks it", key, section));
  }
  for (const auto& entry : listed) {
    // Not a structured binding: clang 14 cannot capture one in a lambda (CAPTURE does).
    const auto& section = std::get<0>(entry);
    const auto& key = std::get<1>(entry);
    CHECK_MESSAGE(asked.contains({section, key}),
                  fmt::format("the reference lists '{}' in section '{}', the loader never reads it",
                              key, section));
  }
  // Every listed section has a title in the reference.
  for (const SceneKey& key : scene_keys()) {
    bool titled = false;
    for (std::string_view section : scene_key_sections()) titled = titled || section == key.section;
    CHECK_MESSAGE(titled, fmt::format("section '{}' has no title", key.section));
  }
}

TEST_CASE("scene reference: docs/scene-reference.md is the generated reference") {
  // Regenerate with: build/tools/hybridsim reference > docs/scene-reference.md
  CHECK(read_text(HYBRIDSIM_MODELS_DIR "/../docs/scene-reference.md") == format_scene_reference());
}

}  // namespace
}  // namespace hybridsim
