#include "models/mass_properties.hpp"

#include <cmath>
#include <numbers>
#include <vector>

#include "collision/convex_hull.hpp"
#include "collision/triangle_surface.hpp"

namespace hybridsim {
namespace {

// Integrals over a frustum (radius r0 at z = -L/2, r1 at +L/2, radius linear in z) of
// 1, z, r^4/2 and r^2/4 + z^2 over its cross-sections (times pi r^2 dz): volume, first moment,
// and the per-unit-density axial and transverse inertia about S's origin. The integrands are
// polynomials of degree <= 4 in z, which 3-point Gauss-Legendre quadrature integrates exactly.
struct FrustumIntegrals {
  double volume = 0.0;
  double first_moment_z = 0.0;
  double axial = 0.0;
  double transverse = 0.0;
};

FrustumIntegrals integrate_frustum(const Shape& cone) {
  const double half = 0.5 * cone.length;
  const double nodes[3] = {-std::sqrt(0.6), 0.0, std::sqrt(0.6)};
  const double weights[3] = {5.0 / 9.0, 8.0 / 9.0, 5.0 / 9.0};
  FrustumIntegrals f;
  for (int i = 0; i < 3; ++i) {
    const double z = half * nodes[i];
    const double r = cone.radius + (cone.top_radius - cone.radius) * (z + half) / cone.length;
    const double area = std::numbers::pi * r * r;
    const double w = weights[i] * half;  // dz = half d(node)
    f.volume += w * area;
    f.first_moment_z += w * area * z;
    f.axial += w * area * r * r / 2.0;
    f.transverse += w * area * (r * r / 4.0 + z * z);
  }
  return f;
}

// A closed mesh's volume integrals about S's origin.
HullVolumeIntegrals closed_mesh_integrals(const Shape& mesh) {
  return integrate_closed_surface_volume(mesh.surface->vertices_S, mesh.surface->triangles);
}

// The inertia about the centroid of a solid of this mass from its integrals about S's origin
// (parallel axes).
Mat3 inertia_about_centroid(const HullVolumeIntegrals& solid, double mass) {
  const Vec3 c = solid.first_moment_S / solid.volume;
  return mass / solid.volume * solid.unit_density_inertia_S -
         mass * (c.squaredNorm() * Mat3::Identity() - c * c.transpose());
}

}  // namespace

double compute_shape_volume(const Shape& shape) {
  switch (shape.type) {
    case ShapeType::sphere:
      return 4.0 / 3.0 * std::numbers::pi * std::pow(shape.radius, 3);
    case ShapeType::box:
      return 8.0 * shape.half_extents.prod();
    case ShapeType::capsule:
      return std::numbers::pi * shape.radius * shape.radius *
             (shape.length + 4.0 / 3.0 * shape.radius);
    case ShapeType::cylinder:
      return std::numbers::pi * shape.radius * shape.radius * shape.length;
    case ShapeType::cone:
      return integrate_frustum(shape).volume;
    case ShapeType::ellipsoid:
      return 4.0 / 3.0 * std::numbers::pi * shape.radii.prod();
    case ShapeType::convex:
      return integrate_hull_volume(*shape.hull).volume;
    case ShapeType::mesh:  // a closed mesh bounds a solid; an open one has no volume
      return shape.surface->is_closed() ? closed_mesh_integrals(shape).volume : 0.0;
    case ShapeType::halfspace:
    case ShapeType::heightmap:
      return 0.0;
  }
  return 0.0;
}

Vec3 compute_shape_centroid_S(const Shape& shape) {
  if (shape.type == ShapeType::convex) {
    const HullVolumeIntegrals hull = integrate_hull_volume(*shape.hull);
    return hull.first_moment_S / hull.volume;  // zero to rounding: hulls are built centred
  }
  if (shape.type == ShapeType::mesh && shape.surface->is_closed()) {
    const HullVolumeIntegrals mesh = closed_mesh_integrals(shape);
    return mesh.first_moment_S / mesh.volume;
  }
  if (shape.type != ShapeType::cone) return Vec3::Zero();
  const FrustumIntegrals f = integrate_frustum(shape);
  return Vec3(0.0, 0.0, f.first_moment_z / f.volume);
}

Mat3 compute_shape_inertia(const Shape& shape, double mass) {
  switch (shape.type) {
    case ShapeType::sphere:
      return Mat3::Identity() * (0.4 * mass * shape.radius * shape.radius);
    case ShapeType::box: {
      const Vec3 edge_squared = (2.0 * shape.half_extents).cwiseAbs2();
      return Vec3(edge_squared.y() + edge_squared.z(), edge_squared.x() + edge_squared.z(),
                  edge_squared.x() + edge_squared.y())
                 .asDiagonal() *
             (mass / 12.0);
    }
    case ShapeType::capsule: {
      // Cylinder (length L) plus two hemispheres, mass split by volume. About the centre, S axes:
      // I_zz = m_c r^2/2 + m_h 2r^2/5; I_xx = m_c (L^2/12 + r^2/4) + m_h (2r^2/5 + L^2/4 + 3Lr/8)
      // (each hemisphere's centre of mass sits 3r/8 from its flat face).
      const double r = shape.radius, L = shape.length;
      const double cylinder_volume = std::numbers::pi * r * r * L;
      const double caps_volume = 4.0 / 3.0 * std::numbers::pi * r * r * r;
      const double m_c = mass * cylinder_volume / (cylinder_volume + caps_volume);
      const double m_h = mass - m_c;
      const double axial = m_c * r * r / 2.0 + m_h * 2.0 * r * r / 5.0;
      const double transverse = m_c * (L * L / 12.0 + r * r / 4.0) +
                                m_h * (2.0 * r * r / 5.0 + L * L / 4.0 + 3.0 * L * r / 8.0);
      return Vec3(transverse, transverse, axial).asDiagonal();
    }
    case ShapeType::cylinder: {
      const double r = shape.radius, L = shape.length;
      const double transverse = mass * (3.0 * r * r + L * L) / 12.0;
      return Vec3(transverse, transverse, mass * r * r / 2.0).asDiagonal();
    }
    case ShapeType::cone: {
      // Per unit density about S's origin, then shifted to the centroid (parallel axes).
      const FrustumIntegrals f = integrate_frustum(shape);
      const double density = mass / f.volume;
      const double z_c = f.first_moment_z / f.volume;
      const double transverse = density * f.transverse - mass * z_c * z_c;
      return Vec3(transverse, transverse, density * f.axial).asDiagonal();
    }
    case ShapeType::ellipsoid: {
      const Vec3 a2 = shape.radii.cwiseAbs2();
      return Vec3(a2.y() + a2.z(), a2.x() + a2.z(), a2.x() + a2.y()).asDiagonal() * (mass / 5.0);
    }
    case ShapeType::convex:
      return inertia_about_centroid(integrate_hull_volume(*shape.hull), mass);
    case ShapeType::mesh:
      if (!shape.surface->is_closed()) return Mat3::Zero();
      return inertia_about_centroid(closed_mesh_integrals(shape), mass);
    case ShapeType::halfspace:
    case ShapeType::heightmap:
      return Mat3::Zero();
  }
  return Mat3::Zero();
}

MassProperties compute_mass_properties(const Model& model, std::span<const Shape> shapes) {
  MassProperties total;
  Vec3 first_moment = Vec3::Zero();
  for (const Shape& shape : shapes) {
    const double mass = model.materials[shape.material].density * compute_shape_volume(shape);
    total.mass += mass;
    first_moment += mass * shape.X_BS.transform_point(compute_shape_centroid_S(shape));
  }
  if (total.mass <= 0.0) return total;
  total.p_BCom_B = first_moment / total.mass;
  // Rotate each shape's inertia into the body frame and shift it to the common centre of mass
  // (parallel-axis theorem: + m (|d|^2 I - d d^T)).
  for (const Shape& shape : shapes) {
    const double mass = model.materials[shape.material].density * compute_shape_volume(shape);
    const Mat3& R_BS = shape.X_BS.rotation;
    const Vec3 d = shape.X_BS.transform_point(compute_shape_centroid_S(shape)) - total.p_BCom_B;
    total.inertia_com_B += R_BS * compute_shape_inertia(shape, mass) * R_BS.transpose() +
                           mass * (d.squaredNorm() * Mat3::Identity() - d * d.transpose());
  }
  return total;
}

MassProperties compute_mass_properties(const Model& model, std::span<const int> shapes) {
  std::vector<Shape> selected;
  selected.reserve(shapes.size());
  for (int index : shapes) selected.push_back(model.shapes[index]);
  return compute_mass_properties(model, selected);
}

}  // namespace hybridsim
