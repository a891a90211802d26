// Convex polyhedra as corners and faces (design.md §4b): the view that contact manifolds clip.
// A box's is built on the stack from its half extents; a convex hull's points into its arrays.
// Everything is in the shape frame S; faces are loops of vertex indices, counter-clockwise seen
// from outside, with their unit outward normals.
#pragma once

#include <array>
#include <span>

#include "core/math.hpp"
#include "core/model.hpp"

namespace hybridsim {

class Polytope {
 public:
  // The box or convex hull `shape` (its sharp geometry; the smoothing radius is not applied).
  explicit Polytope(const Shape& shape);
  Polytope(const Polytope&) = delete;  // the spans may point into this object
  Polytope& operator=(const Polytope&) = delete;

  int vertex_count() const { return static_cast<int>(vertices_S_.size()); }
  int face_count() const { return static_cast<int>(face_normals_S_.size()); }
  const Vec3& vertex_S(int vertex) const { return vertices_S_[static_cast<std::size_t>(vertex)]; }
  const Vec3& face_normal_S(int face) const {
    return face_normals_S_[static_cast<std::size_t>(face)];
  }
  // The vertex indices of face `face`, counter-clockwise seen from outside.
  std::span<const int> face_loop(int face) const;
  // m, the radius of a ball about S's origin that holds the polytope.
  double bounding_radius() const { return bounding_radius_; }

  // Whether a shape of this type is a polytope here (box, convex).
  static bool is_polytope(ShapeType type) {
    return type == ShapeType::box || type == ShapeType::convex;
  }

 private:
  std::array<Vec3, 8> box_vertices_S_{};  // a box's corners: bit 0 x, bit 1 y, bit 2 z (+ if set)
  std::span<const Vec3> vertices_S_;
  std::span<const Vec3> face_normals_S_;
  std::span<const int> face_loop_start_;
  std::span<const int> face_loop_vertices_;
  double bounding_radius_ = 0.0;
};

}  // namespace hybridsim
