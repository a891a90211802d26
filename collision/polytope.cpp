#include "collision/polytope.hpp"

namespace hybridsim {
namespace {

// A box's faces -x, +x, -y, +y, -z, +z; corner i has x = +hx if bit 0 is set, y if bit 1, z if
// bit 2. Each loop runs counter-clockwise seen from outside.
const std::array<Vec3, 6> kBoxFaceNormals{-Vec3::UnitX(), Vec3::UnitX(),  -Vec3::UnitY(),
                                          Vec3::UnitY(),  -Vec3::UnitZ(), Vec3::UnitZ()};
constexpr std::array<int, 7> kBoxFaceLoopStart{0, 4, 8, 12, 16, 20, 24};
constexpr std::array<int, 24> kBoxFaceLoops{0, 4, 6, 2, 1, 3, 7, 5, 0, 1, 5, 4,
                                            2, 6, 7, 3, 0, 2, 3, 1, 4, 5, 7, 6};

}  // namespace

Polytope::Polytope(const Shape& shape) {
  if (shape.type == ShapeType::box) {
    const Vec3& h = shape.half_extents;
    for (int i = 0; i < 8; ++i) {
      box_vertices_S_[static_cast<std::size_t>(i)] =
          Vec3((i & 1) ? h.x() : -h.x(), (i & 2) ? h.y() : -h.y(), (i & 4) ? h.z() : -h.z());
    }
    vertices_S_ = box_vertices_S_;
    face_normals_S_ = kBoxFaceNormals;
    face_loop_start_ = kBoxFaceLoopStart;
    face_loop_vertices_ = kBoxFaceLoops;
    bounding_radius_ = h.norm();
  } else {
    const ConvexHull& hull = *shape.hull;
    vertices_S_ = hull.vertices_S;
    face_normals_S_ = hull.face_normals_S;
    face_loop_start_ = hull.face_loop_start;
    face_loop_vertices_ = hull.face_loop_vertices;
    bounding_radius_ = hull.bounding_radius;
  }
}

std::span<const int> Polytope::face_loop(int face) const {
  const auto begin = static_cast<std::size_t>(face_loop_start_[static_cast<std::size_t>(face)]);
  const auto end = static_cast<std::size_t>(face_loop_start_[static_cast<std::size_t>(face) + 1]);
  return face_loop_vertices_.subspan(begin, end - begin);
}

}  // namespace hybridsim
