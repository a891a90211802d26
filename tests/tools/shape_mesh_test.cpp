// The meshes the replay page and the glTF export draw: closed, outward, and of the volume of the
// solid they stand for (exactly for polyhedra, within the facets' known error for round shapes).
#include <doctest/doctest.h>

#include <cmath>
#include <numbers>

#include "approx.hpp"
#include "tools/replay/shape_mesh.hpp"

namespace hybridsim {
namespace {

// Signed volume by the divergence theorem: positive when the triangles face outwards.
double enclosed_volume(const ShapeMesh& mesh) {
  double volume = 0.0;
  for (const auto& t : mesh.triangles) {
    const Vec3& a = mesh.vertices_S[static_cast<std::size_t>(t[0])];
    const Vec3& b = mesh.vertices_S[static_cast<std::size_t>(t[1])];
    const Vec3& c = mesh.vertices_S[static_cast<std::size_t>(t[2])];
    volume += a.dot(b.cross(c)) / 6.0;
  }
  return volume;
}

Shape shape_of(ShapeType type) {
  Shape shape;
  shape.type = type;
  return shape;
}

TEST_CASE("shape meshes: a box's mesh encloses the box's volume, facing outwards") {
  Shape box = shape_of(ShapeType::box);
  box.half_extents = Vec3(0.1, 0.2, 0.3);
  const ShapeMesh mesh = make_shape_mesh(box, 1.0);
  CHECK(mesh.triangles.size() == 12);
  // Exact: the mesh is the box (round-off only).
  CHECK(enclosed_volume(mesh) == testing::relative(8 * 0.1 * 0.2 * 0.3, 1e-12));
  for (const Vec3& normal : mesh.normals_S) CHECK(normal.norm() == testing::relative(1.0, 1e-12));
}

TEST_CASE("shape meshes: cylinders and cones are the inscribed prisms and frustums") {
  const int sides = 32;
  const double r = 0.2, top = 0.05, length = 0.5;
  // The inscribed regular n-gon has area (n / 2) r^2 sin(2 pi / n); a frustum of two similar
  // n-gons has volume L / 3 (A1 + A2 + sqrt(A1 A2)).
  const double polygon = sides / 2.0 * std::sin(2 * std::numbers::pi / sides);
  Shape cylinder = shape_of(ShapeType::cylinder);
  cylinder.radius = r;
  cylinder.length = length;
  CHECK(enclosed_volume(make_shape_mesh(cylinder, 1.0, sides)) ==
        testing::relative(polygon * r * r * length, 1e-12));
  Shape cone = shape_of(ShapeType::cone);
  cone.radius = r;
  cone.top_radius = top;
  cone.length = length;
  const double a1 = polygon * r * r, a2 = polygon * top * top;
  CHECK(enclosed_volume(make_shape_mesh(cone, 1.0, sides)) ==
        testing::relative(length / 3 * (a1 + a2 + std::sqrt(a1 * a2)), 1e-12));
  cone.top_radius = 0.0;  // a pointed cone: no top face
  CHECK(enclosed_volume(make_shape_mesh(cone, 1.0, sides)) ==
        testing::relative(length / 3 * a1, 1e-12));
}

TEST_CASE("shape meshes: spheres, ellipsoids and capsules within their facets' error") {
  // An inscribed latitude-longitude grid of n meridians and n / 2 rings has all its vertices on
  // the surface; its volume lies below the solid's, by less than the relative bound
  // 1 - cos(pi / n) cos(pi / n) of the chord midpoints' depth, twice (meridian and parallel).
  for (const int sides : {12, 32}) {
    CAPTURE(sides);
    const double shortfall =
        2.0 * (1.0 - std::cos(std::numbers::pi / sides) * std::cos(std::numbers::pi / sides));
    Shape sphere = shape_of(ShapeType::sphere);
    sphere.radius = 0.1;
    const double v_sphere = 4.0 / 3.0 * std::numbers::pi * 1e-3;
    const double v_mesh = enclosed_volume(make_shape_mesh(sphere, 1.0, sides));
    CHECK(v_mesh < v_sphere);
    CHECK(v_mesh > v_sphere * (1.0 - shortfall));

    Shape ellipsoid = shape_of(ShapeType::ellipsoid);
    ellipsoid.radii = Vec3(0.1, 0.2, 0.3);
    const double v_ellipsoid = 4.0 / 3.0 * std::numbers::pi * 0.1 * 0.2 * 0.3;
    const double v_ellipsoid_mesh = enclosed_volume(make_shape_mesh(ellipsoid, 1.0, sides));
    // The ellipsoid is the sphere scaled: the same relative shortfall exactly.
    CHECK(v_ellipsoid_mesh / v_ellipsoid == testing::relative(v_mesh / v_sphere, 1e-12));

    // A capsule is the sphere's mesh split at the equator around an inscribed prism.
    Shape capsule = shape_of(ShapeType::capsule);
    capsule.radius = 0.1;
    capsule.length = 0.4;
    const double prism = sides / 2.0 * std::sin(2 * std::numbers::pi / sides) * 0.01 * 0.4;
    CHECK(enclosed_volume(make_shape_mesh(capsule, 1.0, sides)) ==
          testing::relative(v_mesh + prism, 1e-12));
  }
}

TEST_CASE("shape meshes: a half-space is a square on its plane, facing out of the solid") {
  Shape ground = shape_of(ShapeType::halfspace);
  ground.normal_S = Vec3(0, 0, 1);
  ground.offset = 0.25;
  const ShapeMesh mesh = make_shape_mesh(ground, 3.0);
  REQUIRE(mesh.triangles.size() == 2);
  double area = 0.0;
  for (const auto& t : mesh.triangles) {
    const Vec3 cross = (mesh.vertices_S[static_cast<std::size_t>(t[1])] -
                        mesh.vertices_S[static_cast<std::size_t>(t[0])])
                           .cross(mesh.vertices_S[static_cast<std::size_t>(t[2])] -
                                  mesh.vertices_S[static_cast<std::size_t>(t[0])]);
    CHECK(cross.z() > 0.0);  // counter-clockwise seen from outside (above)
    area += cross.norm() / 2.0;
  }
  CHECK(area == testing::relative(36.0, 1e-12));
  for (const Vec3& v : mesh.vertices_S) CHECK(v.z() == testing::relative(0.25, 1e-15));
}

TEST_CASE("shape meshes: a body's colour depends on its name only") {
  CHECK(body_colour("ball") == body_colour(std::string("ba") + "ll"));
  CHECK(body_colour("ball") != body_colour("ball_2"));
  for (const double channel : body_colour("anything")) {
    CHECK(channel >= 0.0);
    CHECK(channel <= 1.0);
  }
}

}  // namespace
}  // namespace hybridsim
