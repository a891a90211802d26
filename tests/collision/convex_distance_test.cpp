// The general convex narrowphase (GJK, libccd's MPR and the translated refinement) against
// references that share none of its code: separating-axis depth and feature distances for two
// boxes, the point-to-shape signed distance of an ellipsoid (Lagrange multiplier root), a
// cylinder and a frustum (meridian section) offset by a sphere's radius, the closed-form pairs,
// and the optimality condition of curved pairs. Then continuity through zero for every pair
// type, and degenerate configurations.
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include <fmt/format.h>

#include "collision/convex_distance.hpp"
#include "collision/mpr_adapter.hpp"
#include "collision/shape_geometry.hpp"
#include "collision/signed_distance.hpp"
#include "collision/test_shapes.hpp"
#include "core/model.hpp"

namespace hybridsim {
namespace {

using testing::make_box;
using testing::make_box_hull;
using testing::make_capsule;
using testing::make_cone;
using testing::make_convex;
using testing::make_cylinder;
using testing::make_ellipsoid;
using testing::make_sphere;

Mat3 random_rotation(std::mt19937& random) {
  return testing::random_quaternion(random).toRotationMatrix();
}

Vec3 random_unit(std::mt19937& random) {
  std::normal_distribution<double> normal;
  return Vec3(normal(random), normal(random), normal(random)).normalized();
}

double size_of(const Shape& a, const Shape& b) {
  return std::min(compute_bounding_radius(a), compute_bounding_radius(b));
}

// An irregular convex polyhedron: the hull of `count` points drawn in a 0.1 x 0.15 x 0.08 m box
// (about half of 40 of them corners), the same on every run for a seed.
Shape make_irregular_hull(unsigned seed = 21, int count = 40) {
  std::mt19937 random(seed);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  std::vector<Vec3> points;
  for (int i = 0; i < count; ++i)
    points.emplace_back(0.1 * unit(random), 0.15 * unit(random), 0.08 * unit(random));
  return make_convex(points);
}

// ---- Independent references -------------------------------------------------------------------

// Distance from p to segment [s0, s1].
double point_segment_distance(const Vec3& p, const Vec3& s0, const Vec3& s1) {
  const Vec3 e = s1 - s0;
  const double t = std::clamp((p - s0).dot(e) / e.squaredNorm(), 0.0, 1.0);
  return (s0 + t * e - p).norm();
}

// Distance of two segments: the minimum of the convex quadratic |p(u) - q(v)|^2 over the unit
// square is the interior stationary point when it lies inside, else on one of the four sides.
double segment_segment_distance(const Vec3& p0, const Vec3& p1, const Vec3& q0, const Vec3& q1) {
  double best = std::min({point_segment_distance(p0, q0, q1), point_segment_distance(p1, q0, q1),
                          point_segment_distance(q0, p0, p1), point_segment_distance(q1, p0, p1)});
  const Vec3 d1 = p1 - p0, d2 = q1 - q0, r = p0 - q0;
  const double a = d1.dot(d1), b = d1.dot(d2), c = d2.dot(d2), d = d1.dot(r), e = d2.dot(r);
  const double det = a * c - b * b;
  if (det > 1e-14 * a * c) {
    const double u = (b * e - c * d) / det, v = (a * e - b * d) / det;
    if (u > 0.0 && u < 1.0 && v > 0.0 && v < 1.0) {
      best = std::min(best, (p0 + u * d1 - q0 - v * d2).norm());
    }
  }
  return best;
}

std::array<Vec3, 8> box_corners_W(const Shape& box, const Pose& X) {
  std::array<Vec3, 8> corners;
  for (int i = 0; i < 8; ++i) {
    corners[i] = X.transform_point(
        Vec3((i & 1) ? 1 : -1, (i & 2) ? 1 : -1, (i & 4) ? 1 : -1).cwiseProduct(box.half_extents));
  }
  return corners;
}

// Distance (>= 0) from p to a box.
double point_box_distance(const Vec3& p_W, const Shape& box, const Pose& X) {
  const Vec3 p = X.rotation.transpose() * (p_W - X.translation);
  return (p - p.cwiseMax(-box.half_extents).cwiseMin(box.half_extents)).norm();
}

// Two separated boxes: their closest points are a vertex against the other box or a pair of
// edges, so the distance is the least of those.
double box_box_feature_distance(const Shape& a, const Pose& X_A, const Shape& b, const Pose& X_B) {
  const auto ca = box_corners_W(a, X_A), cb = box_corners_W(b, X_B);
  double best = kInfinity;
  for (const Vec3& v : ca) best = std::min(best, point_box_distance(v, b, X_B));
  for (const Vec3& v : cb) best = std::min(best, point_box_distance(v, a, X_A));
  // Edges join corners differing in one bit.
  for (int i = 0; i < 8; ++i) {
    for (int bit_a : {1, 2, 4}) {
      if (i & bit_a) continue;
      for (int j = 0; j < 8; ++j) {
        for (int bit_b : {1, 2, 4}) {
          if (j & bit_b) continue;
          best =
              std::min(best, segment_segment_distance(ca[i], ca[i | bit_a], cb[j], cb[j | bit_b]));
        }
      }
    }
  }
  return best;
}

// Overlapping boxes: the penetration depth is the least overlap of their projections over the
// 15 separating axes (the face normals and edge cross products of the Minkowski difference).
double box_box_sat_depth(const Shape& a, const Pose& X_A, const Shape& b, const Pose& X_B) {
  std::vector<Vec3> axes;
  for (int i = 0; i < 3; ++i) axes.push_back(X_A.rotation.col(i));
  for (int i = 0; i < 3; ++i) axes.push_back(X_B.rotation.col(i));
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) {
      const Vec3 c = X_A.rotation.col(i).cross(X_B.rotation.col(j));
      if (c.norm() > 1e-9) axes.push_back(c.normalized());
    }
  }
  const auto radius = [](const Shape& box, const Pose& X, const Vec3& u) {
    return (X.rotation.transpose() * u).cwiseAbs().dot(box.half_extents);
  };
  double depth = kInfinity;
  for (const Vec3& u : axes) {
    const double centres = std::abs(u.dot(X_B.translation - X_A.translation));
    depth = std::min(depth, radius(a, X_A, u) + radius(b, X_B, u) - centres);
  }
  return depth;
}

// Signed distance from p (shape frame) to an ellipsoid's surface: the closest point is
// x_i = e_i^2 p_i / (e_i^2 + t) for the largest root t of sum (e_i p_i / (e_i^2 + t))^2 = 1,
// which lies in (-min e_i^2, infinity) and is found by bisection (Eberly, "Distance from a point
// to an ellipse, an ellipsoid, or a hyperellipsoid").
double ellipsoid_point_signed_distance(const Vec3& e, const Vec3& p) {
  const auto f = [&](double t) {
    double sum = 0.0;
    for (int i = 0; i < 3; ++i) sum += std::pow(e[i] * p[i] / (e[i] * e[i] + t), 2);
    return sum - 1.0;
  };
  double low = -e.minCoeff() * e.minCoeff(), high = e.maxCoeff() * p.norm() + 1.0;
  for (int k = 0; k < 200; ++k) {
    const double mid = 0.5 * (low + high);
    (f(mid) > 0.0 ? low : high) = mid;
  }
  const double t = 0.5 * (low + high);
  Vec3 x;
  for (int i = 0; i < 3; ++i) x[i] = e[i] * e[i] * p[i] / (e[i] * e[i] + t);
  const bool inside = p.cwiseQuotient(e).squaredNorm() < 1.0;
  return inside ? -(x - p).norm() : (x - p).norm();
}

// Signed distance from the point (rho, z) of a meridian half-plane to a frustum's section, the
// trapezoid (0, -h), (r0, -h), (r1, h), (0, h); its edge on the axis is not surface.
double frustum_point_signed_distance(double r0, double r1, double length, const Vec3& p) {
  const double h = 0.5 * length;
  const double rho = std::hypot(p.x(), p.y()), z = p.z();
  const std::array<std::array<double, 4>, 3> edges{
      {{0.0, -h, r0, -h}, {r0, -h, r1, h}, {r1, h, 0.0, h}}};
  double nearest = kInfinity;
  for (const auto& e : edges) {
    const double ex = e[2] - e[0], ez = e[3] - e[1];
    const double t =
        std::clamp(((rho - e[0]) * ex + (z - e[1]) * ez) / (ex * ex + ez * ez), 0.0, 1.0);
    nearest = std::min(nearest, std::hypot(rho - e[0] - t * ex, z - e[1] - t * ez));
  }
  const double radius_at_z = r0 + (r1 - r0) * (z + h) / length;
  const bool inside = std::abs(z) < h && rho < radius_at_z;
  return inside ? -nearest : nearest;
}

// Distance from p to the triangle (a, b, c): to its plane where the foot falls inside it (all
// three edge tests agree in sign), else to the nearest edge.
double point_triangle_distance(const Vec3& p, const Vec3& a, const Vec3& b, const Vec3& c) {
  const Vec3 n = (b - a).cross(c - a).normalized();
  const Vec3 foot = p - n.dot(p - a) * n;
  const double ea = (b - a).cross(foot - a).dot(n), eb = (c - b).cross(foot - b).dot(n),
               ec = (a - c).cross(foot - c).dot(n);
  if ((ea >= 0.0 && eb >= 0.0 && ec >= 0.0) || (ea <= 0.0 && eb <= 0.0 && ec <= 0.0)) {
    return std::abs(n.dot(p - a));
  }
  return std::min({point_segment_distance(p, a, b), point_segment_distance(p, b, c),
                   point_segment_distance(p, c, a)});
}

// Signed distance from p to a convex polyhedron given by its outward triangles: outside, the
// nearest triangle; inside, minus the nearest face plane.
double point_polyhedron_signed_distance(const ConvexHull& hull, const Vec3& p) {
  double deepest_plane = -kInfinity, nearest = kInfinity;
  for (const auto& t : hull.triangles) {
    const Vec3& a = hull.vertices_S[t[0]];
    const Vec3& b = hull.vertices_S[t[1]];
    const Vec3& c = hull.vertices_S[t[2]];
    deepest_plane = std::max(deepest_plane, (b - a).cross(c - a).normalized().dot(p - a));
    nearest = std::min(nearest, point_triangle_distance(p, a, b, c));
  }
  return deepest_plane > 0.0 ? nearest : deepest_plane;
}

// Signed distance of two convex polyhedra at poses X_A, X_B by brute force over their triangles:
// overlapping, the separating-axis theorem (the largest separation over every face normal and
// every cross product of two triangle sides, diagonals included: extra axes never separate more
// than the optimum); apart, the nearest features (corner-triangle both ways, side-side).
double polyhedra_signed_distance(const ConvexHull& a, const Pose& X_A, const ConvexHull& b,
                                 const Pose& X_B) {
  std::vector<Vec3> va, vb;
  for (const Vec3& v : a.vertices_S) va.push_back(X_A.transform_point(v));
  for (const Vec3& v : b.vertices_S) vb.push_back(X_B.transform_point(v));
  const auto separation = [&](const Vec3& n) {
    double reach_a = -kInfinity, reach_b = kInfinity;
    for (const Vec3& v : va) reach_a = std::max(reach_a, n.dot(v));
    for (const Vec3& v : vb) reach_b = std::min(reach_b, n.dot(v));
    return reach_b - reach_a;
  };
  std::vector<std::pair<Vec3, Vec3>> sides_a, sides_b;
  std::vector<Vec3> normals;
  for (const auto& [hull, vertices, sides] :
       {std::tuple{&a, &va, &sides_a}, std::tuple{&b, &vb, &sides_b}}) {
    for (const auto& t : hull->triangles) {
      const Vec3 &p = (*vertices)[t[0]], &q = (*vertices)[t[1]], &r = (*vertices)[t[2]];
      normals.push_back((q - p).cross(r - p).normalized());
      sides->insert(sides->end(), {{p, q}, {q, r}, {r, p}});
    }
  }
  double best = -kInfinity;
  for (const Vec3& n : normals) best = std::max({best, separation(n), separation(-n)});
  for (const auto& [p0, p1] : sides_a) {
    for (const auto& [q0, q1] : sides_b) {
      const Vec3 axis = (p1 - p0).cross(q1 - q0);
      if (axis.norm() < 1e-12) continue;
      best = std::max({best, separation(axis.normalized()), separation(-axis.normalized())});
    }
  }
  if (best < 0.0) return best;
  double nearest = kInfinity;
  for (const auto& [vertices, hull, pose] : {std::tuple{&va, &b, &vb}, std::tuple{&vb, &a, &va}}) {
    for (const Vec3& v : *vertices) {
      for (const auto& t : hull->triangles) {
        nearest = std::min(nearest,
                           point_triangle_distance(v, (*pose)[t[0]], (*pose)[t[1]], (*pose)[t[2]]));
      }
    }
  }
  for (const auto& [p0, p1] : sides_a) {
    for (const auto& [q0, q1] : sides_b) {
      nearest = std::min(nearest, segment_segment_distance(p0, p1, q0, q1));
    }
  }
  return nearest;
}

// Signed distance of a point (world) to a round or flat shape, for the sphere pairs.
double point_signed_distance(const Shape& s, const Pose& X, const Vec3& p_W) {
  const Vec3 p = X.rotation.transpose() * (p_W - X.translation);
  switch (s.type) {
    case ShapeType::ellipsoid:
      return ellipsoid_point_signed_distance(s.radii, p);
    case ShapeType::cylinder:
      return frustum_point_signed_distance(s.radius, s.radius, s.length, p);
    case ShapeType::cone:
      return frustum_point_signed_distance(s.radius, s.top_radius, s.length, p);
    case ShapeType::box: {
      const Vec3 q = p.cwiseAbs() - s.half_extents;
      return q.cwiseMax(0.0).norm() + std::min(q.maxCoeff(), 0.0);
    }
    case ShapeType::convex:
      return point_polyhedron_signed_distance(*s.hull, p);
    default:
      return kNaN;
  }
}

// The offset t along unit u at which B, placed at t u from A's centre, just touches A according
// to `reference`; found by bisection (64 halvings of [0, far] reach the rounding of the offset),
// since the distance crosses zero once along the ray.
double touching_offset(const std::function<double(const Vec3&)>& reference, const Vec3& u,
                       double far) {
  double low = 0.0, high = far;
  for (int k = 0; k < 64; ++k) {
    const double mid = 0.5 * (low + high);
    (reference(mid * u) < 0.0 ? low : high) = mid;
  }
  return 0.5 * (low + high);
}

// Checks the result's own consistency: a unit normal, p_B - p_A = d n, and each witness on its
// shape's surface where a point distance is at hand. Where the polish settles the direction the
// witnesses are support points and consistent to 1e-8 of the size; after the translated
// refinement they are its GJK closest points (on the surfaces to about sqrt(tolerance x
// curvature radius) = 3e-7 of the size) moved back along the previous direction, which the last
// step moved by up to 1e-6 rad / (1 - contraction) at a shift of the size: measured up to 4.6e-6
// of the size; 1e-5 bounds it. The contact point needs no more.
constexpr double kWitnessAccuracy = 1e-5;

void check_witnesses(const SignedDistance& d, const Shape& a, const Pose& X_A, const Shape& b,
                     const Pose& X_B, double size) {
  CHECK(std::abs(d.n_AB_W.norm() - 1.0) < 1e-12);
  CHECK((d.p_B_W - d.p_A_W - d.distance * d.n_AB_W).norm() < kWitnessAccuracy * size);
  for (const auto& [shape, pose, witness] :
       {std::tuple{&a, &X_A, d.p_A_W}, std::tuple{&b, &X_B, d.p_B_W}}) {
    double on_surface = kNaN;
    if (shape->type == ShapeType::sphere) {
      on_surface = (witness - pose->translation).norm() - shape->radius;
    } else if (shape->type != ShapeType::capsule) {
      on_surface = point_signed_distance(*shape, *pose, witness);
    }
    if (!std::isnan(on_surface)) CHECK(std::abs(on_surface) < kWitnessAccuracy * size);
  }
}

// ---- Tests ------------------------------------------------------------------------------------

// Accuracy of the distance, relative to the smaller shape's bounding radius, for penetrations up
// to 1% of it, as issue 3 asks. Measured worst errors are printed by each test (1.4e-15 for
// box-box, 1e-13 for sphere-ellipsoid, 1.1e-10 for a sphere on a box's edges through the general
// path): the bound has at least 9 times room. The loader's default contact_eps is ten times this
// bound (core/model.hpp, kGeneralPathAccuracy), which is what makes seed 002's rule hold.
constexpr double kAccuracy = kGeneralPathAccuracy;

TEST_CASE("convex narrowphase: box-box equals the separating-axis depth and the feature distance") {
  std::mt19937 random(11);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  double worst = 0.0;
  int penetrating = 0, apart = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    const Shape a = make_box(
        Vec3(0.05 + 0.2 * unit(random), 0.05 + 0.2 * unit(random), 0.05 + 0.2 * unit(random)));
    const Shape b = make_box(
        Vec3(0.05 + 0.2 * unit(random), 0.05 + 0.2 * unit(random), 0.05 + 0.2 * unit(random)));
    const Pose X_A{random_rotation(random), Vec3(0.3, -0.1, 1.2)};
    Pose X_B{random_rotation(random), Vec3::Zero()};
    const Vec3 u = random_unit(random);
    const double size = size_of(a, b);
    const auto reference = [&](const Vec3& offset) {
      const Pose X{X_B.rotation, X_A.translation + offset};
      const double depth = box_box_sat_depth(a, X_A, b, X);
      return depth > 0.0 ? -depth : box_box_feature_distance(a, X_A, b, X);
    };
    const double touching = touching_offset(reference, u, 2.0);
    // From 1% of the size into each other to 1% apart.
    X_B.translation = X_A.translation + (touching + size * 0.02 * (unit(random) - 0.5)) * u;
    const double expected = reference(X_B.translation - X_A.translation);
    const SignedDistance d = compute_signed_distance(a, X_A, b, X_B);
    CAPTURE(trial);
    CAPTURE(expected);
    const std::string pair = describe_convex_pair(PlacedConvex{&a, &X_A}, PlacedConvex{&b, &X_B});
    CAPTURE(pair);
    CHECK(std::abs(d.distance - expected) <= kAccuracy * size);
    check_witnesses(d, a, X_A, b, X_B, size);
    worst = std::max(worst, std::abs(d.distance - expected) / size);
    (expected < 0.0 ? penetrating : apart) += 1;
  }
  MESSAGE("box-box: largest error " << worst << " of the size; " << penetrating << " penetrating, "
                                    << apart << " apart");
  CHECK(penetrating > 800);
  CHECK(apart > 800);
}

TEST_CASE(
    "convex narrowphase: a sphere against an ellipsoid, cylinder, cone, frustum, box or convex "
    "hull is the point distance less the radius") {
  // The signed distance of a ball of radius r centred at c to convex S is sd_S(c) - r exactly.
  std::mt19937 random(12);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  // A convex hull's reference is the point-polyhedron distance over its triangles.
  const std::array<Shape, 7> shapes{make_ellipsoid(Vec3(0.1, 0.2, 0.05)),
                                    make_cylinder(0.1, 0.3),
                                    make_cone(0.2, 0.0, 0.25),
                                    make_cone(0.15, 0.05, 0.1),
                                    make_box(Vec3(0.1, 0.2, 0.05)),
                                    make_box_hull(Vec3(0.1, 0.2, 0.05)),
                                    make_irregular_hull()};
  for (const Shape& a : shapes) {
    double worst = 0.0;
    for (int trial = 0; trial < 1000; ++trial) {
      const Shape b = make_sphere(0.02 + 0.1 * unit(random));
      const Pose X_A{random_rotation(random), Vec3(-0.2, 0.4, 0.7)};
      Pose X_B{random_rotation(random), Vec3::Zero()};
      const Vec3 u = random_unit(random);
      const double size = size_of(a, b);
      const auto reference = [&](const Vec3& offset) {
        return point_signed_distance(a, X_A, X_A.translation + offset) - b.radius;
      };
      const double touching = touching_offset(reference, u, 2.0);
      X_B.translation = X_A.translation + (touching + size * 0.02 * (unit(random) - 0.5)) * u;
      const double expected = reference(X_B.translation - X_A.translation);
      // Both orders: the general path directly and through the dispatch with B first.
      const SignedDistance d = compute_convex_signed_distance(a, X_A, b, X_B);
      const SignedDistance swapped = compute_signed_distance(b, X_B, a, X_A);
      CAPTURE(static_cast<int>(a.type));
      CAPTURE(trial);
      CAPTURE(expected);
      const std::string described =
          describe_convex_pair(PlacedConvex{&a, &X_A}, PlacedConvex{&b, &X_B});
      CAPTURE(described);
      // The bound the loader's contact_eps rests on is relative to the general-path shape's own
      // bounding radius (core/model.hpp), not to the ball's when the ball is smaller: clang 14
      // (the sanitised build) left 8.2e-11 m on a cylinder's rim against a ball of 0.064 m,
      // 1.3e-9 of the ball's radius but 4.6e-10 of the cylinder's 0.18 m.
      const double shape_size = compute_bounding_radius(a);
      CHECK(std::abs(d.distance - expected) <= kAccuracy * shape_size);
      CHECK(std::abs(swapped.distance - expected) <= kAccuracy * shape_size);
      // The two orders find the same normal: exactly where the polish applies, and where a kink
      // stops it (a box's edge, a rim) to the refinement's stopping step of 1e-6 rad divided by
      // its slow contraction there (measured up to 1.6e-5 rad).
      CHECK((swapped.n_AB_W + d.n_AB_W).norm() < 1e-4);
      check_witnesses(d, a, X_A, b, X_B, size);
      worst = std::max(worst, std::abs(d.distance - expected) / shape_size);
    }
    MESSAGE("sphere against shape type " << static_cast<int>(a.type) << ": largest error " << worst
                                         << " of the shape's size");
  }
}

TEST_CASE("convex narrowphase: accuracy against penetration depth, from 1e-6 to 30% of the size") {
  // B is placed along a random line at the touching offset less f times the size, for depth
  // fractions f; the worst error per f against the references above (separating-axis depth for
  // box-box, the point distance less the radius for a sphere) makes the table of docs/physics.md.
  // The 1e-9 of the size holds at every depth (the issue asks it up to 1%): deep
  // box-box overlaps needed the edge-edge restarts, without which MPR's start left a local
  // optimum 1.1e-3 of the size too deep at 1% and 7.9e-2 at 30%.
  std::mt19937 random(17);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  const std::array<double, 5> fractions{1e-6, 1e-4, 1e-2, 1e-1, 0.3};
  struct Case {
    const char* name;
    Shape a;
    bool sphere_b;  // B a sphere (point reference) or a random box (separating axes)
    int hulls = 0;  // boxes measured as convex hulls of their corners: 1 A, 2 A and B
  };
  const std::array<Case, 7> cases{
      Case{"box-box", make_box(Vec3(0.1, 0.15, 0.2)), false},
      Case{"hull-box", make_box(Vec3(0.1, 0.15, 0.2)), false, 1},
      Case{"hull-hull", make_box(Vec3(0.1, 0.15, 0.2)), false, 2},
      Case{"sphere-ellipsoid", make_ellipsoid(Vec3(0.1, 0.2, 0.05)), true},
      Case{"sphere-cylinder", make_cylinder(0.1, 0.3), true},
      Case{"sphere-cone", make_cone(0.2, 0.0, 0.25), true},
      Case{"sphere-hull", make_irregular_hull(), true}};
  std::string table = "depth / size:    ";
  for (const double f : fractions) table += fmt::format("  {:>8.0e}", f);
  for (const Case& c : cases) {
    table += fmt::format("\n{:<17}", c.name);
    for (const double f : fractions) {
      double worst = 0.0;
      for (int trial = 0; trial < 200; ++trial) {
        const Shape b = c.sphere_b
                            ? make_sphere(0.05 + 0.05 * unit(random))
                            : make_box(Vec3(0.05 + 0.1 * unit(random), 0.05 + 0.1 * unit(random),
                                            0.05 + 0.1 * unit(random)));
        const Pose X_A{random_rotation(random), Vec3(0.3, -0.1, 1.2)};
        Pose X_B{random_rotation(random), Vec3::Zero()};
        const Vec3 u = random_unit(random);
        const double size = size_of(c.a, b);
        const auto reference = [&](const Vec3& offset) {
          if (c.sphere_b) {
            return point_signed_distance(c.a, X_A, X_A.translation + offset) - b.radius;
          }
          const Pose X{X_B.rotation, X_A.translation + offset};
          const double depth = box_box_sat_depth(c.a, X_A, b, X);
          return depth > 0.0 ? -depth : box_box_feature_distance(c.a, X_A, b, X);
        };
        const double touching = touching_offset(reference, u, 2.0);
        X_B.translation = X_A.translation + std::max(0.0, touching - f * size) * u;
        const double expected = reference(X_B.translation - X_A.translation);
        const Shape tested_a = c.hulls >= 1 ? make_box_hull(c.a.half_extents) : c.a;
        const Shape tested_b = c.hulls >= 2 ? make_box_hull(b.half_extents) : b;
        const double got = compute_signed_distance(tested_a, X_A, tested_b, X_B).distance;
        const double error = std::abs(got - expected) / size;
        CAPTURE(got);
        CAPTURE(expected);
        const std::string described =
            describe_convex_pair(PlacedConvex{&c.a, &X_A}, PlacedConvex{&b, &X_B});
        CAPTURE(described);
        worst = std::max(worst, error);
        CHECK(error <= kAccuracy);
      }
      table += fmt::format("  {:>8.1e}", worst);
    }
  }
  MESSAGE("worst error / size against depth\n" << table);
}

TEST_CASE(
    "convex narrowphase: two irregular hulls equal the brute-force separating axes and nearest "
    "features") {
  // Two hulls of 14 random points each (about 10 corners, 20 edges), so that the edge-edge axes
  // that the Gauss map keeps (collision/signed_distance.cpp) decide deep and edge-on contacts;
  // the reference tries every axis and every feature pair. 200 lines within 1% of touching,
  // 100 from 1% to 30% deep. Measured worst error: see the message; 1e-9 of the size as above.
  std::mt19937 random(23);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  double worst = 0.0;
  int penetrating = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const Shape a = make_irregular_hull(100 + 2 * trial, 14);
    const Shape b = make_irregular_hull(101 + 2 * trial, 14);
    const Pose X_A{random_rotation(random), Vec3(0.3, -0.1, 1.2)};
    Pose X_B{random_rotation(random), Vec3::Zero()};
    const Vec3 u = random_unit(random);
    const double size = size_of(a, b);
    const auto reference = [&](const Vec3& offset) {
      return polyhedra_signed_distance(*a.hull, X_A, *b.hull,
                                       Pose{X_B.rotation, X_A.translation + offset});
    };
    const double touching = touching_offset(reference, u, 2.0);
    const double depth =
        trial < 200 ? size * 0.02 * (unit(random) - 0.5) : -size * (0.01 + 0.29 * unit(random));
    X_B.translation = X_A.translation + std::max(0.0, touching + depth) * u;
    const double expected = reference(X_B.translation - X_A.translation);
    const SignedDistance d = compute_signed_distance(a, X_A, b, X_B);
    CAPTURE(trial);
    CAPTURE(expected);
    const std::string described =
        describe_convex_pair(PlacedConvex{&a, &X_A}, PlacedConvex{&b, &X_B});
    CAPTURE(described);
    CHECK(std::abs(d.distance - expected) <= kAccuracy * size);
    worst = std::max(worst, std::abs(d.distance - expected) / size);
    penetrating += expected < 0.0;
  }
  MESSAGE("irregular hull-hull: largest error " << worst << " of the size; " << penetrating
                                                << " of 300 penetrating");
  CHECK(penetrating > 150);
}

TEST_CASE("convex narrowphase: the general path equals the closed-form pairs") {
  // Sphere-sphere, sphere-box, capsule-sphere and capsule-capsule have closed forms
  // (signed_distance.cpp, checked in their own tests); the general path must agree on both sides.
  std::mt19937 random(13);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  const std::array<std::pair<Shape, Shape>, 4> pairs{
      {{make_sphere(0.1), make_sphere(0.07)},
       {make_box(Vec3(0.1, 0.2, 0.05)), make_sphere(0.06)},
       {make_capsule(0.05, 0.3), make_sphere(0.08)},
       {make_capsule(0.05, 0.3), make_capsule(0.03, 0.2)}}};
  for (const auto& pair : pairs) {
    // Not a structured binding: clang 14 cannot capture one in a lambda (the lambdas below do).
    const Shape& a = pair.first;
    const Shape& b = pair.second;
    for (int trial = 0; trial < 500; ++trial) {
      const Pose X_A{random_rotation(random), Vec3(0.1, 0.2, 0.3)};
      Pose X_B{random_rotation(random), Vec3::Zero()};
      const Vec3 u = random_unit(random);
      const double size = size_of(a, b);
      const auto reference = [&](const Vec3& offset) {
        return compute_signed_distance(a, X_A, b, Pose{X_B.rotation, X_A.translation + offset})
            .distance;
      };
      const double touching = touching_offset(reference, u, 2.0);
      X_B.translation = X_A.translation + (touching + size * 0.02 * (unit(random) - 0.5)) * u;
      const double expected = reference(X_B.translation - X_A.translation);
      const SignedDistance d = compute_convex_signed_distance(a, X_A, b, X_B);
      CAPTURE(static_cast<int>(a.type));
      CAPTURE(trial);
      const std::string described =
          describe_convex_pair(PlacedConvex{&a, &X_A}, PlacedConvex{&b, &X_B});
      CAPTURE(described);
      CHECK(std::abs(d.distance - expected) <= kAccuracy * size);
      check_witnesses(d, a, X_A, b, X_B, size);
    }
  }
}

TEST_CASE("convex narrowphase: curved pairs meet the optimality condition of the signed distance") {
  // For two strictly convex shapes the signed distance is attained at the unit n whose support
  // points p_A = s_A(n) and p_B = s_B(-n) satisfy p_B - p_A = sigma(n) n; no other direction does.
  // Checked with the support functions alone, on ellipsoid pairs and ellipsoid-sphere (strictly
  // convex, so that the support points are unique).
  std::mt19937 random(14);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  double worst = 0.0;
  for (int trial = 0; trial < 1000; ++trial) {
    const Shape a = make_ellipsoid(
        Vec3(0.05 + 0.1 * unit(random), 0.05 + 0.1 * unit(random), 0.05 + 0.1 * unit(random)));
    const Shape b = trial % 2 == 0
                        ? make_ellipsoid(Vec3(0.05 + 0.1 * unit(random), 0.05 + 0.1 * unit(random),
                                              0.05 + 0.1 * unit(random)))
                        : make_sphere(0.04 + 0.1 * unit(random));
    const Pose X_A{random_rotation(random), Vec3(0.0, 0.0, 0.5)};
    Pose X_B{random_rotation(random), Vec3::Zero()};
    // Placed, as in the other tests, within 1% of the size of touching along a random line (the
    // placement only needs the sign of the distance; the certificate below is the check).
    const Vec3 u = random_unit(random);
    const auto placed_distance = [&](const Vec3& offset) {
      return compute_convex_signed_distance(a, X_A, b, Pose{X_B.rotation, X_A.translation + offset})
          .distance;
    };
    const double touching = touching_offset(placed_distance, u, 2.0);
    X_B.translation =
        X_A.translation + (touching + size_of(a, b) * 0.02 * (unit(random) - 0.5)) * u;
    const SignedDistance d = compute_convex_signed_distance(a, X_A, b, X_B);
    const PlacedConvex pa{&a, &X_A}, pb{&b, &X_B};
    const Vec3& n = d.n_AB_W;
    const Vec3 gap = pb.support_W(-n) - pa.support_W(n);
    const double size = size_of(a, b);
    CAPTURE(trial);
    const std::string described = describe_convex_pair(pa, pb);
    CAPTURE(described);
    CHECK(std::abs(d.distance - gap.dot(n)) <= kAccuracy * size);
    // Optimality: the support points' difference is along n. A direction error theta leaves a
    // transverse part of about theta times the curvature radius, and a distance error of about
    // theta squared times it: the 1e-9 above holds for theta up to 3e-5, which bounds this part
    // by 3e-5 of the size (measured below).
    const double transverse = (gap - gap.dot(n) * n).norm();
    CHECK(transverse <= 1e-7 * size);
    worst = std::max(worst, transverse / size);
  }
  MESSAGE("curved pairs: largest transverse part " << worst << " of the size");
}

TEST_CASE(
    "convex narrowphase: the distance is continuous and monotone through zero for every "
    "pair type") {
  // B approaches A along a line through A's centre: the signed distance of convex sets is convex
  // along a line and 1-Lipschitz in a translation, so near contact it falls monotonically and by
  // no more than the step; a jump or a reversal at zero would break either.
  std::mt19937 random(15);
  const std::vector<Shape> shapes{make_box(Vec3(0.1, 0.15, 0.05)),
                                  make_capsule(0.05, 0.2),
                                  make_cylinder(0.1, 0.3),
                                  make_cone(0.15, 0.05, 0.2),
                                  make_cone(0.1, 0.0, 0.2),
                                  make_ellipsoid(Vec3(0.1, 0.2, 0.05)),
                                  make_sphere(0.08),
                                  make_irregular_hull()};
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    for (std::size_t j = i; j < shapes.size(); ++j) {
      const Shape& a = shapes[i];
      const Shape& b = shapes[j];
      const double size = size_of(a, b);
      for (int line = 0; line < 4; ++line) {
        const Pose X_A{random_rotation(random), Vec3(0.2, 0.1, 0.4)};
        Pose X_B{random_rotation(random), Vec3::Zero()};
        const Vec3 u = random_unit(random);
        const auto reference = [&](const Vec3& offset) {
          X_B.translation = X_A.translation + offset;
          return compute_signed_distance(a, X_A, b, X_B).distance;
        };
        const auto distance_at = [&](double t) { return reference(t * u); };
        const double touching = touching_offset(reference, u, 2.0);
        const double step = 2e-4 * size;
        double previous = distance_at(touching + 0.01 * size);
        bool crossed = false;
        for (double t = touching + 0.01 * size - step; t > touching - 0.01 * size; t -= step) {
          const double current = distance_at(t);
          CAPTURE(i);
          CAPTURE(j);
          CAPTURE(t - touching);
          REQUIRE(current <= previous + 1e-12 * size);
          REQUIRE(previous - current <= step * (1.0 + 1e-9));
          crossed |= previous > 0.0 && current <= 0.0;
          previous = current;
        }
        CHECK(crossed);
      }
    }
  }
}

TEST_CASE("convex narrowphase: coincident centres and exactly touching faces give finite results") {
  const Shape box = make_box(Vec3(0.1, 0.2, 0.3));
  const Pose X{Mat3::Identity(), Vec3(1.0, 2.0, 3.0)};
  // Two equal boxes at one pose: pushed apart along the thinnest axis, the depth is 2 x 0.1.
  SignedDistance d = compute_signed_distance(box, X, box, X);
  CHECK(d.distance == doctest::Approx(-0.2).epsilon(1e-12));
  CHECK(std::abs(std::abs(d.n_AB_W.x()) - 1.0) < 1e-12);
  // A box resting exactly on another, faces flush: distance zero, normal up.
  const Pose above{Mat3::Identity(), Vec3(1.0, 2.0, 3.6)};
  d = compute_signed_distance(box, X, box, above);
  CHECK(std::abs(d.distance) < 1e-12);
  CHECK((d.n_AB_W - Vec3::UnitZ()).norm() < 1e-9);
  CHECK(d.p_A_W.allFinite());
  CHECK(d.p_B_W.allFinite());
  // Concentric cylinder and ellipsoid.
  const Shape cylinder = make_cylinder(0.1, 0.3), ellipsoid = make_ellipsoid(Vec3(0.1, 0.2, 0.3));
  d = compute_signed_distance(cylinder, X, ellipsoid, X);
  CHECK(std::isfinite(d.distance));
  CHECK(d.distance < -0.1);
  CHECK(d.n_AB_W.allFinite());
  // The same for hulls: two equal box hulls at one pose (depth 0.2 along x), flush on each other
  // and on a box, and a hull concentric with a sphere.
  const Shape hull = make_box_hull(Vec3(0.1, 0.2, 0.3));
  d = compute_signed_distance(hull, X, hull, X);
  CHECK(d.distance == doctest::Approx(-0.2).epsilon(1e-12));
  for (const Shape* below : {&hull, &box}) {
    d = compute_signed_distance(*below, X, hull, above);
    CHECK(std::abs(d.distance) < 1e-12);
    CHECK((d.n_AB_W - Vec3::UnitZ()).norm() < 1e-9);
    CHECK((d.p_A_W.allFinite() && d.p_B_W.allFinite()));
  }
  d = compute_signed_distance(make_sphere(0.05), X, make_irregular_hull(), X);
  CHECK(std::isfinite(d.distance));
  CHECK(d.distance < -0.05);
  CHECK(d.n_AB_W.allFinite());
}

TEST_CASE("convex narrowphase: MPR reports a penetration direction and describes a failing pair") {
  const Shape box = make_box(Vec3(0.1, 0.1, 0.1));
  const Pose X_A{Mat3::Identity(), Vec3::Zero()};
  const Pose X_B{Mat3::Identity(), Vec3(0.0, 0.0, 0.19)};
  const PlacedConvex a{&box, &X_A}, b{&box, &X_B};
  const auto mpr = compute_mpr_penetration(a, b, 1e-10);
  REQUIRE(mpr.has_value());
  CHECK(mpr->depth == doctest::Approx(0.01).epsilon(1e-8));
  CHECK((mpr->n_AB_W - Vec3::UnitZ()).norm() < 1e-8);
  const Pose X_far{Mat3::Identity(), Vec3(0.0, 0.0, 0.5)};
  CHECK_FALSE(compute_mpr_penetration(a, PlacedConvex{&box, &X_far}, 1e-10).has_value());
  // The description names both shapes and poses to full precision, ready for a test.
  const std::string text = describe_convex_pair(a, b);
  CHECK(text.find("box half_extents [0.10000000000000001") != std::string::npos);
  CHECK(text.find("position [0, 0, 0.19") != std::string::npos);
  CHECK(text.find("quaternion_wxyz [1, 0, 0, 0]") != std::string::npos);
}

}  // namespace
}  // namespace hybridsim
