#include "collision/convex_distance.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <initializer_list>
#include <limits>
#include <utility>

#include "collision/shape_geometry.hpp"

namespace hybridsim {
namespace {

// A vertex of the Minkowski difference D = B - A with the support points it came from.
struct SimplexVertex {
  Vec3 w;  // b - a, m
  Vec3 a;  // support point of A, W
  Vec3 b;  // support point of B, W
};

// The simplex GJK keeps: up to four vertices and the barycentric weights of the point of their
// hull closest to the origin.
struct Simplex {
  std::array<SimplexVertex, 4> vertices;
  std::array<double, 4> weights{};
  int size = 0;

  Vec3 closest_point() const {
    Vec3 v = Vec3::Zero();
    for (int i = 0; i < size; ++i) v += weights[i] * vertices[i].w;
    return v;
  }
  // Keeps the listed vertices with their weights, in that order.
  void keep(std::initializer_list<std::pair<int, double>> kept) {
    std::array<SimplexVertex, 4> old = vertices;
    int k = 0;
    for (const auto& [index, weight] : kept) {
      vertices[k] = old[index];
      weights[k] = weight;
      ++k;
    }
    size = k;
  }
};

// Closest point to the origin of triangle (i, j, k) by its Voronoi regions (vertex, edge or
// face), the origin's barycentric coordinates written as ratios of signed areas (Ericson,
// Real-Time Collision Detection, 5.1.5); a triangle whose vertices lie on a line gives the
// closest of its edges.
struct TriangleClosest {
  std::array<int, 3> index{};
  std::array<double, 3> weight{};
  int size = 0;
  Vec3 point = Vec3::Zero();
};

TriangleClosest closest_on_edge(const Simplex& s, int p, int q) {
  const Vec3& start = s.vertices[p].w;
  const Vec3 edge = s.vertices[q].w - start;
  const double length2 = edge.squaredNorm();
  const double t = length2 > 0.0 ? std::clamp(-start.dot(edge) / length2, 0.0, 1.0) : 0.0;
  if (t <= 0.0) return {{p}, {1.0}, 1, start};
  if (t >= 1.0) return {{q}, {1.0}, 1, s.vertices[q].w};
  return {{p, q}, {1.0 - t, t}, 2, start + t * edge};
}

TriangleClosest closest_on_triangle(const Simplex& s, int i, int j, int k) {
  const Vec3 &a = s.vertices[i].w, &b = s.vertices[j].w, &c = s.vertices[k].w;
  const Vec3 ab = b - a, ac = c - a;
  const double d1 = -ab.dot(a), d2 = -ac.dot(a);
  if (d1 <= 0.0 && d2 <= 0.0) return {{i}, {1.0}, 1, a};
  const double d3 = -ab.dot(b), d4 = -ac.dot(b);
  if (d3 >= 0.0 && d4 <= d3) return {{j}, {1.0}, 1, b};
  const double vc = d1 * d4 - d3 * d2;
  if (vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0) return closest_on_edge(s, i, j);
  const double d5 = -ab.dot(c), d6 = -ac.dot(c);
  if (d6 >= 0.0 && d5 <= d6) return {{k}, {1.0}, 1, c};
  const double vb = d5 * d2 - d1 * d6;
  if (vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0) return closest_on_edge(s, i, k);
  const double va = d3 * d6 - d5 * d4;
  if (va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0) return closest_on_edge(s, j, k);
  const double denominator = va + vb + vc;
  if (!(denominator > 0.0)) {
    TriangleClosest best = closest_on_edge(s, i, j);
    for (const TriangleClosest& r : {closest_on_edge(s, i, k), closest_on_edge(s, j, k)}) {
      if (r.point.squaredNorm() < best.point.squaredNorm()) best = r;
    }
    return best;
  }
  const double v = vb / denominator, w = vc / denominator;
  return {{i, j, k}, {1.0 - v - w, v, w}, 3, a + v * ab + w * ac};
}

void apply(Simplex& s, const TriangleClosest& r) {
  if (r.size == 1) {
    s.keep({{r.index[0], r.weight[0]}});
  } else if (r.size == 2) {
    s.keep({{r.index[0], r.weight[0]}, {r.index[1], r.weight[1]}});
  } else {
    s.keep({{r.index[0], r.weight[0]}, {r.index[1], r.weight[1]}, {r.index[2], r.weight[2]}});
  }
}

// Whether the origin lies strictly on the same side of face (i, j, k) as vertex `opposite`.
bool origin_inside_face(const Simplex& s, int i, int j, int k, int opposite) {
  const Vec3& a = s.vertices[i].w;
  const Vec3 normal = (s.vertices[j].w - a).cross(s.vertices[k].w - a);
  return normal.dot(-a) * normal.dot(s.vertices[opposite].w - a) > 0.0;
}

// Reduces the simplex to the feature closest to the origin; returns false when the origin lies
// inside the tetrahedron (the shapes overlap). Outside, the closest point of a tetrahedron is the
// closest of its four faces; all four are tried, since a flat tetrahedron makes the side tests
// unreliable and a face wrongly skipped would move the point away.
bool reduce(Simplex& s) {
  switch (s.size) {
    case 1:
      s.weights[0] = 1.0;
      return true;
    case 2:
      apply(s, closest_on_edge(s, 0, 1));
      return true;
    case 3:
      apply(s, closest_on_triangle(s, 0, 1, 2));
      return true;
    default:
      break;
  }
  static constexpr std::array<std::array<int, 4>, 4> kFaces{
      {{0, 1, 2, 3}, {0, 1, 3, 2}, {0, 2, 3, 1}, {1, 2, 3, 0}}};
  // Inside only when the tetrahedron has a volume the coordinates resolve.
  const Vec3& p0 = s.vertices[0].w;
  const Vec3 e1 = s.vertices[1].w - p0, e2 = s.vertices[2].w - p0, e3 = s.vertices[3].w - p0;
  const double scale = std::max({e1.norm(), e2.norm(), e3.norm()});
  const bool solid = std::abs(e1.cross(e2).dot(e3)) > 1e-12 * scale * scale * scale;
  bool inside = solid;
  for (const auto& face : kFaces)
    inside &= origin_inside_face(s, face[0], face[1], face[2], face[3]);
  if (inside) return false;
  TriangleClosest best;
  double best_distance2 = kInfinity;
  for (const auto& face : kFaces) {
    const TriangleClosest r = closest_on_triangle(s, face[0], face[1], face[2]);
    if (r.point.squaredNorm() < best_distance2) {
      best_distance2 = r.point.squaredNorm();
      best = r;
    }
  }
  apply(s, best);
  return true;
}

SimplexVertex support_of_difference(const PlacedConvex& a, const PlacedConvex& b,
                                    const Vec3& direction_W) {
  SimplexVertex vertex;
  vertex.a = a.support_W(-direction_W);
  vertex.b = b.support_W(direction_W);
  vertex.w = vertex.b - vertex.a;
  return vertex;
}

}  // namespace

Vec3 PlacedConvex::support_W(const Vec3& direction_W) const {
  const Vec3 direction_S = X_WS->rotation.transpose() * direction_W;
  return X_WS->transform_point(compute_support_point_S(*shape, direction_S)) + shift_W;
}

double compute_separation(const PlacedConvex& a, const PlacedConvex& b, const Vec3& n_W) {
  return n_W.dot(b.support_W(-n_W)) - n_W.dot(a.support_W(n_W));
}

ConvexDistance compute_convex_distance(const PlacedConvex& a, const PlacedConvex& b,
                                       double tolerance, int max_iterations) {
  ConvexDistance result;
  // Coordinates far from the origin carry rounding of about eps |x| in every support point:
  // no gap below that can be proved.
  const double coordinate_scale = a.centre_W().norm() + b.centre_W().norm();
  const double floor = 64.0 * std::numeric_limits<double>::epsilon() * coordinate_scale;
  const double gap_tolerance = std::max(tolerance, floor);

  Simplex simplex;
  Vec3 v = b.centre_W() - a.centre_W();
  if (v.squaredNorm() == 0.0) v = Vec3::UnitZ();
  simplex.vertices[0] = support_of_difference(a, b, -v);
  simplex.weights[0] = 1.0;
  simplex.size = 1;
  v = simplex.vertices[0].w;
  result.iterations = 1;
  double lower_bound = 0.0;
  while (result.iterations < max_iterations) {
    const double v_norm = v.norm();
    if (v_norm <= floor) {
      result.overlapping = true;
      return result;
    }
    // The plane through w normal to v bounds D: v.w/|v| is a lower bound of the distance.
    const SimplexVertex next = support_of_difference(a, b, -v);
    lower_bound = std::max(lower_bound, v.dot(next.w) / v_norm);
    if (v_norm - lower_bound <= gap_tolerance) break;
    bool repeated = false;
    for (int i = 0; i < simplex.size; ++i) repeated |= simplex.vertices[i].w == next.w;
    if (repeated) break;
    const Simplex before = simplex;
    simplex.vertices[simplex.size++] = next;
    ++result.iterations;
    if (!reduce(simplex)) {
      result.overlapping = true;
      return result;
    }
    // No progress left at the precision of the coordinates: stop with this simplex.
    const double previous_norm = v_norm;
    v = simplex.closest_point();
    if (v.norm() >= previous_norm) {
      simplex = before;
      v = simplex.closest_point();
      break;
    }
  }
  // A distance below what the coordinates resolve is contact: the caller's refinement decides.
  if (v.norm() <= floor) {
    result.overlapping = true;
    return result;
  }
  result.distance = v.norm();
  result.lower_bound = lower_bound;
  result.n_AB_W = v / result.distance;
  result.p_A_W = Vec3::Zero();
  result.p_B_W = Vec3::Zero();
  for (int i = 0; i < simplex.size; ++i) {
    result.p_A_W += simplex.weights[i] * simplex.vertices[i].a;
    result.p_B_W += simplex.weights[i] * simplex.vertices[i].b;
  }
  return result;
}

PolishedDirection polish_separating_direction(const PlacedConvex& a, const PlacedConvex& b,
                                              Vec3 n_W, double size) {
  // Newton's method on the tangential part of x(n) = s_B(-n) - s_A(n), which vanishes where
  // sigma is stationary, with a Jacobian of difference quotients (a step of 1e-6 rad; support
  // points are smooth on curved parts, so it is good to about 1e-6 and the convergence stays
  // fast). A step is kept only if it raises sigma: on flat parts the support points jump, the
  // Jacobian is singular or wrong, and the direction GJK found is already the exact face normal.
  constexpr double kAngleStep = 1e-6;
  double sigma = compute_separation(a, b, n_W);
  bool stationary = false;
  for (int iteration = 0; iteration < 8; ++iteration) {
    const Vec3 t1 = n_W.unitOrthogonal(), t2 = n_W.cross(t1);
    const auto tangential = [&](const Vec3& m_W) {
      const Vec3 x = b.support_W(-m_W) - a.support_W(m_W);
      return Eigen::Vector2d(t1.dot(x), t2.dot(x));
    };
    const Eigen::Vector2d residual = tangential(n_W);
    // Stationary to 1e-8 of the size: the direction error is that over the curvature radius,
    // the distance error about its square, 1e-16 of the size. (Below that sigma no longer
    // changes visibly in double precision and the steps stop being accepted.)
    stationary = residual.norm() <= 1e-8 * size;
    if (stationary) break;
    Eigen::Matrix2d jacobian;
    jacobian.col(0) = (tangential((n_W + kAngleStep * t1).normalized()) - residual) / kAngleStep;
    jacobian.col(1) = (tangential((n_W + kAngleStep * t2).normalized()) - residual) / kAngleStep;
    const Eigen::Vector2d step = jacobian.fullPivLu().solve(-residual);
    if (!step.allFinite() || step.norm() > 0.1) break;
    const Vec3 candidate = (n_W + step.x() * t1 + step.y() * t2).normalized();
    const double candidate_sigma = compute_separation(a, b, candidate);
    if (!(candidate_sigma > sigma)) break;
    n_W = candidate;
    sigma = candidate_sigma;
  }
  return {n_W, stationary};
}

}  // namespace hybridsim
