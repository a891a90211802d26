// Scene loading: values, defaults, mass properties from shapes, overrides, and errors that name
// the file, the key and the value.
#include <doctest/doctest.h>

#include "approx.hpp"
#include "cli_support.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <numbers>

#include <fmt/format.h>

#include "collision/shape_geometry.hpp"
#include "core/constraint_solver.hpp"
#include "core/errors.hpp"
#include "models/scene_loader.hpp"

namespace hybridsim {
namespace {

const char* kBase = R"(
materials:
  Steel: {density: 8000, youngs_modulus: 2.0e11, poisson_ratio: 0.3}
contact_materials:
  - {pair: [Steel, Steel], restitution: 0.5}
bodies:
  - {name: ground, fixed: true, shapes: [{type: halfspace, material: Steel}]}
  - name: ball
    position: [0, 0, 1]
    orientation: {axis_angle: [0, 0, 1, 1.5707963267948966]}
    shapes: [{type: sphere, radius: 0.1, material: Steel}]
)";

std::string error_of(const std::string& text, const std::vector<std::string>& overrides = {}) {
  try {
    load_scene_text(text, "scene.yaml", overrides);
  } catch (const InputError& error) {
    return error.what();
  }
  return "";
}

TEST_CASE("scene loader: mass properties from shapes and densities") {
  const Model model = load_scene_text(kBase, "scene.yaml");
  const Body& ball = model.bodies[1];
  const double mass = 8000.0 * 4.0 / 3.0 * std::numbers::pi * 1e-3;
  CHECK(ball.mass == testing::relative(mass, 1e-12));
  CHECK(ball.inertia_com_B(0, 0) == testing::relative(0.4 * mass * 0.01, 1e-12));
  CHECK((ball.q_WB.toRotationMatrix() * Vec3::UnitX() - Vec3::UnitY()).norm() < 1e-15);
  CHECK(model.state_size == 13);
  CHECK(model.simulation.integrator == "cvode-bdf");

  // Two boxes side by side: the centre of mass between them, the parallel-axis term added.
  const Model pair = load_scene_text(R"(
materials: {Wood: {density: 500, youngs_modulus: 1.0e10, poisson_ratio: 0.4}}
bodies:
  - name: dumbbell
    shapes:
      - {type: box, size: [0.2, 0.2, 0.2], position: [-0.5, 0, 0], material: Wood}
      - {type: box, size: [0.2, 0.2, 0.2], position: [0.5, 0, 0], material: Wood}
)",
                                     "pair.yaml");
  const Body& dumbbell = pair.bodies[0];
  const double m = 500.0 * 0.008;
  CHECK(dumbbell.mass == testing::relative(2 * m, 1e-12));
  CHECK(dumbbell.p_BCom_B.norm() < 1e-15);
  CHECK(dumbbell.inertia_com_B(1, 1) == testing::relative(2 * (m * 0.08 / 12.0 + m * 0.25), 1e-12));
}

TEST_CASE("scene loader: --set overrides by key, by list index and by element name") {
  const Model model = load_scene_text(
      kBase, "scene.yaml",
      {"bodies.ball.linear_velocity=[0, 0, -1]", "contact_materials.0.restitution=0.25",
       "simulation.rtol=1e-9", "bodies.ball.shapes.0.radius=0.2"});
  CHECK(model.bodies[1].v_WB_W.z() == -1.0);
  CHECK(model.contact_materials[0].restitution == 0.25);
  CHECK(model.simulation.rtol == 1e-9);
  CHECK(model.shapes[1].radius == 0.2);
  CHECK(error_of(kBase, {"bodies.nobody.mass=1"}).find("no list element 'nobody'") !=
        std::string::npos);
  CHECK(error_of(kBase, {"simulation.rtol"}).find("expected KEY=VALUE") != std::string::npos);
  // An override that breaks a rule is reported as coming from --set.
  CHECK(error_of(kBase, {"bodies.ball.shapes.0.radius=-1"}).find("(--set)") != std::string::npos);
}

TEST_CASE("scene loader: integrator options are checked against the integrator") {
  const Model model = load_scene_text(kBase, "scene.yaml",
                                      {"simulation.integrator=arkode-erk",
                                       "simulation.table=verner-6-5", "simulation.stop_time=2"});
  CHECK(model.simulation.table == "verner-6-5");
  const Model fixed = load_scene_text(kBase, "scene.yaml",
                                      {"simulation.integrator=rk4", "simulation.step_size=0.001"});
  CHECK(fixed.simulation.step_size == 0.001);
  // Each error names its key and the choices.
  CHECK(error_of(kBase, {"simulation.integrator=arkode-erk", "simulation.table=dopri"})
            .find("key 'simulation.table' = dopri: table 'dopri' is not one of arkode-erk's: "
                  "dormand-prince") != std::string::npos);
  CHECK(error_of(kBase, {"simulation.linear_solver=superlu"})
            .find("key 'simulation.linear_solver'") != std::string::npos);
  CHECK(error_of(kBase, {"simulation.integrator=arkode-dirk", "simulation.linear_solver=klu"})
            .find("key 'simulation.linear_solver'") != std::string::npos);
  CHECK(error_of(kBase, {"simulation.integrator=cvode-adams", "simulation.linear_solver=gmres"})
            .find("cvode-adams has no linear_solver option") != std::string::npos);
  CHECK(error_of(kBase, {"simulation.integrator=euler"})
            .find("key 'simulation.step_size' (not given): step_size = 0: the fixed-step "
                  "integrator euler needs") != std::string::npos);
  CHECK(error_of(kBase, {"simulation.integrator=rk4", "simulation.step_size=-1"})
            .find("simulation.step_size") != std::string::npos);
}

TEST_CASE("scene loader: every bad input names the file, the line, the key and the value") {
  struct Case {
    std::string from, to, expected;
  };
  const std::vector<Case> cases = {
      {"radius: 0.1", "raduis: 0.1",
       "scene.yaml:11: key 'bodies[1].shapes[0].radius' is required; unknown key "
       "'bodies[1].shapes[0].raduis' here: a typo?"},
      {"position: [0, 0, 1]", "positon: [0, 0, 1]",
       "scene.yaml:9: unknown key 'bodies[1].positon'"},
      {"radius: 0.1", "radius: -0.1",
       "scene.yaml:11: key 'bodies[1].shapes[0].radius' = -0.1: must be positive"},
      {"radius: 0.1", "radius: 0", "key 'bodies[1].shapes[0].radius' = 0: must be positive"},
      {"position: [0, 0, 1]", "position: [0, 0, .nan]",
       "scene.yaml:9: key 'bodies[1].position' = .nan: must be a finite number"},
      {"position: [0, 0, 1]", "position: [0, 0, .inf]", "must be a finite number"},
      {"position: [0, 0, 1]", "position: [0, 1]",
       "key 'bodies[1].position' = [0, 1]: must be a list of 3 numbers"},
      {"position: [0, 0, 1]", "position: [0, 0, 1]\n    mass: -2",
       "key 'bodies[1].mass' = -2: must be positive"},
      {"radius: 0.1, material: Steel", "radius: 0.1, material: Wood",
       "key 'bodies[1].shapes[0].material' = Wood: unknown material"},
      {"density: 8000", "density: abc", "key 'materials.Steel.density' = abc: must be a number"},
      {"restitution: 0.5", "restitution: 1.5",
       "key 'contact_materials[0: Steel, Steel].restitution' = 1.5: must lie in [0, 1]"},
      {"type: sphere", "type: torus", "key 'bodies[1].shapes[0].type' = torus: must be one of"},
      {"type: sphere, radius: 0.1", "type: convex, vertices: [[0, 0, 0], [1, 0, 0], [0, 1, 0]]",
       "key 'bodies[1].shapes[0].vertices' = [[0, 0, 0], [1, 0, 0], [0, 1, 0]]: a convex hull "
       "needs at least 4 non-coplanar vertices, got 3"},
      {"type: sphere, radius: 0.1",
       "type: convex, vertices: [[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0]]",
       "key 'bodies[1].shapes[0].vertices' = [[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0]]: a "
       "convex hull's vertices are flat"},
      {"type: sphere, radius: 0.1", "type: convex",
       "key 'bodies[1].shapes[0].vertices' (not given): a convex shape needs exactly one of "
       "'vertices' and 'mesh'"},
      {"type: sphere, radius: 0.1", "type: convex, mesh: nowhere.obj",
       "key 'bodies[1].shapes[0].mesh' = nowhere.obj: mesh file 'nowhere.obj'"},
      {"type: sphere, radius: 0.1",
       "type: convex, vertices: [[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]], smoothing_radius: "
       "0.01",
       "key 'bodies[1].shapes[0].smoothing_radius' = 0.01: applies to box, cylinder and cone"},
      {"type: sphere, radius: 0.1", "type: cylinder, radius: 0.1",
       "scene.yaml:11: key 'bodies[1].shapes[0].length' (not given): is required"},
      {"type: sphere, radius: 0.1", "type: cylinder, radius: 0.1, length: -1",
       "key 'bodies[1].shapes[0].length' = -1: must be positive"},
      {"type: sphere, radius: 0.1", "type: cone, radius: 0.1, length: 0.2, top_radius: -0.05",
       "key 'bodies[1].shapes[0].top_radius' = -0.05: must"},
      {"type: sphere, radius: 0.1", "type: sphere, radius: 0.1, smoothing_radius: 0.001",
       "key 'bodies[1].shapes[0].smoothing_radius' = 0.001: applies to box, cylinder and cone"},
      {"type: sphere, radius: 0.1", "type: box, size: [0.1, 0.2, 0.3], smoothing_radius: -0.001",
       "key 'bodies[1].shapes[0].smoothing_radius' = -0.001: must"},
      // 10% of the smallest width, 0.1 m: 0.01 m.
      {"type: sphere, radius: 0.1", "type: box, size: [0.1, 0.2, 0.3], smoothing_radius: 0.011",
       "key 'bodies[1].shapes[0].smoothing_radius' = 0.011: exceeds 10% of the shape's smallest "
       "width (0.01 m)"},
      {"type: sphere, radius: 0.1", "type: ellipsoid, radii: [0.1, 0, 0.2]",
       "key 'bodies[1].shapes[0].radii' = [0.1, 0, 0.2]: every semi-axis must be positive"},
  };
  for (const Case& c : cases) {
    std::string text = kBase;
    const auto at = text.find(c.from);
    REQUIRE(at != std::string::npos);
    text.replace(at, c.from.size(), c.to);
    const std::string message = error_of(text);
    CAPTURE(c.to);
    CAPTURE(message);
    CHECK(message.find(c.expected) != std::string::npos);
  }
}

TEST_CASE("scene loader: hardening: duplicate keys, empty files, huge values, impossible bodies") {
  const auto with = [](const std::string& from, const std::string& to) {
    std::string text = kBase;
    text.replace(text.find(from), from.size(), to);
    return text;
  };
  // A key given twice is an error (YAML leaves open which wins), naming both lines.
  CHECK(error_of(with("position: [0, 0, 1]", "position: [0, 0, 1]\n    mass: 1\n    mass: -5")) ==
        "scene.yaml:11: key 'bodies[1].mass' is given twice (first at line 10); give it once");
  // An empty document says so, with the file's position.
  CHECK(error_of("") ==
        "scene.yaml:1: the scene is empty (a scene is a YAML map of keys: bodies, ...)");
  CHECK(error_of("- 1\n- 2\n").find("scene.yaml:1: a scene must be a YAML map of keys, not") !=
        std::string::npos);
  // A huge value is named, not repeated: the message stays short.
  std::string huge = "position: [1";
  for (int i = 0; i < 100000; ++i) huge += ", 1";
  huge += "]";
  const std::string message = error_of(with("position: [0, 0, 1]", huge));
  CHECK(message.find("... (100001 elements)]: must be a list of 3 numbers") != std::string::npos);
  CHECK(message.size() < 300);
  // Principal moments that break the triangle inequality (Izz > Ixx + Iyy) fit no body.
  CHECK(error_of(with("position: [0, 0, 1]",
                      "position: [0, 0, 1]\n    mass: 1\n    inertia: [1, 1, 3, 0, 0, 0]"))
            .find("one exceeds the sum of the other two") != std::string::npos);
  // A flat body (Izz = Ixx + Iyy) is fine.
  CHECK(error_of(with("position: [0, 0, 1]",
                      "position: [0, 0, 1]\n    mass: 1\n    inertia: [1, 2, 3, 0, 0, 0]")) == "");
  // Outputs beyond 1e8 and arrays beyond 100,000 copies are refused before anything runs.
  CHECK(error_of(std::string(kBase) + "simulation: {stop_time: 3, output_interval: 1.0e-300}")
            .find("outputs up to stop_time 3 s, more than 1e+08") != std::string::npos);
  CHECK(error_of(with("position: [0, 0, 1]",
                      "position: [0, 0, 1]\n    array: {counts: [1000, 1000, 1], spacing: [1, "
                      "1, 0]}"))
            .find("more than 100,000 copies") != std::string::npos);
  // A mass outside a milligram to a million tonnes is refused, naming the key (not a numerical
  // failure later).
  CHECK(error_of(with("position: [0, 0, 1]", "position: [0, 0, 1]\n    mass: 1.0e300"))
            .find("key 'bodies[1].mass' = 1.0e300: must lie in [1e-6, 1e9] kg") !=
        std::string::npos);
  // A device or a missing file as a mesh: refused at once, naming it.
  CHECK(error_of(with("{type: sphere, radius: 0.1, material: Steel}",
                      "{type: convex, mesh: /dev/zero, material: Steel}"))
            .find("mesh file '/dev/zero': not a regular file") != std::string::npos);
}

TEST_CASE("scene loader: a convex hull's mass, centre of mass and frame at its centroid") {
  // The tetrahedron (0, 0, 0), (a, 0, 0), (0, a, 0), (0, 0, a) with a = 0.3 m, given at shape
  // position (0, 0, 0.2) in the body: volume a^3 / 6, centroid at a/4 on each axis (the mean
  // of the corners), so the body's centre of mass is (a/4, a/4, 0.2 + a/4). An interior point
  // is not a corner.
  const std::string text = std::string(kBase).replace(
      std::string(kBase).find("type: sphere, radius: 0.1"), 25,
      "type: convex, vertices: [[0, 0, 0], [0.3, 0, 0], [0, 0.3, 0], [0, 0, 0.3], [0.05, 0.05, "
      "0.05]], position: [0, 0, 0.2]");
  const Model model = load_scene_text(text, "scene.yaml");
  const Body& body = model.bodies[1];
  const Shape& shape = model.shapes[body.shapes[0]];
  const double a = 0.3, mass = 8000.0 * a * a * a / 6.0;
  CHECK(shape.type == ShapeType::convex);
  CHECK(shape.hull->vertices_S.size() == 4);
  CHECK(body.mass == testing::relative(mass, 1e-12));
  CHECK((body.p_BCom_B - Vec3(a / 4, a / 4, 0.2 + a / 4)).norm() < 1e-15);
  CHECK((shape.X_BS.translation - Vec3(a / 4, a / 4, 0.2 + a / 4)).norm() < 1e-15);
  // Second moments of the corner tetrahedron about the origin: int x^2 = m a^2 / 10 (Dirichlet
  // integrals, 2! a^5 / 5! over volume a^3 / 6); about the centroid, less m (a/4)^2. So
  // I_zz = 2 m (a^2/10 - a^2/16) = 3 m a^2 / 40, and I_xy = -(int xy - m a^2/16) with
  // int xy = m a^2 / 20: I_xy = m a^2 / 80.
  CHECK(body.inertia_com_B(2, 2) == testing::relative(3.0 * mass * a * a / 40.0, 1e-12));
  CHECK(body.inertia_com_B(0, 1) == testing::relative(mass * a * a / 80.0, 1e-12));
}

TEST_CASE("scene loader: a body array copies the body on a jittered grid, the same on every run") {
  std::string text = kBase;
  text +=
      "    array: {counts: [3, 2, 2], spacing: [0.3, 0.4, 0.5], jitter: [0.01, 0.02, 0.03], "
      "seed: 7}\n";
  const Model model = load_scene_text(text, "pile.yaml");
  REQUIRE(model.bodies.size() == 1 + 12);
  CHECK(model.state_size == 13 * 12);
  CHECK(model.shapes.size() == 1 + 12);
  for (int k = 0; k < 12; ++k) {
    const Body& copy = model.bodies[1 + k];
    CAPTURE(k);
    CHECK(copy.name == fmt::format("ball_{}", k));
    REQUIRE(copy.shapes.size() == 1);
    CHECK(model.shapes[copy.shapes[0]].body == 1 + k);
    // k = i + 3 (j + 2 l); the grid offset plus a jitter no larger than given on each axis.
    const Vec3 grid(0.3 * (k % 3), 0.4 * ((k / 3) % 2), 1.0 + 0.5 * (k / 6));
    const Vec3 offset = copy.p_WB - grid;
    CHECK(std::abs(offset.x()) <= 0.01);
    CHECK(std::abs(offset.y()) <= 0.02);
    CHECK(std::abs(offset.z()) <= 0.03);
    CHECK(copy.mass == model.bodies[1].mass);
  }
  // The jitter is not degenerate: twelve copies do not all sit on the grid or share one offset.
  CHECK((model.bodies[1].p_WB - Vec3(0, 0, 1)).norm() > 1e-6);
  CHECK((model.bodies[1].p_WB - Vec3(0, 0, 1) - (model.bodies[2].p_WB - Vec3(0.3, 0, 1))).norm() >
        1e-6);
  // Deterministic: the same seed gives bit-identical positions, another seed other ones.
  const Model again = load_scene_text(text, "pile.yaml");
  for (std::size_t b = 0; b < model.bodies.size(); ++b) {
    CHECK(again.bodies[b].p_WB == model.bodies[b].p_WB);
  }
  const Model other = load_scene_text(text, "pile.yaml", {"bodies.ball.array.seed=8"});
  CHECK(other.bodies[1].p_WB != model.bodies[1].p_WB);
  // A 1x1x1 array keeps the plain name.
  const Model single = load_scene_text(
      kBase + std::string("    array: {counts: [1, 1, 1], spacing: [0, 0, 0]}\n"), "one.yaml");
  CHECK(single.bodies.back().name == "ball");

  CHECK(error_of(kBase + std::string("    array: {counts: [2, 0, 1], spacing: [1, 1, 1]}\n"))
            .find("key 'bodies[1].array.counts'") != std::string::npos);
  CHECK(error_of(kBase + std::string("    array: {counts: [2, 1.5, 1], spacing: [1, 1, 1]}\n"))
            .find("must be three positive integers") != std::string::npos);
  CHECK(error_of(kBase + std::string("    array: {counts: [2, 1, 1]}\n"))
            .find("key 'bodies[1].array.spacing' (not given): is required") != std::string::npos);
  CHECK(error_of(kBase + std::string("    array: {counts: [2, 1, 1], spacing: [1, 1, 1], "
                                     "jitter: [0, -1, 0]}\n"))
            .find("key 'bodies[1].array.jitter'") != std::string::npos);
  CHECK(error_of(kBase + std::string("    array: {counts: [2, 1, 1], spacing: [1, 1, 1], "
                                     "spacnig: 1}\n"))
            .find("unknown key 'bodies[1].array.spacnig'") != std::string::npos);
  std::string fixed = kBase;
  fixed.replace(fixed.find("fixed: true,"), 12,
                "fixed: true, array: {counts: [2, 1, 1], spacing: [1, 0, 0]},");
  CHECK(error_of(fixed).find("key 'bodies[0].array'") != std::string::npos);
  CHECK(error_of(fixed).find("a fixed or prescribed body is not copied") != std::string::npos);
}

TEST_CASE("scene loader: the Zeno guard's default grows with the bodies, a given rate stays") {
  // 1,000 events per second per free body, at least 1e5: 12 bodies keep 1e5, 300 get 3e5.
  const auto rate = [](const std::string& counts, const std::string& contact) {
    std::string text = contact + kBase;
    text += "    array: {counts: " + counts + ", spacing: [0.3, 0.3, 0.3]}\n";
    return load_scene_text(text, "pile.yaml").contact.max_events_per_second;
  };
  CHECK(rate("[3, 2, 2]", "") == 1e5);
  CHECK(rate("[10, 10, 3]", "") == 3e5);
  CHECK(rate("[10, 10, 3]", "contact: {max_events_per_second: 5000}\n") == 5000.0);
}

TEST_CASE("scene loader: a pair is checked even when its class's first pair cannot collide") {
  // Loading checks one pair per pair of shape classes: the first pair of Felt and Glass spheres
  // shares a body (it never collides), a later one does not, and Felt-Glass has no contact pair
  // (Glass has no self pair to combine with): the load must fail naming the colliding pair.
  const std::string text = R"(
materials:
  Felt: {density: 300, youngs_modulus: 1.0e6, poisson_ratio: 0.3}
  Glass: {density: 2500, youngs_modulus: 7.0e10, poisson_ratio: 0.2}
contact_materials:
  - {pair: [Felt, Felt], restitution: 0.1}
bodies:
  - name: one
    position: [0, 0, 1]
    shapes: [{name: felt, type: sphere, radius: 0.1, material: Felt},
             {name: glass, type: sphere, radius: 0.1, position: [0.5, 0, 0], material: Glass}]
  - name: two
    position: [3, 0, 1]
    shapes: [{name: felt, type: sphere, radius: 0.1, material: Felt}]
)";
  try {
    (void)load_scene_text(text, "classes.yaml");
    FAIL("loaded a scene whose Felt-Glass pair has no contact material");
  } catch (const InputError& error) {
    const std::string message = error.what();
    CHECK(message.find("no entry for the pair [Glass, Felt]") != std::string::npos);
    CHECK(message.find("two/felt") != std::string::npos);
    CHECK(message.find("one/glass") != std::string::npos);
  }
  // With the two bodies kept apart by a mask, nothing that may collide lacks a pair: it loads.
  std::string filtered = text;
  filtered.replace(filtered.find("{name: glass,"), 13, "{name: glass, group: 2, mask: 2,");
  CHECK_NOTHROW((void)load_scene_text(filtered, "classes.yaml"));
}

TEST_CASE("scene loader: a missing contact pair names both materials") {
  std::string text = kBase;
  text.replace(
      text.find("poisson_ratio: 0.3}"), 19,
      "poisson_ratio: 0.3}\n  Wood: {density: 500, youngs_modulus: 1.0e10, poisson_ratio: 0.4}");
  text.replace(text.find("radius: 0.1, material: Steel"), 28, "radius: 0.1, material: Wood");
  const std::string message = error_of(text);
  CHECK(message.find("scene.yaml") != std::string::npos);
  CHECK(message.find("no entry for the pair [Steel, Wood]") != std::string::npos);
}

TEST_CASE("scene loader: syntax errors and missing files") {
  CHECK(error_of("bodies: [").find("scene.yaml:") != std::string::npos);
  CHECK(error_of("- 1\n- 2").find("must be a YAML map") != std::string::npos);
  try {
    load_scene_file("/nonexistent/scene.yaml");
    FAIL("no error");
  } catch (const InputError& error) {
    CHECK(std::string(error.what()).find("/nonexistent/scene.yaml") != std::string::npos);
  }
}

TEST_CASE("scene loader: inputs that must not crash are errors naming what is wrong") {
  // Only fixed bodies: nothing to integrate.
  CHECK(error_of(R"(
materials: {Steel: {density: 8000, youngs_modulus: 2.0e11, poisson_ratio: 0.3}}
bodies: [{name: ground, fixed: true, shapes: [{type: halfspace, material: Steel}]}]
)")
            .find("needs at least one body that is not fixed") != std::string::npos);
  // Non-scalar keys and list-shaped materials.
  CHECK(error_of("materials: {? [a, b]: {density: 1}}\nbodies: []").find("scene.yaml") !=
        std::string::npos);
  CHECK(error_of("materials: [Steel]\nbodies: []").find("must be a map") != std::string::npos);
  // --set into a list of scalars by name, and a huge index.
  CHECK(error_of(kBase, {"bodies.ball.position.x=1"}).find("no list element 'x'") !=
        std::string::npos);
  CHECK(error_of(kBase, {"bodies.99999999999999999999999.mass=1"}).find("no list element") !=
        std::string::npos);
}

TEST_CASE("scene loader: OBJ vertices must be finite and within 1e6 m, named by index") {
  const std::filesystem::path dir = testing::temporary_directory();
  int file = 0;  // a new file each time: the loader keeps meshes it has read by path
  const auto scene_with = [&](const std::string& vertices) {
    const std::string mesh = fmt::format("gem{}.obj", ++file);
    std::ofstream(dir / mesh) << vertices << "f 1 2 3\n";
    std::ofstream(dir / "gem.yaml") << fmt::format(R"(
materials: {{Steel: {{density: 8000, youngs_modulus: 2.0e11, poisson_ratio: 0.3}}}}
bodies: [{{name: gem, shapes: [{{type: convex, mesh: {}, material: Steel}}]}}]
)",
                                                   mesh);
    try {
      (void)load_scene_file((dir / "gem.yaml").string());
    } catch (const InputError& error) {
      return std::string(error.what());
    }
    return std::string();
  };
  const std::string tetrahedron = "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\n";
  CHECK(scene_with(tetrahedron).empty());
  for (const char* bad : {"v nan 1 0\n", "v inf 0 0\n", "v 0 -inf 0\n", "v 1e308 1 1\n"}) {
    CAPTURE(bad);
    const std::string message = scene_with(tetrahedron + bad);
    CHECK(message.find("gem.yaml") != std::string::npos);
    // nan and inf are named by their line (tinyobjloader would read them as numbers), a huge
    // value by its vertex.
    CHECK((message.find("line 5: 'v ") != std::string::npos ||
           message.find("vertex 5 = [1e+308, 1, 1]: must be finite and within 1e+06 m") !=
               std::string::npos));
  }
}

TEST_CASE("scene loader: a missing pair is combined from the two self pairs") {
  // [Steel, Rubber] from the palette's [Steel, Steel] (e 0.7, mu 0.5) and [Rubber, Rubber]
  // (e 0.8, mu 1.0): geometric means.
  const Model model = load_scene_text(R"(
bodies:
  - {name: ground, fixed: true, shapes: [{type: halfspace, material: Steel}]}
  - {name: ball, position: [0, 0, 1], shapes: [{type: sphere, radius: 0.1, material: Rubber}]}
)",
                                      "mixed.yaml");
  const int index =
      model.find_contact_material(model.find_material("Steel"), model.find_material("Rubber"));
  REQUIRE(index >= 0);
  const ContactMaterial& cm = model.contact_materials[index];
  CHECK(cm.restitution == testing::relative(std::sqrt(0.7 * 0.8), 1e-15));
  CHECK(cm.friction.mu_kinetic == testing::relative(std::sqrt(0.5 * 1.0), 1e-15));
  // Drake's rule for the friction coefficients, 2 mu1 mu2 / (mu1 + mu2) = 2/3; restitution keeps
  // the geometric mean. A rule the loader does not know names the key and the choices.
  const std::string harmonic_scene = R"(
contact: {friction_combination: harmonic}
bodies:
  - {name: ground, fixed: true, shapes: [{type: halfspace, material: Steel}]}
  - {name: ball, position: [0, 0, 1], shapes: [{type: sphere, radius: 0.1, material: Rubber}]}
)";
  const Model drake = load_scene_text(harmonic_scene, "drake.yaml");
  const ContactMaterial& harmonic = drake.contact_materials[drake.find_contact_material(
      drake.find_material("Steel"), drake.find_material("Rubber"))];
  CHECK(harmonic.friction.mu_kinetic == testing::relative(2.0 * 0.5 * 1.0 / 1.5, 1e-15));
  CHECK(harmonic.restitution == cm.restitution);
  CHECK(harmonic.origin.find("harmonic means of the friction coefficients") != std::string::npos);
  std::string unknown = harmonic_scene;
  unknown.replace(unknown.find("harmonic"), 8, "drake");
  CHECK(error_of(unknown).find("friction_combination") != std::string::npos);
  // Two linear-law self pairs without damping combine to kd = 0, not 0/0.
  const Model linear = load_scene_text(R"(
materials:
  A: {density: 1000, youngs_modulus: 1.0e9, poisson_ratio: 0.3}
  B: {density: 1000, youngs_modulus: 1.0e9, poisson_ratio: 0.3}
contact_materials:
  - {pair: [A, A], normal_law: linear, kp: 1.0e6}
  - {pair: [B, B], normal_law: linear, kp: 3.0e6}
bodies:
  - {name: ground, fixed: true, shapes: [{type: halfspace, material: A}]}
  - {name: ball, position: [0, 0, 1], shapes: [{type: sphere, radius: 0.1, material: B}]}
)",
                                       "linear.yaml");
  const ContactMaterial& mixed = linear.contact_materials.back();
  CHECK(mixed.kp == testing::relative(0.75e6, 1e-15));
  CHECK(mixed.kd == 0.0);
}

TEST_CASE("scene loader: an unknown law or a negative coefficient names the pair") {
  std::string text = kBase;
  text.replace(text.find("restitution: 0.5}"), 17,
               "restitution: 0.5, friction: {model: regularized_coulomb, mu_kinetic: -0.1}}");
  CHECK(error_of(text).find(
            "key 'contact_materials[0: Steel, Steel].friction.mu_kinetic' = -0.1: must not be "
            "negative") != std::string::npos);
  text = kBase;
  text.replace(text.find("restitution: 0.5}"), 17, "restitution: 0.5, damping_model: magic}");
  CHECK(error_of(text).find("key 'contact_materials[0: Steel, Steel].damping_model' = magic") !=
        std::string::npos);
}

TEST_CASE("scene loader: the inertia from shapes moves to a centre of mass given apart") {
  const Model model = load_scene_text(std::string(kBase) + R"(
  - name: offset
    position: [1, 0, 1]
    center_of_mass: [0, 0, 0.1]
    shapes: [{type: sphere, radius: 0.1, material: Steel}]
)",
                                      "offset.yaml");
  const Body& body = model.bodies[2];
  // About the given point 0.1 m from the sphere's centre: 2/5 m r^2 + m 0.1^2 about x and y.
  CHECK(body.inertia_com_B(0, 0) == testing::relative(body.mass * (0.4 * 0.01 + 0.01), 1e-12));
  CHECK(body.inertia_com_B(2, 2) == testing::relative(body.mass * 0.4 * 0.01, 1e-12));
}

}  // namespace
}  // namespace hybridsim

namespace hybridsim {
namespace {

std::string with_joint(const std::string& joint, const std::string& extra = "") {
  return std::string(kBase) + R"(  - name: arm
    position: [1, 0, 1]
    shapes: [{type: sphere, radius: 0.1, material: Steel}]
joints:
  - )" + joint +
         "\n" + extra;
}

TEST_CASE("scene loader: bad joints are load errors that name the key") {
  const std::string hinge =
      "{name: j, type: revolute, parent: ground, child: ball, axis: [1, 0, 0]";
  CHECK(error_of(
            with_joint("{name: j, type: revolute, parent: ground, child: nobody, axis: [1, 0, 0]}"))
            .find("joints[0].child") != std::string::npos);
  CHECK(error_of(
            with_joint("{name: j, type: revolute, parent: ground, child: ball, axis: [0, 0, 0]}"))
            .find("must not be zero") != std::string::npos);
  CHECK(
      error_of(with_joint("{name: j, type: revolute, parent: ball, child: ball, axis: [1, 0, 0]}"))
          .find("jointed to itself") != std::string::npos);
  CHECK(error_of(
            with_joint("{name: j, type: spherical, parent: ground, child: ball, axis: [1, 0, 0]}"))
            .find("has no axis") != std::string::npos);
  CHECK(error_of(with_joint("{name: j, type: hinge, parent: ground, child: ball}"))
            .find("joints[0].type") != std::string::npos);
  CHECK(error_of(with_joint(hinge + ", input: push}")).find("unknown input") != std::string::npos);
  const std::string idle = error_of(
      with_joint(hinge + "}", "inputs:\n  - {name: idle, signal: {constant: [1, 0, 0]}}\n"));
  CAPTURE(idle);
  CHECK(idle.find("input 'idle' has no target") != std::string::npos);
  // A loop that does not close: the arm is jointed to the ball at two distant anchors.
  const std::string loop = with_joint(
      "{name: a, type: spherical, parent: ground, child: ball, anchor: [0, 0, 1]}\n"
      "  - {name: b, type: spherical, parent: ball, child: arm, anchor: [0.5, 0, 1]}\n"
      "  - {name: c, type: revolute, parent: ground, child: arm, anchor: [1, 0, 1], axis: [0, 1, "
      "0],"
      " initial: {position: 0.3}}");
  CHECK(error_of(loop).find("closes a loop") != std::string::npos);
}

TEST_CASE("scene loader: a joint's initial position moves the child's subtree about the anchor") {
  const Model model = load_scene_text(
      with_joint("{name: j, type: revolute, parent: ground, child: ball, anchor: [0, 0, 2], "
                 "axis: [1, 0, 0], initial: {position: 1.5707963267948966, velocity: 2.0}}"),
      "scene.yaml");
  const Body& ball = model.bodies[1];
  // The ball hung 1 m below the anchor; a quarter turn about +x takes -z to +y.
  CHECK(std::abs(ball.p_WB.y() - 1.0) < 1e-15);
  CHECK(std::abs(ball.p_WB.z() - 2.0) < 1e-15);
  // Joint rate 2 rad/s: w = 2 x, v = w x (p - anchor) = 2 x (0, 1, 0) = (0, 0, 2).
  CHECK((ball.w_WB_W - Vec3(2, 0, 0)).norm() < 1e-15);
  CHECK((ball.v_WB_W - Vec3(0, 0, 2)).norm() < 1e-14);
  // Jointed shapes do not collide unless the joint says so.
  CHECK_FALSE(model.may_collide(0, 1));
}

}  // namespace
}  // namespace hybridsim

namespace hybridsim {
namespace {

TEST_CASE("scene loader: many joint rows load, forcing the dense solver on them is a clear error") {
  // A chain of spherical joints (3 rows each) one link past the dense limit.
  const int links = kMaxDenseConstraintRows / 3 + 1;
  std::string scene = "bodies:\n  - {name: base, fixed: true}\n";
  std::string joints = "joints:\n";
  for (int i = 0; i < links; ++i) {
    scene += fmt::format(
        "  - {{name: l{}, mass: 1, inertia: [1, 1, 1, 0, 0, 0], position: [{}, 0, 0]}}\n", i,
        i + 1);
    joints += fmt::format(
        "  - {{name: j{}, type: spherical, parent: {}, child: l{}, anchor: [{}, 0, 0]}}\n", i,
        i == 0 ? "base" : fmt::format("l{}", i - 1), i, i + 0.5);
  }
  CHECK(error_of(scene + joints).empty());
  // A Model switched to dense in code is refused by the solver itself, before it allocates.
  Model edited = load_scene_text(scene + joints, "chain.yaml");
  edited.simulation.constraint_factorization = ConstraintFactorization::dense;
  CHECK_THROWS_WITH_AS(ConstraintSolver{edited}, doctest::Contains("dense factorisation"),
                       InputError);
  const std::string dense = "simulation: {constraint_factorization: dense}\n";
  const std::string error = error_of(dense + scene + joints);
  CAPTURE(error);
  CHECK(error.find("'simulation.constraint_factorization' = dense") != std::string::npos);
  CHECK(error.find(fmt::format("{} constraint rows", 3 * links)) != std::string::npos);
  // One link fewer loads.
  CHECK(error_of(dense + scene + joints.substr(0, joints.rfind("  - "))).empty());
}

}  // namespace
TEST_CASE("scene loader: contact_eps is ten times the general convex path's distance error") {
  // Seed 002's rule, eps >= 10 x the distance error: every catalog scene with cylinders, cones,
  // ellipsoids or hulls gets contact_eps >= 10 kGeneralPathAccuracy r (r: the smallest such
  // shape's bounding radius), and tests/collision/convex_distance_test.cpp measures the general
  // path's error below kGeneralPathAccuracy r (worst measured 1.1e-10 r).
  int scenes_with_general_pairs = 0;
  for (const CatalogEntry& entry : list_catalog()) {
    const Model model = load_scene_file(entry.path);
    double smallest = kInfinity;
    for (const Shape& shape : model.shapes) {
      if (shape.collision &&
          (shape.type == ShapeType::cylinder || shape.type == ShapeType::cone ||
           shape.type == ShapeType::ellipsoid || shape.type == ShapeType::convex)) {
        smallest = std::min(smallest, compute_bounding_radius(shape));
      }
    }
    if (!std::isfinite(smallest)) continue;
    ++scenes_with_general_pairs;
    CAPTURE(model.name);
    CHECK(model.contact.contact_eps >= 10.0 * kGeneralPathAccuracy * smallest * (1.0 - 1e-12));
  }
  CHECK(scenes_with_general_pairs >= 8);

  // A scene's own mpr_tolerance is what libccd's MPR runs at (Shape::mpr_tolerance, passed to
  // ccd_t::mpr_tolerance), and sets the default contact_eps to ten times it.
  const Model given = load_scene_text(R"(
contact: {mpr_tolerance: 1.0e-7}
materials:
  Steel: {density: 8000, youngs_modulus: 2.0e11, poisson_ratio: 0.3}
bodies:
  - {name: can, position: [0, 0, 1], shapes: [{type: cylinder, radius: 0.1, length: 0.2, material: Steel}]}
  - {name: floor, fixed: true, shapes: [{type: box, size: [1, 1, 0.1], material: Steel}]}
)",
                                      "mpr.yaml");
  CHECK(given.contact.contact_eps == doctest::Approx(1e-6));
  for (const Shape& shape : given.shapes) CHECK(shape.mpr_tolerance == 1e-7);
  // Without it MPR only starts the refinement (NaN: 1e-4 of the size).
  const Model automatic = load_scene_file("colliding_cylinders");
  for (const Shape& shape : automatic.shapes) CHECK(std::isnan(shape.mpr_tolerance));
}

}  // namespace hybridsim
