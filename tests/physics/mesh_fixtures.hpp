// Meshes as inline scene YAML, shared by the terrain and moving-mesh tests: a randomly
// triangulated flat floor and a closed box.
#pragma once

#include <array>
#include <cmath>
#include <random>
#include <string>

#include <fmt/format.h>

#include "core/math.hpp"

namespace hybridsim::testing {

// A square of side 2 at z = 0, `cells` x `cells` jittered grid points with random diagonals, as
// an inline mesh shape of Steel (`vertices` and `triangles`).
inline std::string random_floor_yaml(int cells, unsigned seed) {
  std::mt19937 random(seed);
  std::uniform_real_distribution<double> jitter(-0.3, 0.3);
  std::bernoulli_distribution flip(0.5);
  const double h = 2.0 / cells;
  std::string vertices, triangles;
  for (int j = 0; j <= cells; ++j) {
    for (int i = 0; i <= cells; ++i) {
      const bool inside = i > 0 && i < cells && j > 0 && j < cells;
      vertices +=
          fmt::format("[{:.17g}, {:.17g}, 0], ", -1.0 + (i + (inside ? jitter(random) : 0.0)) * h,
                      -1.0 + (j + (inside ? jitter(random) : 0.0)) * h);
    }
  }
  for (int j = 0; j < cells; ++j) {
    for (int i = 0; i < cells; ++i) {
      const int a = j * (cells + 1) + i, b = a + 1, c = a + cells + 2, d = a + cells + 1;
      triangles += flip(random) ? fmt::format("[{}, {}, {}], [{}, {}, {}], ", a, b, c, a, c, d)
                                : fmt::format("[{}, {}, {}], [{}, {}, {}], ", a, b, d, b, c, d);
    }
  }
  return fmt::format("{{type: mesh, material: Steel, vertices: [{}], triangles: [{}]}}", vertices,
                     triangles);
}

// Two faces at +-beta rising from a valley along y (x = 0, z = 0) over [-1, 1]^2, as an inline
// mesh shape of Steel.
inline std::string v_groove_yaml(double beta) {
  return fmt::format(
      "{{type: mesh, material: Steel, vertices: [[-1, -1, {s}], [0, -1, 0], [1, -1, {s}], "
      "[-1, 1, {s}], [0, 1, 0], [1, 1, {s}]], triangles: [[0, 1, 4], [0, 4, 3], [1, 2, 5], "
      "[1, 5, 4]]}}",
      fmt::arg("s", std::tan(beta)));
}

// A box of half extents h centred at c as a closed mesh (8 vertices, 12 outward triangles, or
// inward ones): inline `vertices` and `triangles` of a shape. Vertex k has x = c.x +- h.x by bit 0
// of k, y by bit 1, z by bit 2.
inline std::string box_mesh_keys(const Vec3& h, const Vec3& c = Vec3::Zero(), bool inward = false) {
  constexpr std::array<std::array<int, 3>, 12> kOutward{{{0, 2, 3},
                                                         {0, 3, 1},
                                                         {4, 5, 7},
                                                         {4, 7, 6},
                                                         {0, 1, 5},
                                                         {0, 5, 4},
                                                         {2, 6, 7},
                                                         {2, 7, 3},
                                                         {0, 4, 6},
                                                         {0, 6, 2},
                                                         {1, 3, 7},
                                                         {1, 7, 5}}};
  std::string vertices, triangles;
  for (int k = 0; k < 8; ++k) {
    vertices += fmt::format("[{:.17g}, {:.17g}, {:.17g}], ", c.x() + ((k & 1) ? h.x() : -h.x()),
                            c.y() + ((k & 2) ? h.y() : -h.y()), c.z() + ((k & 4) ? h.z() : -h.z()));
  }
  for (const auto& [a, b, d] : kOutward) {
    triangles +=
        inward ? fmt::format("[{}, {}, {}], ", d, b, a) : fmt::format("[{}, {}, {}], ", a, b, d);
  }
  return fmt::format("type: mesh, vertices: [{}], triangles: [{}]", vertices, triangles);
}

}  // namespace hybridsim::testing
