// Meshes as inline scene YAML, shared by the terrain, moving-mesh and capsule tests: a randomly
// triangulated flat floor and a closed box; the steel scene head they use and its Hertz depth.
#pragma once

#include <array>
#include <cmath>
#include <random>
#include <string>

#include <fmt/format.h>

#include "core/math.hpp"

namespace hybridsim::testing {

// Steel on steel: c = E / (1 - nu^2), c_res = c c / (c + c); a point's elastic force
// c_res (4/3) sqrt(r_geo) delta^1.5.
inline constexpr double kSteelCRes = 2.0e11 / (1.0 - 0.09) / 2.0;

// The depth (m) at which a steel point of Hertz radius r_geo (m) carries `force` (N).
inline double steel_hertz_depth(double force, double r_geo) {
  return std::pow(force / (kSteelCRes * 4.0 / 3.0 * std::sqrt(r_geo)), 2.0 / 3.0);
}

// Steel (8000 kg/m^3, E = 200 GPa, nu = 0.3), restitution 0.5, regularised Coulomb friction
// mu 0.5 (exact above v_small = 1e-4 m/s), contact_eps 1e-13 m, outputs every 0.01 s; atol the
// default (1e-2 rtol) unless given.
inline std::string steel_head(double stop_time, double rtol, double atol = 0.0) {
  return fmt::format(
      R"(materials: {{Steel: {{density: 8000, youngs_modulus: 2.0e11, poisson_ratio: 0.3}}}}
contact: {{contact_eps: 1.0e-13}}
contact_materials:
  - pair: [Steel, Steel]
    restitution: 0.5
    friction: {{model: regularized_coulomb, mu_kinetic: 0.5, v_small: 1.0e-4}}
simulation: {{stop_time: {}, rtol: {}{}, output_interval: 0.01}}
)",
      stop_time, rtol, atol > 0.0 ? fmt::format(", atol: {}", atol) : std::string());
}

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
