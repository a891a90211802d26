#include "models/mass_properties.hpp"

#include <numbers>

namespace hybridsim {

double compute_shape_volume(const Shape& shape) {
  switch (shape.type) {
    case ShapeType::sphere:
      return 4.0 / 3.0 * std::numbers::pi * std::pow(shape.radius, 3);
    case ShapeType::box:
      return 8.0 * shape.half_extents.prod();
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
