// Mass, centre of mass and inertia of a body from its shapes and their material densities.
#pragma once

#include <span>

#include "core/model.hpp"

namespace hybridsim {

struct MassProperties {
  double mass = 0.0;                  // kg
  Vec3 p_BCom_B = Vec3::Zero();       // centre of mass, body frame
  Mat3 inertia_com_B = Mat3::Zero();  // about the centre of mass, body frame
};

// Volume of a shape (0 for a half-space), m^3.
double compute_shape_volume(const Shape& shape);

// Centroid of a shape in its frame S, m: the origin except for a cone or frustum.
Vec3 compute_shape_centroid_S(const Shape& shape);

// Inertia of the solid shape of mass `mass` (kg) about its centroid, S axes, kg m^2.
Mat3 compute_shape_inertia(const Shape& shape, double mass);

// The combined mass properties of the given shapes (each with density of its material), given
// as shapes or as indices into model.shapes.
MassProperties compute_mass_properties(const Model& model, std::span<const Shape> shapes);
MassProperties compute_mass_properties(const Model& model, std::span<const int> shapes);

}  // namespace hybridsim
