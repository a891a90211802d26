#include "tools/replay/shape_mesh.hpp"

#include <cmath>
#include <cstdint>
#include <numbers>

#include "collision/triangle_surface.hpp"

namespace hybridsim {
namespace {

// Appends a triangle with its own three corners and its face normal (flat shading).
void add_flat_triangle(ShapeMesh& mesh, const Vec3& a, const Vec3& b, const Vec3& c) {
  const Vec3 cross = (b - a).cross(c - a);
  if (cross.norm() == 0.0) return;
  const Vec3 normal = cross.normalized();
  const int first = static_cast<int>(mesh.vertices_S.size());
  for (const Vec3* corner : {&a, &b, &c}) {
    mesh.vertices_S.push_back(*corner);
    mesh.normals_S.push_back(normal);
  }
  mesh.triangles.push_back({first, first + 1, first + 2});
}

// A latitude-longitude grid: surface(latitude, longitude, upper) gives a point and its normal;
// `upper` tells the two copies of the equator apart when split_equator (a capsule's two rims).
template <typename Surface>
ShapeMesh make_grid_mesh(const Surface& surface, int sides, bool split_equator = false) {
  const int rings = sides / 2;  // pole to pole (sides even: a ring on the equator)
  ShapeMesh mesh;
  int grid_rings = 0;
  for (int ring = 0; ring <= rings; ++ring) {
    const double latitude = std::numbers::pi * (static_cast<double>(ring) / rings - 0.5);
    const int copies = split_equator && 2 * ring == rings ? 2 : 1;
    for (int copy = 0; copy < copies; ++copy, ++grid_rings) {
      const bool upper = 2 * ring > rings || (2 * ring == rings && copy == copies - 1);
      for (int side = 0; side <= sides; ++side) {
        const double longitude = 2.0 * std::numbers::pi * side / sides;
        const auto [point, normal] = surface(latitude, longitude, upper);
        mesh.vertices_S.push_back(point);
        mesh.normals_S.push_back(normal);
      }
    }
  }
  const int row = sides + 1;
  for (int ring = 0; ring + 1 < grid_rings; ++ring) {
    for (int side = 0; side < sides; ++side) {
      const int a = ring * row + side;
      mesh.triangles.push_back({a, a + 1, a + row + 1});
      mesh.triangles.push_back({a, a + row + 1, a + row});
    }
  }
  return mesh;
}

// Cylinder (top == bottom radius) or truncated cone along z, from -half_length to +half_length.
ShapeMesh make_frustum_mesh(double bottom_radius, double top_radius, double half_length,
                            int sides) {
  ShapeMesh mesh;
  const double slope = (bottom_radius - top_radius) / (2.0 * half_length);
  for (int side = 0; side < sides; ++side) {
    const double a0 = 2.0 * std::numbers::pi * side / sides;
    const double a1 = 2.0 * std::numbers::pi * (side + 1) / sides;
    const Vec3 u0(std::cos(a0), std::sin(a0), 0.0);
    const Vec3 u1(std::cos(a1), std::sin(a1), 0.0);
    const Vec3 bottom0 = bottom_radius * u0 - half_length * Vec3::UnitZ();
    const Vec3 bottom1 = bottom_radius * u1 - half_length * Vec3::UnitZ();
    const Vec3 top0 = top_radius * u0 + half_length * Vec3::UnitZ();
    const Vec3 top1 = top_radius * u1 + half_length * Vec3::UnitZ();
    // The side, smooth around: each corner's normal is the surface's there.
    const int first = static_cast<int>(mesh.vertices_S.size());
    const Vec3 n0 = (u0 + slope * Vec3::UnitZ()).normalized();
    const Vec3 n1 = (u1 + slope * Vec3::UnitZ()).normalized();
    mesh.vertices_S.insert(mesh.vertices_S.end(), {bottom0, bottom1, top1, top0});
    mesh.normals_S.insert(mesh.normals_S.end(), {n0, n1, n1, n0});
    mesh.triangles.push_back({first, first + 1, first + 2});
    if (top_radius > 0.0) mesh.triangles.push_back({first, first + 2, first + 3});
    // The flat ends.
    add_flat_triangle(mesh, -half_length * Vec3::UnitZ(), bottom1, bottom0);
    if (top_radius > 0.0) add_flat_triangle(mesh, half_length * Vec3::UnitZ(), top0, top1);
  }
  return mesh;
}

ShapeMesh make_box_mesh(const Vec3& half_extents) {
  ShapeMesh mesh;
  // Per face: its outward axis and sign; corners counter-clockwise seen from outside.
  for (int axis = 0; axis < 3; ++axis) {
    for (const double sign : {-1.0, 1.0}) {
      const int u = (axis + 1) % 3;
      const int v = (axis + 2) % 3;
      std::array<Vec3, 4> corners;
      const std::array<std::array<double, 2>, 4> uv = {{{-1, -1}, {1, -1}, {1, 1}, {-1, 1}}};
      for (std::size_t k = 0; k < 4; ++k) {
        Vec3 corner = Vec3::Zero();
        corner[axis] = sign * half_extents[axis];
        corner[u] = sign * uv[k][0] * half_extents[u];
        corner[v] = uv[k][1] * half_extents[v];
        corners[k] = corner;
      }
      add_flat_triangle(mesh, corners[0], corners[1], corners[2]);
      add_flat_triangle(mesh, corners[0], corners[2], corners[3]);
    }
  }
  return mesh;
}

// Vertices as given, normals averaged over the triangles at each vertex (by area): terrain reads
// as smooth ground, its creases still visible.
ShapeMesh make_smooth_mesh(const std::vector<Vec3>& vertices_S,
                           const std::vector<std::array<int, 3>>& triangles) {
  ShapeMesh mesh;
  mesh.vertices_S = vertices_S;
  mesh.triangles = triangles;
  mesh.normals_S.assign(vertices_S.size(), Vec3::Zero());
  for (const auto& triangle : triangles) {
    const Vec3 area_normal = (vertices_S[static_cast<std::size_t>(triangle[1])] -
                              vertices_S[static_cast<std::size_t>(triangle[0])])
                                 .cross(vertices_S[static_cast<std::size_t>(triangle[2])] -
                                        vertices_S[static_cast<std::size_t>(triangle[0])]);
    for (const int corner : triangle)
      mesh.normals_S[static_cast<std::size_t>(corner)] += area_normal;
  }
  for (Vec3& normal : mesh.normals_S) {
    normal = normal.norm() > 0.0 ? Vec3(normal.normalized()) : Vec3(Vec3::UnitZ());
  }
  return mesh;
}

}  // namespace

ShapeMesh make_shape_mesh(const Shape& shape, double ground_half_size, int sides) {
  switch (shape.type) {
    case ShapeType::sphere:
      return make_grid_mesh(
          [r = shape.radius](double latitude, double longitude, bool) {
            const Vec3 n(std::cos(latitude) * std::cos(longitude),
                         std::cos(latitude) * std::sin(longitude), std::sin(latitude));
            return std::pair<Vec3, Vec3>(r * n, n);
          },
          sides);
    case ShapeType::ellipsoid:
      return make_grid_mesh(
          [radii = shape.radii](double latitude, double longitude, bool) {
            const Vec3 u(std::cos(latitude) * std::cos(longitude),
                         std::cos(latitude) * std::sin(longitude), std::sin(latitude));
            const Vec3 point = radii.cwiseProduct(u);
            // The gradient of sum (x_i / r_i)^2 is the outward normal.
            const Vec3 gradient = point.cwiseQuotient(radii.cwiseProduct(radii));
            return std::pair<Vec3, Vec3>(point, gradient.normalized());
          },
          sides);
    case ShapeType::capsule:
      // The equator splits into the two caps' rims: the cylinder is the band between them.
      return make_grid_mesh(
          [r = shape.radius, half = shape.length / 2](double latitude, double longitude,
                                                      bool upper) {
            const Vec3 n(std::cos(latitude) * std::cos(longitude),
                         std::cos(latitude) * std::sin(longitude), std::sin(latitude));
            return std::pair<Vec3, Vec3>(r * n + (upper ? half : -half) * Vec3::UnitZ(), n);
          },
          sides, true);
    case ShapeType::cylinder:
      return make_frustum_mesh(shape.radius, shape.radius, shape.length / 2, sides);
    case ShapeType::cone:
      return make_frustum_mesh(shape.radius, shape.top_radius, shape.length / 2, sides);
    case ShapeType::box:
      return make_box_mesh(shape.half_extents);
    case ShapeType::convex: {
      ShapeMesh mesh;
      for (const auto& triangle : shape.hull->triangles) {
        add_flat_triangle(mesh, shape.hull->vertices_S[static_cast<std::size_t>(triangle[0])],
                          shape.hull->vertices_S[static_cast<std::size_t>(triangle[1])],
                          shape.hull->vertices_S[static_cast<std::size_t>(triangle[2])]);
      }
      return mesh;
    }
    case ShapeType::mesh:
    case ShapeType::heightmap:
      return make_smooth_mesh(shape.surface->vertices_S, shape.surface->triangles);
    case ShapeType::halfspace: {
      // Two tangent directions of the plane, then its square.
      const Vec3 normal = shape.normal_S.normalized();
      const Vec3 helper = std::abs(normal.x()) < 0.9 ? Vec3::UnitX() : Vec3::UnitY();
      const Vec3 tangent1 = normal.cross(helper).normalized();
      const Vec3 tangent2 = normal.cross(tangent1);
      const Vec3 centre = shape.offset * normal;
      const double h = ground_half_size;
      ShapeMesh mesh;
      add_flat_triangle(mesh, centre - h * tangent1 - h * tangent2,
                        centre + h * tangent1 - h * tangent2, centre + h * tangent1 + h * tangent2);
      add_flat_triangle(mesh, centre - h * tangent1 - h * tangent2,
                        centre + h * tangent1 + h * tangent2, centre - h * tangent1 + h * tangent2);
      // Seen from above the plane whatever the winding: flip to the outward normal.
      for (auto& triangle : mesh.triangles) {
        const Vec3 face = (mesh.vertices_S[static_cast<std::size_t>(triangle[1])] -
                           mesh.vertices_S[static_cast<std::size_t>(triangle[0])])
                              .cross(mesh.vertices_S[static_cast<std::size_t>(triangle[2])] -
                                     mesh.vertices_S[static_cast<std::size_t>(triangle[0])]);
        if (face.dot(normal) < 0.0) std::swap(triangle[1], triangle[2]);
      }
      for (Vec3& n : mesh.normals_S) n = normal;
      return mesh;
    }
  }
  return {};
}

std::array<double, 3> body_colour(const std::string& body_name) {
  std::uint32_t hash = 2166136261u;
  for (const unsigned char byte : body_name) {
    hash ^= byte;
    hash *= 16777619u;
  }
  const double hue = static_cast<double>(hash % 360u) / 60.0;  // sextant, [0, 6)
  const double saturation = 0.55;
  const double lightness = 0.55;
  // HSL to RGB.
  const double chroma = (1.0 - std::abs(2.0 * lightness - 1.0)) * saturation;
  const double second = chroma * (1.0 - std::abs(std::fmod(hue, 2.0) - 1.0));
  const double base = lightness - chroma / 2.0;
  std::array<double, 3> rgb{};
  switch (static_cast<int>(hue)) {
    case 0:
      rgb = {chroma, second, 0.0};
      break;
    case 1:
      rgb = {second, chroma, 0.0};
      break;
    case 2:
      rgb = {0.0, chroma, second};
      break;
    case 3:
      rgb = {0.0, second, chroma};
      break;
    case 4:
      rgb = {second, 0.0, chroma};
      break;
    default:
      rgb = {chroma, 0.0, second};
      break;
  }
  for (double& channel : rgb) channel += base;
  return rgb;
}

}  // namespace hybridsim
