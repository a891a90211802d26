// Triangle surfaces and ball contacts on them (design.md §4b), against brute force and geometry:
// the neighbours and creases of known shapes, the hierarchy's query against testing every
// triangle, the candidates against the definition of a local minimum of the distance, the
// following of a point against continuity, and bad input refused with its place named.
#include <doctest/doctest.h>

#include <cmath>
#include <memory>
#include <numbers>
#include <random>
#include <vector>

#include "collision/terrain_contact.hpp"
#include "collision/triangle_surface.hpp"
#include "core/errors.hpp"
#include "test_shapes.hpp"

namespace hybridsim {
namespace {

// A unit square [0,1]^2 at z = 0 split along its diagonal, and a V-groove of two planes at +-beta
// meeting along the y axis: a valley (concave) seen from above, or a ridge when `ridge`.
TriangleSurface make_groove(double beta, bool ridge) {
  const double s = ridge ? -std::tan(beta) : std::tan(beta);
  std::vector<Vec3> v = {{-1, -1, s}, {0, -1, 0}, {1, -1, s}, {-1, 1, s}, {0, 1, 0}, {1, 1, s}};
  return build_mesh_surface(v, {{0, 1, 4}, {0, 4, 3}, {1, 2, 5}, {1, 5, 4}});
}

// A flat square of side 2 (centred at the origin, z = 0) triangulated at random: jittered grid
// points, random diagonals.
TriangleSurface make_random_floor(int cells, unsigned seed) {
  std::mt19937 random(seed);
  std::uniform_real_distribution<double> jitter(-0.3, 0.3);
  std::bernoulli_distribution flip(0.5);
  const double h = 2.0 / cells;
  std::vector<Vec3> v;
  for (int j = 0; j <= cells; ++j) {
    for (int i = 0; i <= cells; ++i) {
      const bool inside = i > 0 && i < cells && j > 0 && j < cells;
      v.emplace_back(-1.0 + (i + (inside ? jitter(random) : 0.0)) * h,
                     -1.0 + (j + (inside ? jitter(random) : 0.0)) * h, 0.0);
    }
  }
  std::vector<std::array<int, 3>> t;
  for (int j = 0; j < cells; ++j) {
    for (int i = 0; i < cells; ++i) {
      const int a = j * (cells + 1) + i, b = a + 1, c = a + cells + 2, d = a + cells + 1;
      if (flip(random)) {
        t.push_back({a, b, c});
        t.push_back({a, c, d});
      } else {
        t.push_back({a, b, d});
        t.push_back({b, c, d});
      }
    }
  }
  return build_mesh_surface(v, t);
}

// The distance from c to triangle t (brute force: the plane inside, else the nearest edge).
double distance_to_triangle(const TriangleSurface& s, int t, const Vec3& c) {
  const auto& tri = s.triangles[static_cast<std::size_t>(t)];
  const Vec3 &a = s.vertices_S[tri[0]], &b = s.vertices_S[tri[1]], &d = s.vertices_S[tri[2]];
  const Vec3 n = s.normals_S[static_cast<std::size_t>(t)];
  const Vec3 p = c - n.dot(c - a) * n;
  const bool inside = (b - a).cross(p - a).dot(n) >= 0 && (d - b).cross(p - b).dot(n) >= 0 &&
                      (a - d).cross(p - d).dot(n) >= 0;
  if (inside) return std::abs(n.dot(c - a));
  double best = kInfinity;
  for (const auto& [p0, p1] : {std::pair{a, b}, std::pair{b, d}, std::pair{d, a}}) {
    const Vec3 e = p1 - p0;
    const double along = std::clamp(e.dot(c - p0) / e.squaredNorm(), 0.0, 1.0);
    best = std::min(best, (c - (p0 + along * e)).norm());
  }
  return best;
}

TEST_CASE("triangle surface: neighbours and creases of a valley and a ridge") {
  for (const bool ridge : {false, true}) {
    const TriangleSurface s = make_groove(0.3, ridge);
    REQUIRE(s.triangles.size() == 4);
    // Triangle 0 (0,1,4): edge 1 (1 -> 4) is the groove's axis, shared with triangle 3.
    CHECK(s.neighbours[0][1] == 3);
    CHECK(s.creases[0][1] == (ridge ? Crease::convex : Crease::concave));
    // Its diagonal (4 -> 0) is flat, shared with triangle 1; edge 0 (0 -> 1) is the border.
    CHECK(s.neighbours[0][2] == 1);
    CHECK(s.creases[0][2] == Crease::flat);
    CHECK(s.creases[0][0] == Crease::boundary);
    // Every normal points up (counter-clockwise from above).
    for (const Vec3& n : s.normals_S) CHECK(n.z() > 0.9);
  }
}

TEST_CASE("triangle surface: the hierarchy and the grid find exactly the triangles near a point") {
  // Against testing every triangle's box: nothing missed, nothing far reported.
  std::mt19937 random(7);
  std::uniform_real_distribution<double> coordinate(-1.2, 1.2), radius(0.001, 0.3);
  std::vector<std::vector<double>> heights(33, std::vector<double>(41));
  for (int r = 0; r < 33; ++r) {
    for (int c = 0; c < 41; ++c) {
      heights[static_cast<std::size_t>(r)][static_cast<std::size_t>(c)] =
          0.1 * std::sin(0.3 * r * c);
    }
  }
  const TriangleSurface surfaces[] = {make_random_floor(20, 3),
                                      build_heightmap_surface(heights, 2.0, 1.6)};
  for (const TriangleSurface& s : surfaces) {
    for (int trial = 0; trial < 200; ++trial) {
      const Vec3 c(coordinate(random), coordinate(random), 0.5 * coordinate(random));
      const double reach = radius(random);
      std::vector<char> seen(s.triangles.size(), 0);
      s.for_each_triangle_near(c, reach, [&](int t) { ++seen[static_cast<std::size_t>(t)]; });
      for (std::size_t t = 0; t < s.triangles.size(); ++t) {
        Vec3 low = Vec3::Constant(kInfinity), high = -low;
        for (const int v : s.triangles[t]) {
          low = low.cwiseMin(s.vertices_S[v]);
          high = high.cwiseMax(s.vertices_S[v]);
        }
        CAPTURE(t);
        CHECK(seen[t] <= 1);
        // A triangle within reach is always visited (a grid visits its cell's pair, so it may
        // visit a neighbour of one that is near; a hierarchy's leaf its four).
        if (squared_distance_to_box(c, low, high) <= reach * reach) CHECK(seen[t] == 1);
        if (seen[t] == 1)
          CHECK(squared_distance_to_box(c, low, high) <= 4.0 * (reach + 0.2) * (reach + 0.2));
      }
    }
  }
}

TEST_CASE("triangle surface: a heightmap's grid is laid out as the scene format says") {
  // Row 0 at y = -Y/2, column 0 at x = -X/2, the points spanning the extent.
  const TriangleSurface s = build_heightmap_surface({{0.0, 0.1, 0.2}, {0.3, 0.4, 0.5}}, 4.0, 1.0);
  REQUIRE(s.vertices_S.size() == 6);
  CHECK(s.vertices_S[0] == Vec3(-2.0, -0.5, 0.0));
  CHECK(s.vertices_S[2] == Vec3(2.0, -0.5, 0.2));
  CHECK(s.vertices_S[5] == Vec3(2.0, 0.5, 0.5));
  CHECK(s.triangles.size() == 4);
  for (const Vec3& n : s.normals_S) CHECK(n.z() > 0.0);
}

TEST_CASE("triangle surface: a heightmap's neighbours and creases are those of its triangles") {
  // The grid's arithmetic against matching every directed edge with its reverse (the mesh path).
  std::vector<std::vector<double>> heights(9, std::vector<double>(12));
  std::mt19937 random(4);
  std::uniform_real_distribution<double> height(-0.05, 0.05);
  for (auto& row : heights) {
    for (double& z : row) z = height(random);
  }
  const TriangleSurface grid = build_heightmap_surface(heights, 1.1, 0.8);
  const TriangleSurface mesh = build_mesh_surface(grid.vertices_S, grid.triangles);
  REQUIRE(mesh.triangles == grid.triangles);
  CHECK(mesh.neighbours == grid.neighbours);
  CHECK(mesh.creases == grid.creases);
  CHECK(mesh.fan_triangles == grid.fan_triangles);
}

TEST_CASE("triangle surface: bad input is refused with its place, degenerate triangles counted") {
  const auto message = [](auto&& build) {
    try {
      build();
    } catch (const InputError& error) {
      return std::string(error.what());
    }
    return std::string("accepted");
  };
  CHECK(message([] {
          build_heightmap_surface({{0, 0}, {0, kNaN}}, 1, 1);
        }) == "the height at row 1, column 1 is nan");
  CHECK(message([] {
          build_heightmap_surface({{0, 0}, {0, kInfinity}}, 1, 1);
        }).find("row 1, column 1") != std::string::npos);
  CHECK(message([] {
          build_heightmap_surface({{0, 0}, {0}}, 1, 1);
        }) == "row 1 has 1 heights, row 0 has 2");
  CHECK(message([] {
          build_heightmap_surface({{0, 0}}, 1, 1);
        }).find("at least 2 rows") != std::string::npos);
  // Above 2^24 cells: refused from the counts alone (the rows hold one height each, so nothing
  // of the grid's size was allocated).
  std::vector<std::vector<double>> tall(4097, std::vector<double>(1));
  tall[0].assign(4098, 0.0);
  CHECK(message([&] { build_heightmap_surface(tall, 1, 1); }).find("more than the 16777216") !=
        std::string::npos);
  CHECK(message([] {
          build_mesh_surface({{0, 0, 0}, {1, 0, 0}, {0, kNaN, 0}}, {{0, 1, 2}});
        }) == "vertex 2 is not finite (0, nan, 0)");
  CHECK(message([] {
          build_mesh_surface({{0, 0, 0}, {1, 0, 0}, {0, 1, 0}}, {{0, 1, 3}});
        }) == "triangle 0 names vertex 3 (there are 3 vertices)");
  // Two triangles running the same way along an edge: their normals disagree.
  CHECK(message([] {
          build_mesh_surface({{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0}}, {{0, 1, 2}, {0, 1, 3}});
        }).find("normals disagree") != std::string::npos);
  // ... named by their index in the input, degenerate ones counted in (triangle 1 is skipped).
  CHECK(message([] {
          build_mesh_surface({{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0}},
                             {{0, 1, 2}, {0, 0, 1}, {0, 1, 3}});
        }).find("triangles 0 and 2 both run along the edge") != std::string::npos);
  // A degenerate triangle (zero area, repeated vertex) is skipped and counted.
  const TriangleSurface s = build_mesh_surface({{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {2, 0, 0}},
                                               {{0, 1, 2}, {0, 1, 3}, {0, 0, 2}});
  CHECK(s.triangles.size() == 1);
  CHECK(s.skipped_triangles == 2);
  CHECK(message([] {
          build_mesh_surface({{0, 0, 0}, {1, 0, 0}, {2, 0, 0}}, {{0, 1, 2}});
        }) == "no triangle with a non-zero area");
}

TEST_CASE("terrain contact: the candidates are the local minima of the distance, each once") {
  // On a randomly triangulated floor a ball has exactly one candidate wherever it is: its foot,
  // at its height, whether over a face, an edge or a vertex (no double counting).
  const TriangleSurface floor = make_random_floor(10, 11);
  std::mt19937 random(5);
  std::uniform_real_distribution<double> coordinate(-0.9, 0.9);
  std::array<SurfacePoint, 16> found;
  for (int trial = 0; trial < 500; ++trial) {
    const Vec3 c(coordinate(random), coordinate(random), 0.05 + 0.01 * coordinate(random));
    REQUIRE(find_surface_points(floor, c, 0.2, found) == 1);
    CHECK(found[0].height == doctest::Approx(c.z()).epsilon(1e-14));
    CHECK((found[0].q_S - Vec3(c.x(), c.y(), 0.0)).norm() < 1e-14);
  }
  // At a vertex of the floor exactly: still one.
  const Vec3 on_vertex = floor.vertices_S[60] + Vec3(0, 0, 0.05);
  CHECK(find_surface_points(floor, on_vertex, 0.2, found) == 1);

  // A ridge: over its crest the edge holds the point, at the distance to the crest line; the
  // normal turns from one face's to the other's.
  const TriangleSurface ridge = make_groove(0.4, true);
  const Vec3 over_crest(0.01, 0.2, 0.3);
  REQUIRE(find_surface_points(ridge, over_crest, 1.0, found) == 1);
  CHECK(found[0].feature.kind == FeatureKind::face_edge);
  CHECK(found[0].height == doctest::Approx(std::hypot(0.01, 0.3)).epsilon(1e-14));
  // Against brute force: the candidate's height is the distance to the nearest triangle.
  std::mt19937 more(9);
  std::uniform_real_distribution<double> x(-0.8, 0.8), z(0.05, 0.6);
  for (int trial = 0; trial < 500; ++trial) {
    const Vec3 c(x(more), 0.9 * x(more), z(more));
    double nearest = kInfinity;
    for (int t = 0; t < 4; ++t) nearest = std::min(nearest, distance_to_triangle(ridge, t, c));
    REQUIRE(find_surface_points(ridge, c, 2.0, found) == 1);
    CHECK(found[0].height == doctest::Approx(nearest).epsilon(1e-13));
  }

  // A V-groove (valley): a ball over its axis touches both faces, each at its plane's distance.
  const double beta = 0.5;
  const TriangleSurface valley = make_groove(beta, false);
  const double r = 0.1;
  const Vec3 seated(0.0, 0.0, r / std::cos(beta));  // touching both planes
  REQUIRE(find_surface_points(valley, seated, 0.2, found) == 2);
  for (int k = 0; k < 2; ++k) {
    CHECK(found[k].feature.kind == FeatureKind::face);
    CHECK(found[k].height == doctest::Approx(r).epsilon(1e-14));
    CHECK(std::abs(found[k].n_S.x()) == doctest::Approx(std::sin(beta)).epsilon(1e-14));
  }
}

TEST_CASE("terrain contact: a followed point moves over a ridge and a random floor continuously") {
  // Along a path the followed point's height changes by no more than the path moves (distance
  // is 1-Lipschitz) and its normal turns smoothly: no jump anywhere, and the walk always ends
  // at the same feature as a search from scratch.
  const TriangleSurface ridge = make_groove(0.6, true);
  const TriangleSurface floor = make_random_floor(12, 2);
  for (const TriangleSurface* s : {&ridge, &floor}) {
    Vec3 c(-0.8, -0.7, 0.2);
    const Vec3 step(1.6 / 4000, 1.3 / 4000, 0.0);
    std::array<SurfacePoint, 16> found;
    REQUIRE(find_surface_points(*s, c, 2.0, found) == 1);
    SurfacePoint point = found[0];
    int features = 0;
    for (int i = 0; i < 4000; ++i) {
      c += step;
      const SurfacePoint next = follow_surface_point(*s, c, point.feature);
      CHECK(next.validity <= 0.0);
      CHECK(std::abs(next.height - point.height) <= step.norm() * (1.0 + 1e-12));
      CHECK(next.n_S.dot(point.n_S) > std::cos(2.0 * step.norm() / 0.2));
      features += next.feature == point.feature ? 0 : 1;
      REQUIRE(find_surface_points(*s, c, 2.0, found) == 1);
      CHECK(found[0].feature == next.feature);
      point = next;
    }
    CHECK(features >= 2);  // it did move over features (over the crest: face, edge, face)
  }
}

TEST_CASE("terrain contact: a corner pressed under a ridge is held by the nearer face's plane") {
  // Under the surface the solid near a ridge is the intersection of its faces' half-spaces, whose
  // signed distance is the larger of the two plane distances: a point followed across under the
  // crest has that height all along (a corner pressed in), continuous through the bisector.
  const double beta = 0.3;
  const TriangleSurface ridge = make_groove(beta, true);
  const Vec3 n_left = Vec3(-std::sin(beta), 0, std::cos(beta));
  const Vec3 n_right = Vec3(std::sin(beta), 0, std::cos(beta));
  Vec3 c(-0.3, 0.1, -0.3 * std::tan(beta) - 0.002);
  std::array<SurfacePoint, 16> found;
  REQUIRE(find_surface_points(ridge, c, 0.01, found, 0.01) == 1);
  SurfacePoint point = found[0];
  for (int i = 0; i < 600; ++i) {
    c += Vec3(0.001, 0.0, 0.0);
    c.z() = -std::abs(c.x()) * std::tan(beta) - 0.002;  // 2 mm under the surface
    point = follow_surface_point(ridge, c, point.feature);
    const double expected = std::max(n_left.dot(c), n_right.dot(c));
    CHECK(point.height == doctest::Approx(expected).epsilon(1e-13));
    CHECK(point.validity <= 0.0);
  }
}

TEST_CASE("terrain contact: past an open border the edge holds a point, also below the plane") {
  // A ball's centre going round the border edge of a flat heightmap (the edge along y at
  // x = 0.5), at 0.05 m from it, from above the plate to below its plane: the edge is the nearest
  // feature all the way, so the followed height stays 0.05 m (the plane beyond the border would
  // give a distance that jumps to about -0.05 m once the centre drops below it).
  const TriangleSurface plate = build_heightmap_surface({{0, 0, 0}, {0, 0, 0}, {0, 0, 0}}, 1, 1);
  std::array<SurfacePoint, 16> found;
  REQUIRE(find_surface_points(plate, Vec3(0.45, 0.1, 0.05), 0.06, found) == 1);
  SurfacePoint point = found[0];
  for (int i = 0; i <= 180; ++i) {
    const double angle = i * std::numbers::pi / 180.0;  // 0: above the edge, pi: below it
    const Vec3 c(0.5 + 0.05 * std::sin(angle), 0.1, 0.05 * std::cos(angle));
    point = follow_surface_point(plate, c, point.feature);
    CAPTURE(angle);
    CHECK(point.height == doctest::Approx(0.05).epsilon(1e-12));
    CHECK(point.validity <= 0.0);
  }
}

}  // namespace
}  // namespace hybridsim

namespace hybridsim {
namespace {

TEST_CASE("terrain contact: over flat terrain, a ball's search finds its one point only") {
  // compute_flat_terrain_bound lets z2 skip the search for a ball it tracks: over flat ground
  // the search must find at most one candidate and report the same unseen distance. Checked
  // against the search itself at 2,000 random ball positions within contact reach on a flat
  // heightmap and on a randomly triangulated floor. Over a cap (it bends away) and a bowl (it
  // has valleys) it stands only where the reach covers one plane: bending away is not enough
  // (see the wall below).
  const Shape ball = testing::make_sphere(0.05);
  for (const double sign : {-1.0, 0.0, 1.0}) {
    CAPTURE(sign);
    std::vector<std::vector<double>> heights(33, std::vector<double>(33));
    for (int row = 0; row < 33; ++row) {
      for (int column = 0; column < 33; ++column) {
        const double x = -1.0 + column / 16.0, y = -1.0 + row / 16.0;
        heights[static_cast<std::size_t>(row)][static_cast<std::size_t>(column)] =
            sign * 0.3 * (x * x + y * y);
      }
    }
    Shape terrain;
    terrain.type = ShapeType::heightmap;
    terrain.surface =
        std::make_shared<const TriangleSurface>(build_heightmap_surface(heights, 2, 2));
    std::mt19937 random(7);
    std::uniform_real_distribution<double> across(-0.9, 0.9), gap(-0.004, 0.001);
    int bounds = 0;
    for (int i = 0; i < 2000; ++i) {
      const double x = across(random), y = across(random);
      // The ball stands on the surface's normal at (x, y), `gap` from it (negative: pressed in).
      const Vec3 normal = Vec3(-sign * 0.6 * x, -sign * 0.6 * y, 1.0).normalized();
      Pose X_WB;
      X_WB.translation = Vec3(x, y, sign * 0.3 * (x * x + y * y)) + (0.05 + gap(random)) * normal;
      const Pose X_WT;
      // The point the pair would track: the nearest feature, found from afar.
      std::array<SurfacePoint, 1> nearest;
      REQUIRE(find_surface_points(*terrain.surface, X_WB.translation, 1.0, nearest) >= 1);
      const auto bound =
          compute_flat_terrain_bound(terrain, X_WT, ball, X_WB, nearest[0].feature, Feature{});
      // Curved, the bound stands only where the reach covers one plane (a cell of the bowl
      // x^2 + y^2, whose two triangles are coplanar); flat, everywhere.
      if (sign == 0.0) REQUIRE(bound.has_value());
      if (!bound) continue;
      ++bounds;
      ContactManifold manifold;
      compute_terrain_manifold(terrain, X_WT, ball, X_WB, manifold);
      CHECK(manifold.count <= 1);
      CHECK(manifold.unseen_distance == *bound);
    }
    if (sign < 0.0) CHECK(bounds < 1000);  // mostly not: a cap is not enough
  }
  // A randomly triangulated floor, open at its border: flat inside, no bound over the border.
  Shape floor;
  floor.type = ShapeType::mesh;
  floor.surface = std::make_shared<const TriangleSurface>(make_random_floor(40, 3));
  std::mt19937 random(11);
  std::uniform_real_distribution<double> across(-0.85, 0.85);  // the border's cells out of reach
  for (int i = 0; i < 500; ++i) {
    Pose X_WB;
    X_WB.translation = Vec3(across(random), across(random), 0.0499);
    std::array<SurfacePoint, 1> nearest;
    REQUIRE(find_surface_points(*floor.surface, X_WB.translation, 1.0, nearest) == 1);
    const auto bound =
        compute_flat_terrain_bound(floor, Pose{}, ball, X_WB, nearest[0].feature, Feature{});
    REQUIRE(bound.has_value());
    ContactManifold manifold;
    compute_terrain_manifold(floor, Pose{}, ball, X_WB, manifold);
    CHECK(manifold.count == 1);
    CHECK(manifold.unseen_distance == *bound);
  }
  Pose at_border;
  at_border.translation = Vec3(0.99, 0.0, 0.0499);
  std::array<SurfacePoint, 1> nearest;
  REQUIRE(find_surface_points(*floor.surface, at_border.translation, 1.0, nearest) == 1);
  CHECK(!compute_flat_terrain_bound(floor, Pose{}, ball, at_border, nearest[0].feature, Feature{})
             .has_value());
}

TEST_CASE("terrain contact: a ball in a finely meshed corner touches floor and wall") {
  // A floor of 40 x 40 cells (5 cm) meeting a vertical wall at x = 1 (a valley, 90 degrees): a
  // ball of radius 0.05 touching both is 0.071 m from the crease, which only the box test of the
  // floor's last cells may reach. The search finds both faces; the bound must not stand in for it
  // (it would hide the wall from z2): the wall's triangles in reach are not in the floor's plane.
  std::vector<Vec3> v;
  const int n = 40;
  for (int j = 0; j <= n; ++j) {
    for (int i = 0; i <= n; ++i) v.emplace_back(-1.0 + 2.0 * i / n, -1.0 + 2.0 * j / n, 0.0);
  }
  const int wall = static_cast<int>(v.size());
  for (int k = 0; k <= n; ++k) {
    for (int j = 0; j <= n; ++j) v.emplace_back(1.0, -1.0 + 2.0 * j / n, 2.0 * k / n);
  }
  std::vector<std::array<int, 3>> t;
  for (int j = 0; j < n; ++j) {
    for (int i = 0; i < n; ++i) {
      const int a = j * (n + 1) + i;
      t.push_back({a, a + 1, a + n + 2});
      t.push_back({a, a + n + 2, a + n + 1});
    }
  }
  for (int k = 0; k < n; ++k) {
    for (int j = 0; j < n; ++j) {
      // The wall's bottom row shares the floor's last column of vertices.
      const auto at = [&](int row, int col) {
        return row == 0 ? col * (n + 1) + n : wall + row * (n + 1) + col;
      };
      // Counter-clockwise seen from the room (normal -x).
      t.push_back({at(k, j), at(k + 1, j + 1), at(k, j + 1)});
      t.push_back({at(k, j), at(k + 1, j), at(k + 1, j + 1)});
    }
  }
  Shape corner;
  corner.type = ShapeType::mesh;
  corner.surface = std::make_shared<const TriangleSurface>(build_mesh_surface(v, t));
  const Shape ball = testing::make_sphere(0.05);
  Pose X_WB;
  X_WB.translation = Vec3(1.0 - 0.0499, 0.013, 0.0499);
  ContactManifold manifold;
  compute_terrain_manifold(corner, Pose{}, ball, X_WB, manifold);
  CHECK(manifold.count == 2);  // the floor's face and the wall's
  // Tracked on the floor's face (the first point, the nearer), or on the wall's.
  for (int k = 0; k < 2; ++k) {
    const Feature& face = manifold.points[static_cast<std::size_t>(k)].feature_a;
    CHECK(!compute_flat_terrain_bound(corner, Pose{}, ball, X_WB, face, Feature{}).has_value());
  }
}

TEST_CASE("terrain contact: a point held on its face's plane past a valley gets no flat bound") {
  // A floor (z = 0, x < 0) meeting an incline (z = 0.1 x) at a valley along x = 0, in 1 cm cells.
  // A ball tracked on the floor stays on the floor's plane extended once its centre is over the
  // incline (the plane holds on past a valley); 0.7 r past the fold its reach covers incline
  // triangles only, all in one plane. The search then finds the incline's own point, which the
  // pair does not track: the bound must not stand in for it.
  std::vector<std::vector<double>> heights(21, std::vector<double>(41));
  for (auto& row : heights) {
    for (int column = 0; column < 41; ++column) {
      const double x = -0.2 + 0.01 * column;
      row[static_cast<std::size_t>(column)] = x > 0.0 ? 0.1 * x : 0.0;
    }
  }
  Shape terrain;
  terrain.type = ShapeType::heightmap;
  terrain.surface =
      std::make_shared<const TriangleSurface>(build_heightmap_surface(heights, 0.4, 0.2));
  const Shape ball = testing::make_sphere(0.05);
  std::array<SurfacePoint, 1> on_floor;
  REQUIRE(find_surface_points(*terrain.surface, Vec3(-0.02, 0.003, 0.05), 1.0, on_floor) >= 1);
  const Vec3 c(0.035, 0.003, 0.0495);
  const SurfacePoint held = follow_surface_point(*terrain.surface, c, on_floor[0].feature);
  CHECK(held.feature.kind == FeatureKind::face);
  CHECK(held.n_S.z() == 1.0);  // still the floor's plane
  Pose X_WB;
  X_WB.translation = c;
  ContactManifold manifold;
  compute_terrain_manifold(terrain, Pose{}, ball, X_WB, manifold);
  REQUIRE(manifold.count >= 1);
  CHECK(manifold.points[0].geometry.n_AB_W.z() < 1.0);  // the incline's point
  CHECK(!compute_flat_terrain_bound(terrain, Pose{}, ball, X_WB, held.feature, Feature{})
             .has_value());
  // The reach itself is flat (the fold's cells lie beyond it): tracked on the incline's face,
  // the bound stands. Only the tracked face's plane tells the two apart.
  CHECK(compute_flat_terrain_bound(terrain, Pose{}, ball, X_WB, manifold.points[0].feature_a,
                                   Feature{})
            .has_value());
}

}  // namespace
}  // namespace hybridsim
