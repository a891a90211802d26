#include "collision/signed_distance.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include "core/errors.hpp"

namespace hybridsim {
namespace {

// Two spheres: along the line of centres. Coincident centres take the world z axis as normal.
SignedDistance sphere_sphere(const Shape& a, const Pose& X_WA, const Shape& b, const Pose& X_WB) {
  SignedDistance result;
  const Vec3 d_W = X_WB.translation - X_WA.translation;
  const double centre_distance = d_W.norm();
  result.n_AB_W = centre_distance > 0.0 ? Vec3(d_W / centre_distance) : Vec3::UnitZ();
  result.distance = centre_distance - a.radius - b.radius;
  result.p_A_W = X_WA.translation + a.radius * result.n_AB_W;
  result.p_B_W = X_WB.translation - b.radius * result.n_AB_W;
  return result;
}

// A half-space {x : n . x <= offset} (shape frame) against a sphere; the normal points out of
// the half-space, from A (half-space) to B (sphere).
SignedDistance halfspace_sphere(const Shape& half, const Pose& X_WH, const Shape& sphere,
                                const Pose& X_WS) {
  SignedDistance result;
  const Vec3 n_W = X_WH.rotation * half.normal_S;
  const Vec3& c_W = X_WS.translation;
  const double height = n_W.dot(c_W - X_WH.translation) - half.offset;  // centre above the plane
  result.n_AB_W = n_W;
  result.distance = height - sphere.radius;
  result.p_A_W = c_W - height * n_W;
  result.p_B_W = c_W - sphere.radius * n_W;
  return result;
}

// A half-space against a box: the distance is that of the deepest vertex. The witness point on
// the box is the penetration-weighted centroid of the penetrating vertices (one vertex, an edge
// midpoint or a face centre when they are equally deep), which moves continuously as vertices
// enter and leave the half-space; before contact it is the mean of the lowest vertices.
SignedDistance halfspace_box(const Shape& half, const Pose& X_WH, const Shape& box,
                             const Pose& X_WB) {
  SignedDistance result;
  const Vec3 n_W = X_WH.rotation * half.normal_S;
  const double plane_level = n_W.dot(X_WH.translation) + half.offset;
  std::array<Vec3, 8> vertices;
  std::array<double, 8> heights;
  double lowest = kInfinity;
  for (int i = 0; i < 8; ++i) {
    const Vec3 corner_S((i & 1) ? box.half_extents.x() : -box.half_extents.x(),
                        (i & 2) ? box.half_extents.y() : -box.half_extents.y(),
                        (i & 4) ? box.half_extents.z() : -box.half_extents.z());
    vertices[i] = X_WB.transform_point(corner_S);
    heights[i] = n_W.dot(vertices[i]) - plane_level;
    lowest = std::min(lowest, heights[i]);
  }
  Vec3 weighted_sum = Vec3::Zero();
  double weight_total = 0.0;
  for (int i = 0; i < 8; ++i) {
    const double weight = std::max(0.0, -heights[i]);
    weighted_sum += weight * vertices[i];
    weight_total += weight;
  }
  if (weight_total == 0.0) {
    // No vertex inside: average the vertices within a relative 1e-12 of the lowest one.
    const double tolerance = 1e-12 * box.half_extents.maxCoeff();
    for (int i = 0; i < 8; ++i) {
      if (heights[i] <= lowest + tolerance) {
        weighted_sum += vertices[i];
        weight_total += 1.0;
      }
    }
  }
  result.n_AB_W = n_W;
  result.distance = lowest;
  result.p_B_W = weighted_sum / weight_total;
  result.p_A_W = result.p_B_W - (n_W.dot(result.p_B_W) - plane_level) * n_W;
  return result;
}

// A box (A) against a sphere (B): the closest point of the box to the centre; when the centre is
// inside the box, the nearest face gives the normal.
SignedDistance box_sphere(const Shape& box, const Pose& X_WB, const Shape& sphere,
                          const Pose& X_WS) {
  SignedDistance result;
  const Mat3& R_WB = X_WB.rotation;
  const Vec3 c_B = R_WB.transpose() * (X_WS.translation - X_WB.translation);
  const Vec3& h = box.half_extents;
  const Vec3 closest_B = c_B.cwiseMax(-h).cwiseMin(h);
  const Vec3 offset_B = c_B - closest_B;
  const double outside_distance = offset_B.norm();
  Vec3 n_B;
  Vec3 surface_B = closest_B;
  if (outside_distance > 0.0) {
    n_B = offset_B / outside_distance;
    result.distance = outside_distance - sphere.radius;
  } else {
    // Centre inside: the face with the smallest depth h_i - |c_i|.
    int axis = 0;
    double depth = kInfinity;
    for (int i = 0; i < 3; ++i) {
      const double face_depth = h[i] - std::abs(c_B[i]);
      if (face_depth < depth) {
        depth = face_depth;
        axis = i;
      }
    }
    const double side = c_B[axis] >= 0.0 ? 1.0 : -1.0;
    n_B = side * Vec3::Unit(axis);
    surface_B[axis] = side * h[axis];
    result.distance = -depth - sphere.radius;
  }
  result.n_AB_W = R_WB * n_B;
  result.p_A_W = X_WB.transform_point(surface_B);
  result.p_B_W = X_WS.translation - sphere.radius * result.n_AB_W;
  return result;
}

SignedDistance swapped(SignedDistance result) {
  result.n_AB_W = -result.n_AB_W;
  std::swap(result.p_A_W, result.p_B_W);
  return result;
}

}  // namespace

bool is_supported_shape_pair(ShapeType a, ShapeType b) {
  if (a == ShapeType::halfspace && b == ShapeType::halfspace) return false;
  if (a == ShapeType::box && b == ShapeType::box) return false;
  return true;
}

SignedDistance compute_signed_distance(const Shape& a, const Pose& X_WA, const Shape& b,
                                       const Pose& X_WB) {
  using enum ShapeType;
  if (a.type == sphere && b.type == sphere) return sphere_sphere(a, X_WA, b, X_WB);
  if (a.type == halfspace && b.type == sphere) return halfspace_sphere(a, X_WA, b, X_WB);
  if (a.type == sphere && b.type == halfspace) return swapped(halfspace_sphere(b, X_WB, a, X_WA));
  if (a.type == halfspace && b.type == box) return halfspace_box(a, X_WA, b, X_WB);
  if (a.type == box && b.type == halfspace) return swapped(halfspace_box(b, X_WB, a, X_WA));
  if (a.type == box && b.type == sphere) return box_sphere(a, X_WA, b, X_WB);
  if (a.type == sphere && b.type == box) return swapped(box_sphere(b, X_WB, a, X_WA));
  throw NotSupportedError("signed distance: this shape pair is not supported yet");
}

}  // namespace hybridsim
