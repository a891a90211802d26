#include "models/mass_properties.hpp"

#include <numbers>

namespace hybridsim {

double compute_shape_volume(const Shape& shape) {
  switch (shape.type) {
    case ShapeType::sphere:
      return 4.0 / 3.0 * std::numbers::pi * std::pow(shape.radius, 3);
    case ShapeType::box:
      return 8.0 * shape.half_extents.prod();
    case ShapeType::capsule:
      return std::numbers::pi * shape.radius * shape.radius *
             (shape.length + 4.0 / 3.0 * shape.radius);
    case ShapeType::halfspace:
      return 0.0;
  }
  return 0.0;
}

namespace {

// Inertia of a solid shape of mass m about its own centre, shape frame.
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
    case ShapeType::halfspace:
      return Mat3::Zero();
  }
  return Mat3::Zero();
}

}  // namespace

MassProperties compute_mass_properties(const Model& model, std::span<const int> shapes) {
  MassProperties total;
  Vec3 first_moment = Vec3::Zero();
  for (int index : shapes) {
    const Shape& shape = model.shapes[index];
    const double mass = model.materials[shape.material].density * compute_shape_volume(shape);
    total.mass += mass;
    first_moment += mass * shape.X_BS.translation;
  }
  if (total.mass <= 0.0) return total;
  total.p_BCom_B = first_moment / total.mass;
  // Rotate each shape's inertia into the body frame and shift it to the common centre of mass
  // (parallel-axis theorem: + m (|d|^2 I - d d^T)).
  for (int index : shapes) {
    const Shape& shape = model.shapes[index];
    const double mass = model.materials[shape.material].density * compute_shape_volume(shape);
    const Mat3& R_BS = shape.X_BS.rotation;
    const Vec3 d = shape.X_BS.translation - total.p_BCom_B;
    total.inertia_com_B += R_BS * compute_shape_inertia(shape, mass) * R_BS.transpose() +
                           mass * (d.squaredNorm() * Mat3::Identity() - d * d.transpose());
  }
  return total;
}

}  // namespace hybridsim
