#include "collision/signed_distance.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>
#include <utility>

#include "collision/box_overlap.hpp"
#include "collision/convex_distance.hpp"
#include "collision/mpr_adapter.hpp"
#include "collision/shape_geometry.hpp"
#include "collision/terrain_contact.hpp"
#include "core/errors.hpp"

namespace hybridsim {
namespace {

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

// The mean of `points` weighted by how deep each is (-height, heights negative inside), which
// moves continuously as points enter and leave; with none inside, the plain mean of the points
// within `tolerance` of the lowest height.
template <std::size_t N>
Vec3 penetration_weighted_mean(const std::array<Vec3, N>& points,
                               const std::array<double, N>& heights, double lowest,
                               double tolerance) {
  Vec3 weighted_sum = Vec3::Zero();
  double weight_total = 0.0;
  for (std::size_t i = 0; i < N; ++i) {
    const double weight = std::max(0.0, -heights[i]);
    weighted_sum += weight * points[i];
    weight_total += weight;
  }
  if (weight_total == 0.0) {
    for (std::size_t i = 0; i < N; ++i) {
      if (heights[i] <= lowest + tolerance) {
        weighted_sum += points[i];
        weight_total += 1.0;
      }
    }
  }
  return weighted_sum / weight_total;
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
  result.n_AB_W = n_W;
  result.distance = lowest;
  result.p_B_W =
      penetration_weighted_mean(vertices, heights, lowest, 1e-12 * box.half_extents.maxCoeff());
  result.p_A_W = result.p_B_W - (n_W.dot(result.p_B_W) - plane_level) * n_W;
  return result;
}

// A half-space against a convex hull, as against a box: the deepest vertex gives the distance,
// the penetration-weighted mean of the vertices below the plane the contact point (the mean of
// the lowest ones before contact). Two passes over the vertices, nothing stored.
SignedDistance halfspace_convex(const Shape& half, const Pose& X_WH, const Shape& convex,
                                const Pose& X_WC) {
  SignedDistance result;
  const Vec3 n_W = X_WH.rotation * half.normal_S;
  const double plane_level = n_W.dot(X_WH.translation) + half.offset;
  // Heights of the vertices above the plane: h = n_S . v_S + level of S's origin.
  const Vec3 n_S = X_WC.rotation.transpose() * n_W;
  const double origin_height = n_W.dot(X_WC.translation) - plane_level;
  const auto& vertices_S = convex.hull->vertices_S;
  double lowest = kInfinity;
  for (const Vec3& v : vertices_S) lowest = std::min(lowest, n_S.dot(v) + origin_height);
  const double tie_tolerance = 1e-12 * convex.hull->bounding_radius;
  Vec3 weighted_sum_S = Vec3::Zero();
  double weight_total = 0.0;
  for (const Vec3& v : vertices_S) {
    const double height = n_S.dot(v) + origin_height;
    const double weight =
        lowest < 0.0 ? std::max(0.0, -height) : (height <= lowest + tie_tolerance ? 1.0 : 0.0);
    weighted_sum_S += weight * v;
    weight_total += weight;
  }
  result.n_AB_W = n_W;
  result.distance = lowest;
  result.p_B_W = X_WC.transform_point(weighted_sum_S / weight_total);
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

// The axis segment of a capsule in world: from `start` along `direction` (length included).
struct Segment {
  Vec3 start;
  Vec3 direction;
};

Segment capsule_axis(const Shape& capsule, const Pose& X_WC) {
  const Vec3 axis_W = X_WC.rotation.col(2) * capsule.length;
  return {X_WC.translation - 0.5 * axis_W, axis_W};
}

// Parameter in [0, 1] of the point of segment s closest to point p.
double closest_parameter(const Segment& s, const Vec3& p) {
  return std::clamp((p - s.start).dot(s.direction) / s.direction.squaredNorm(), 0.0, 1.0);
}

// Closest points of two segments, as parameters (u on s, v on q). Parallel segments that overlap
// take the middle of the overlap, so that the contact point of capsules lying side by side sits
// in the middle of their common part.
std::pair<double, double> closest_parameters(const Segment& s, const Segment& q) {
  const Vec3 r = s.start - q.start;
  const double a = s.direction.squaredNorm(), e = q.direction.squaredNorm();
  const double b = s.direction.dot(q.direction);
  const double c = s.direction.dot(r), f = q.direction.dot(r);
  const double denominator = a * e - b * b;  // |d_s x d_q|^2 >= 0
  double u = 0.0;
  if (denominator > 1e-12 * a * e) {
    u = std::clamp((b * f - c * e) / denominator, 0.0, 1.0);
  } else {
    // Parallel: where q's end points project onto s.
    const double u0 = -c / a, u1 = (b - c) / a;
    const double low = std::max(0.0, std::min(u0, u1)), high = std::min(1.0, std::max(u0, u1));
    u = low <= high ? 0.5 * (low + high) : (std::max(u0, u1) < 0.0 ? 0.0 : 1.0);
  }
  double v = (b * u + f) / e;
  if (v < 0.0 || v > 1.0) {
    v = std::clamp(v, 0.0, 1.0);
    u = std::clamp((b * v - c) / a, 0.0, 1.0);
  }
  return {u, v};
}

// A unit vector perpendicular to `axis` (for coincident axes or centres: any such direction).
Vec3 any_perpendicular(const Vec3& axis) {
  const Vec3 trial = std::abs(axis.x()) < 0.9 * axis.norm() ? Vec3::UnitX() : Vec3::UnitY();
  return axis.cross(trial).normalized();
}

// Two round shapes reduced to their core points: a ball of radius r_a around c_a against one of
// radius r_b around c_b. `fallback` is the normal when the core points coincide.
SignedDistance round_pair(const Vec3& c_a, double r_a, const Vec3& c_b, double r_b,
                          const Vec3& fallback) {
  SignedDistance result;
  const Vec3 d_W = c_b - c_a;
  const double core_distance = d_W.norm();
  result.n_AB_W = core_distance > 0.0 ? Vec3(d_W / core_distance) : fallback;
  result.distance = core_distance - r_a - r_b;
  result.p_A_W = c_a + r_a * result.n_AB_W;
  result.p_B_W = c_b - r_b * result.n_AB_W;
  return result;
}

// A capsule (A) against a sphere (B): the sphere against the closest point of the capsule axis.
SignedDistance capsule_sphere(const Shape& capsule, const Pose& X_WC, const Shape& sphere,
                              const Pose& X_WS) {
  const Segment axis = capsule_axis(capsule, X_WC);
  const Vec3 core = axis.start + closest_parameter(axis, X_WS.translation) * axis.direction;
  return round_pair(core, capsule.radius, X_WS.translation, sphere.radius,
                    any_perpendicular(axis.direction));
}

// Two capsules: the closest points of their axes.
SignedDistance capsule_capsule(const Shape& a, const Pose& X_WA, const Shape& b, const Pose& X_WB) {
  const Segment axis_a = capsule_axis(a, X_WA), axis_b = capsule_axis(b, X_WB);
  const auto [u, v] = closest_parameters(axis_a, axis_b);
  const Vec3 normal = axis_a.direction.cross(axis_b.direction);
  const Vec3 fallback = normal.norm() > 1e-12 * axis_a.direction.norm() * axis_b.direction.norm()
                            ? Vec3(normal.normalized())
                            : any_perpendicular(axis_a.direction);
  return round_pair(axis_a.start + u * axis_a.direction, a.radius,
                    axis_b.start + v * axis_b.direction, b.radius, fallback);
}

// A half-space against a capsule: the deeper of the two caps. The contact point follows the
// penetration-weighted mean of the cap centres (the middle of the capsule when it lies flat), so
// that it moves continuously as the capsule tilts.
SignedDistance halfspace_capsule(const Shape& half, const Pose& X_WH, const Shape& capsule,
                                 const Pose& X_WC) {
  SignedDistance result;
  const Vec3 n_W = X_WH.rotation * half.normal_S;
  const double plane_level = n_W.dot(X_WH.translation) + half.offset;
  const Segment axis = capsule_axis(capsule, X_WC);
  const std::array<Vec3, 2> ends{axis.start, Vec3(axis.start + axis.direction)};
  const std::array<double, 2> heights{n_W.dot(ends[0]) - plane_level - capsule.radius,
                                      n_W.dot(ends[1]) - plane_level - capsule.radius};
  const double lowest = std::min(heights[0], heights[1]);
  // The witnesses sit under (and over) that mean point at the lowest level of the capsule, so that
  // p_B - p_A = distance n holds also while both caps press in.
  const Vec3 mean_end =
      penetration_weighted_mean(ends, heights, lowest, 1e-12 * (capsule.length + capsule.radius));
  result.n_AB_W = n_W;
  result.distance = lowest;
  result.p_A_W = mean_end - (n_W.dot(mean_end) - plane_level) * n_W;
  result.p_B_W = result.p_A_W + lowest * n_W;
  return result;
}

// A half-space against an ellipsoid: its support point towards the plane is the deepest point,
// unique and moving continuously with the pose.
SignedDistance halfspace_ellipsoid(const Shape& half, const Pose& X_WH, const Shape& ellipsoid,
                                   const Pose& X_WE) {
  SignedDistance result;
  const Vec3 n_W = X_WH.rotation * half.normal_S;
  const double plane_level = n_W.dot(X_WH.translation) + half.offset;
  const Vec3 deepest_S = compute_support_point_S(ellipsoid, -(X_WE.rotation.transpose() * n_W));
  result.p_B_W = X_WE.transform_point(deepest_S);
  result.distance = n_W.dot(result.p_B_W) - plane_level;
  result.n_AB_W = n_W;
  result.p_A_W = result.p_B_W - result.distance * n_W;
  return result;
}

// Points sampled on each rim of a cylinder or cone for the contact point: enough that the
// penetration-weighted mean moves smoothly around the rim.
constexpr int kRimSamples = 24;

// A half-space against a cylinder or cone: the deepest point is the deepest point of one of the
// two rims (exact distance). The contact point is the penetration-weighted mean of points around
// both rims, as for a box's vertices: the centre of the face when it lies flat, the middle of the
// generator line when it lies on its side. The samples of each rim start at its deepest point,
// so that the first point to touch is sampled and the mean is continuous from first contact on;
// as the shape tilts through flat the ring turns, which moves the mean of a nearly uniformly
// pressed ring only in proportion to the tilt.
SignedDistance halfspace_round_prism(const Shape& half, const Pose& X_WH, const Shape& prism,
                                     const Pose& X_WP) {
  SignedDistance result;
  const Vec3 n_W = X_WH.rotation * half.normal_S;
  const double plane_level = n_W.dot(X_WH.translation) + half.offset;
  const Vec3 down_S = -(X_WP.rotation.transpose() * n_W);
  const double radial_norm = std::hypot(down_S.x(), down_S.y());
  const Vec3 radial_S = radial_norm > 0.0
                            ? Vec3(down_S.x() / radial_norm, down_S.y() / radial_norm, 0.0)
                            : Vec3::UnitX();
  const Vec3 across_S = Vec3::UnitZ().cross(radial_S);
  const double top_radius = prism.type == ShapeType::cone ? prism.top_radius : prism.radius;
  const std::array<double, 2> rim_radius{prism.radius, top_radius};
  const std::array<double, 2> rim_z{-0.5 * prism.length, 0.5 * prism.length};
  std::array<Vec3, 2 * kRimSamples> points;
  std::array<double, 2 * kRimSamples> heights;
  double lowest = kInfinity;
  std::size_t k = 0;
  for (int rim = 0; rim < 2; ++rim) {
    const Vec3 centre_S(0.0, 0.0, rim_z[rim]);
    for (int i = 0; i < kRimSamples; ++i) {
      const double angle = 2.0 * std::numbers::pi * i / kRimSamples;
      points[k++] = X_WP.transform_point(
          centre_S + rim_radius[rim] * (std::cos(angle) * radial_S + std::sin(angle) * across_S));
    }
  }
  for (std::size_t i = 0; i < points.size(); ++i) {
    heights[i] = n_W.dot(points[i]) - plane_level;
    lowest = std::min(lowest, heights[i]);
  }
  // As for the capsule: the witnesses sit under (and over) that mean point, p_B = p_A + d n.
  const Vec3 mean =
      penetration_weighted_mean(points, heights, lowest, 1e-12 * compute_bounding_radius(prism));
  result.n_AB_W = n_W;
  result.distance = lowest;
  result.p_A_W = mean - (n_W.dot(mean) - plane_level) * n_W;
  result.p_B_W = result.p_A_W + lowest * n_W;
  return result;
}

// Two spheres: along the line of centres. Coincident centres take the world z axis as normal.
SignedDistance sphere_sphere(const Shape& a, const Pose& X_WA, const Shape& b, const Pose& X_WB) {
  return round_pair(X_WA.translation, a.radius, X_WB.translation, b.radius, Vec3::UnitZ());
}

SignedDistance swapped(SignedDistance result) {
  result.n_AB_W = -result.n_AB_W;  // C stays where it is
  std::swap(result.p_A_W, result.p_B_W);
  return result;
}

// Tolerances of the convex pairs, relative to the smaller shape's bounding radius:
// - GJK stops when its upper and lower bounds of the distance are this close (far below the
//   1e-9 the narrowphase promises, far above the rounding of the support points);
constexpr double kGjkTolerance = 1e-13;
// - the refinement keeps the translated shapes this far apart. GJK's closest points on a curved
//   surface are only good to about sqrt(tolerance x curvature radius) = 3e-7 of the size, so its
//   direction is good to that over the gap: a gap of the size gives 3e-7 rad. A smaller gap
//   contracts the direction faster (by about gap / (gap + curvature radius) a step) but leaves
//   it noisier: 1e-3 of the size left distance errors of 6.5e-8 of the size where a curved
//   surface meets a kink, 1.0 leaves 1.1e-10 (tests/collision/convex_distance_test.cpp);
constexpr double kRefinementGap = 1.0;
// - MPR only has to start the refinement near the optimum: 1e-4 of the size unless the scene
//   gives its contact.mpr_tolerance (Shape::mpr_tolerance, m), which libccd then runs at;
constexpr double kMprTolerance = 1e-4;
// - the refinement stops when a step moves the direction less than this; the distance is second
//   order in the direction error (1e-12 of the size here) and the polish finishes curved parts.
constexpr double kDirectionTolerance = 1e-6;
constexpr int kMaxRefinements = 60;

// The result of GJK's closest points and the distance `distance` (m): the direction polished
// where the surfaces are curved (convex_distance.hpp), the distance raised to sigma along the
// polished direction where that is larger (sigma is a lower bound of the signed distance, and
// exact at the optimum), the witnesses as GJK left them.
SignedDistance make_result(const PlacedConvex& a, const PlacedConvex& b, const Vec3& n_W,
                           double distance, const Vec3& p_A_W, const Vec3& p_B_W, double size) {
  SignedDistance result;
  result.n_AB_W = polish_separating_direction(a, b, n_W, size).n_AB_W;
  result.distance = std::max(distance, compute_separation(a, b, result.n_AB_W));
  result.p_A_W = p_A_W;
  result.p_B_W = p_B_W;
  return result;
}

// The direction reached by the translated refinement, with the distance and witnesses.
struct RefinedDirection {
  Vec3 n_AB_W;
  double distance;
  Vec3 p_A_W;
  Vec3 p_B_W;
};

// From n_W: each step, B translated by `shift` along n is exactly `gap` apart from A along n;
// GJK gives that pair's distance and direction. The signed distance of the original pair is the
// translated distance less the shift, to within shift (1 - n.n*) for the optimal n*: second
// order in the direction error, also where support functions have kinks (a cylinder's rim).
RefinedDirection refine_direction(const PlacedConvex& placed_a, const PlacedConvex& placed_b,
                                  Vec3 n_W, double tolerance, double gap,
                                  double direction_tolerance) {
  PlacedConvex moved_b = placed_b;
  double distance = compute_separation(placed_a, placed_b, n_W);
  Vec3 p_A_W = placed_a.support_W(n_W), p_B_W = placed_b.support_W(-n_W);
  for (int step = 0; step < kMaxRefinements; ++step) {
    const double shift = gap - compute_separation(placed_a, placed_b, n_W);
    moved_b.shift_W = shift * n_W;
    const ConvexDistance moved = compute_convex_distance(placed_a, moved_b, tolerance);
    // The translated pair is apart by construction; an overlap is GJK lost in rounding on a
    // sliver simplex: keep what the last step reached.
    if (moved.overlapping) break;
    distance = moved.distance - shift;
    p_A_W = moved.p_A_W;
    p_B_W = moved.p_B_W - moved_b.shift_W;
    const Vec3 previous_W = n_W;
    n_W = moved.n_AB_W;
    if ((n_W - previous_W).norm() <= direction_tolerance) break;
  }
  return {n_W, distance, p_A_W, p_B_W};
}

// From n_W: where the polish satisfies the optimality condition (curved parts, rims against
// curved parts), sigma along its direction is the distance and the support points are the
// witnesses (unique there, and p_B - p_A = d n by that condition); otherwise (a flat face against
// a kink) the translated refinement.
RefinedDirection refine_from(const PlacedConvex& a, const PlacedConvex& b, const Vec3& n_W,
                             double tolerance, double size) {
  const PolishedDirection polished = polish_separating_direction(a, b, n_W, size);
  if (polished.stationary) {
    const Vec3& n = polished.n_AB_W;
    return {n, compute_separation(a, b, n), a.support_W(n), b.support_W(-n)};
  }
  return refine_direction(a, b, n_W, tolerance, kRefinementGap * size, kDirectionTolerance);
}

// The directions where a local optimum of the separation may sit away from MPR's start, in W,
// each passed to `visit`: the outward normals of the flat faces of A (as directions from A to B)
// and of B (negated), a box's six faces, a cylinder's or cone's two caps, a hull's faces; and,
// both ways, the cross products of straight edges of A and B (a box's three edge directions, a
// cylinder's side lines along its axis, a hull's edges), the edge-edge axes of the
// separating-axis test.
template <class Visit>
void for_each_flat_face_normal_W(const PlacedConvex& placed, double sign, Visit&& visit) {
  const Mat3& R = placed.X_WS->rotation;
  switch (placed.shape->type) {
    case ShapeType::box:
      for (int axis = 0; axis < 3; ++axis) {
        visit(Vec3(sign * R.col(axis)));
        visit(Vec3(-sign * R.col(axis)));
      }
      break;
    case ShapeType::cylinder:
    case ShapeType::cone:
      visit(Vec3(sign * R.col(2)));
      visit(Vec3(-sign * R.col(2)));
      break;
    case ShapeType::convex:
      for (const Vec3& n_S : placed.shape->hull->face_normals_S) visit(Vec3(sign * (R * n_S)));
      break;
    default:
      break;
  }
}

// Calls visit(direction_W) for each straight edge direction of a placed shape (up to sign).
template <class Visit>
void for_each_straight_edge_W(const PlacedConvex& placed, Visit&& visit) {
  const Mat3& R = placed.X_WS->rotation;
  switch (placed.shape->type) {
    case ShapeType::box:
      for (int axis = 0; axis < 3; ++axis) visit(Vec3(R.col(axis)));
      break;
    case ShapeType::cylinder:
      visit(Vec3(R.col(2)));
      break;
    case ShapeType::convex:
      for (const Vec3& e_S : placed.shape->hull->edge_directions_S) visit(Vec3(R * e_S));
      break;
    default:
      break;
  }
}

// Two hulls: only the edge pairs that form a face of the Minkowski difference, whose arcs on the
// Gauss map (from one adjacent face normal to the other) cross, A's arc with B's negated one: the
// direction n from A to B then lies in A's edge's normal cone and -n in B's, which every other
// pair lacks (Gregorius, "The Separating Axis Test between Convex Polyhedra", GDC 2013). This
// keeps the candidates linear in the edge counts instead of their product; the tests on the
// arcs themselves still visit every pair, at a few flops each. Worked in A's frame.
template <class Visit>
void for_each_hull_edge_axis_W(const PlacedConvex& a, const PlacedConvex& b, Visit&& visit) {
  const Mat3& R_WA = a.X_WS->rotation;
  const Mat3 R_AB = R_WA.transpose() * b.X_WS->rotation;
  for (const ConvexHull::Edge& edge_b : b.shape->hull->edges) {
    const Vec3 e_b = R_AB * edge_b.direction_S;
    const Vec3 c = -(R_AB * edge_b.normal_1_S), d = -(R_AB * edge_b.normal_2_S);
    const Vec3 d_cross_c = d.cross(c);
    for (const ConvexHull::Edge& edge_a : a.shape->hull->edges) {
      const Vec3& p = edge_a.normal_1_S;
      const Vec3& q = edge_a.normal_2_S;
      const Vec3 q_cross_p = q.cross(p);
      const double cqp = c.dot(q_cross_p), dqp = d.dot(q_cross_p);
      const double pdc = p.dot(d_cross_c), qdc = q.dot(d_cross_c);
      if (!(cqp * dqp < 0.0 && pdc * qdc < 0.0 && cqp * qdc > 0.0)) continue;
      Vec3 axis = edge_a.direction_S.cross(e_b);
      const double length = axis.norm();
      if (!(length > 1e-9)) continue;  // parallel edges: the face normals cover them
      axis /= length;
      if (axis.dot(p + q) < 0.0) axis = -axis;  // into A's edge's normal cone
      visit(Vec3(R_WA * axis));
    }
  }
}

template <class Visit>
void for_each_candidate_direction_W(const PlacedConvex& a, const PlacedConvex& b, Visit&& visit) {
  for_each_flat_face_normal_W(a, 1.0, visit);
  for_each_flat_face_normal_W(b, -1.0, visit);
  if (a.shape->type == ShapeType::convex && b.shape->type == ShapeType::convex) {
    for_each_hull_edge_axis_W(a, b, visit);
    return;
  }
  for_each_straight_edge_W(a, [&](const Vec3& edge_a) {
    for_each_straight_edge_W(b, [&](const Vec3& edge_b) {
      const Vec3 axis = edge_a.cross(edge_b);
      const double length = axis.norm();
      if (!(length > 1e-9)) return;  // parallel edges: the face normals cover them
      visit(Vec3(axis / length));
      visit(Vec3(-axis / length));
    });
  });
}

SignedDistance local_convex_signed_distance(const Shape& a, const Pose& X_WA, const Shape& b,
                                            const Pose& X_WB) {
  const PlacedConvex placed_a{&a, &X_WA}, placed_b{&b, &X_WB};
  const double size = std::min(compute_bounding_radius(a), compute_bounding_radius(b));
  const double tolerance = kGjkTolerance * size;
  const double gap = kRefinementGap * size;
  const ConvexDistance apart = compute_convex_distance(placed_a, placed_b, tolerance);
  if (!apart.overlapping && apart.lower_bound > gap) {
    return make_result(placed_a, placed_b, apart.n_AB_W, apart.distance, apart.p_A_W, apart.p_B_W,
                       size);
  }
  // Near contact: MPR's direction where it finds overlap, else GJK's, else the centres'.
  const Vec3 centres = placed_b.centre_W() - placed_a.centre_W();
  Vec3 n_W = centres.norm() > 0.0 ? Vec3(centres.normalized()) : Vec3(Vec3::UnitZ());
  if (!apart.overlapping) n_W = apart.n_AB_W;
  const double mpr_tolerance = std::isnan(a.mpr_tolerance) && std::isnan(b.mpr_tolerance)
                                   ? kMprTolerance * size
                                   : std::fmin(a.mpr_tolerance, b.mpr_tolerance);
  if (const auto mpr = compute_mpr_penetration(placed_a, placed_b, mpr_tolerance)) {
    n_W = mpr->n_AB_W;
  }
  RefinedDirection best = refine_from(placed_a, placed_b, n_W, tolerance, size);
  // MPR can start on a local optimum (an edge-edge direction of two boxes when a face is less
  // deep, or the other way round): restart from a face normal or an edge-edge axis that separates
  // more than the result.
  for_each_candidate_direction_W(placed_a, placed_b, [&](const Vec3& candidate_W) {
    if (compute_separation(placed_a, placed_b, candidate_W) <= best.distance + tolerance) return;
    const RefinedDirection other = refine_from(placed_a, placed_b, candidate_W, tolerance, size);
    if (other.distance > best.distance) best = other;
  });
  return make_result(placed_a, placed_b, best.n_AB_W, best.distance, best.p_A_W, best.p_B_W, size);
}

}  // namespace

// The general convex pair (convex_distance.hpp, docs/physics.md):
// - proved apart by more than the smaller shape's size: GJK's distance and closest points;
// - near contact or overlapping: MPR's direction (GJK's, the centres' where MPR finds none),
//   polished to the optimum where the support points are smooth, otherwise refined by
//   translating B along it (refine_from); restarted from flat faces that separate more.
SignedDistance compute_convex_signed_distance(const Shape& a, const Pose& X_WA, const Shape& b,
                                              const Pose& X_WB) {
  // Work about A's centre, so that the rounding of the support points is that of the shapes'
  // size, not of their distance from the world origin; `origin_W` moves the witnesses back.
  const Vec3 origin_W = X_WA.translation;
  const Pose X_OA{X_WA.rotation, Vec3::Zero()}, X_OB{X_WB.rotation, X_WB.translation - origin_W};
  SignedDistance result = local_convex_signed_distance(a, X_OA, b, X_OB);
  result.p_A_W += origin_W;
  result.p_B_W += origin_W;
  return result;
}

namespace {

// Two boxes: the general path's distance and normal; while they overlap, the contact point is the
// centroid of the common volume (collision/box_overlap.hpp), which does not jump when a face lies
// flat on a face. The witnesses stay the closest points on the two surfaces.
SignedDistance box_box(const Shape& a, const Pose& X_WA, const Shape& b, const Pose& X_WB) {
  SignedDistance result = compute_convex_signed_distance(a, X_WA, b, X_WB);
  if (result.distance >= 0.0) return result;
  if (const auto overlap = compute_box_overlap(a, X_WA, b, X_WB)) {
    result.p_C_W = overlap->centroid_W;
  }
  return result;
}

}  // namespace

bool is_supported_shape_pair(ShapeType a, ShapeType b) {
  // Every pair of convex shapes; two half-spaces have no distance; a terrain shape and a ball,
  // capsule, box, hull or mesh (which of two meshes or a mesh and a heightmap is the free one is
  // the shapes' matter: touches_terrain_shapes); a mesh (on a moving body, with its hull) and a
  // half-space.
  const auto terrain = [](ShapeType t) {
    return t == ShapeType::mesh || t == ShapeType::heightmap;
  };
  if ((a == ShapeType::mesh && b == ShapeType::halfspace) ||
      (a == ShapeType::halfspace && b == ShapeType::mesh)) {
    return true;
  }
  // Two terrain shapes: one must be a mesh (on a free body: touches_terrain_shapes, either order).
  if (terrain(a) && terrain(b)) return a == ShapeType::mesh || b == ShapeType::mesh;
  if (terrain(a) || terrain(b)) return terrain(a) ? touches_terrain(b) : touches_terrain(a);
  return !(a == ShapeType::halfspace && b == ShapeType::halfspace);
}

namespace {

// The pose in W of a shape's smoothing core.
Pose place_core(const Pose& X_WS, const SmoothingCore& core) {
  return Pose{X_WS.rotation, X_WS.transform_point(core.offset_S)};
}

// Shapes with a smoothing radius: the pair of cores, apart by the radii more; each witness moves
// out along the normal by its shape's radius. Two boxes keep the contact point of the sharp boxes'
// overlap, which holds the rounded boxes' overlap and, unlike the cores', exists at any depth.
SignedDistance smoothed_pair(const Shape& a, const Pose& X_WA, const Shape& b, const Pose& X_WB) {
  const SmoothingCore core_a = compute_smoothing_core(a), core_b = compute_smoothing_core(b);
  SignedDistance result = compute_signed_distance(core_a.shape, place_core(X_WA, core_a),
                                                  core_b.shape, place_core(X_WB, core_b));
  result.distance -= a.smoothing_radius + b.smoothing_radius;
  result.p_A_W += a.smoothing_radius * result.n_AB_W;
  result.p_B_W -= b.smoothing_radius * result.n_AB_W;
  result.p_C_W = Vec3::Constant(kNaN);
  if (a.type == ShapeType::box && b.type == ShapeType::box && result.distance < 0.0) {
    if (const auto overlap = compute_box_overlap(copy_geometry(a), X_WA, copy_geometry(b), X_WB)) {
      result.p_C_W = overlap->centroid_W;
    }
  }
  return result;
}

}  // namespace

SignedDistance compute_signed_distance(const Shape& a, const Pose& X_WA, const Shape& b,
                                       const Pose& X_WB) {
  using enum ShapeType;
  if (is_terrain_pair(a, b)) return compute_terrain_distance(a, X_WA, b, X_WB);
  if (a.smoothing_radius > 0.0 || b.smoothing_radius > 0.0) return smoothed_pair(a, X_WA, b, X_WB);
  if (a.type == sphere && b.type == sphere) return sphere_sphere(a, X_WA, b, X_WB);
  if (a.type == halfspace && b.type == sphere) return halfspace_sphere(a, X_WA, b, X_WB);
  if (a.type == sphere && b.type == halfspace) return swapped(halfspace_sphere(b, X_WB, a, X_WA));
  if (a.type == halfspace && b.type == box) return halfspace_box(a, X_WA, b, X_WB);
  if (a.type == box && b.type == halfspace) return swapped(halfspace_box(b, X_WB, a, X_WA));
  if (a.type == box && b.type == sphere) return box_sphere(a, X_WA, b, X_WB);
  if (a.type == sphere && b.type == box) return swapped(box_sphere(b, X_WB, a, X_WA));
  if (a.type == capsule && b.type == capsule) return capsule_capsule(a, X_WA, b, X_WB);
  if (a.type == capsule && b.type == sphere) return capsule_sphere(a, X_WA, b, X_WB);
  if (a.type == sphere && b.type == capsule) return swapped(capsule_sphere(b, X_WB, a, X_WA));
  if (a.type == halfspace && b.type == capsule) return halfspace_capsule(a, X_WA, b, X_WB);
  if (a.type == capsule && b.type == halfspace) {
    return swapped(halfspace_capsule(b, X_WB, a, X_WA));
  }
  if (a.type == halfspace && b.type == ellipsoid) return halfspace_ellipsoid(a, X_WA, b, X_WB);
  if (a.type == ellipsoid && b.type == halfspace) {
    return swapped(halfspace_ellipsoid(b, X_WB, a, X_WA));
  }
  if (a.type == halfspace && (b.type == cylinder || b.type == cone)) {
    return halfspace_round_prism(a, X_WA, b, X_WB);
  }
  if ((a.type == cylinder || a.type == cone) && b.type == halfspace) {
    return swapped(halfspace_round_prism(b, X_WB, a, X_WA));
  }
  // A mesh on a half-space: its hull's (prepared by the loader for a mesh on a moving body).
  if (a.type == halfspace && (b.type == convex || b.type == mesh)) {
    return halfspace_convex(a, X_WA, b, X_WB);
  }
  if ((a.type == convex || a.type == mesh) && b.type == halfspace) {
    return swapped(halfspace_convex(b, X_WB, a, X_WA));
  }
  if (a.type == box && b.type == box) return box_box(a, X_WA, b, X_WB);
  if (a.type == halfspace || b.type == halfspace) {
    throw NotSupportedError("signed distance: two half-spaces have no distance");
  }
  return compute_convex_signed_distance(a, X_WA, b, X_WB);
}

}  // namespace hybridsim
