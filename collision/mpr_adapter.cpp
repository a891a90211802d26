#include "collision/mpr_adapter.hpp"

#include <ccd/ccd.h>
#include <fmt/format.h>

#include <cmath>
#include <string>

#include "core/errors.hpp"

namespace hybridsim {
namespace {

Vec3 to_eigen(const ccd_vec3_t& v) {
  return Vec3(v.v[0], v.v[1], v.v[2]);
}

void to_ccd(const Vec3& v, ccd_vec3_t* out) {
  ccdVec3Set(out, v.x(), v.y(), v.z());
}

// libccd's callbacks: obj is the PlacedConvex.
void support(const void* object, const ccd_vec3_t* direction, ccd_vec3_t* point) {
  to_ccd(static_cast<const PlacedConvex*>(object)->support_W(to_eigen(*direction)), point);
}

void centre(const void* object, ccd_vec3_t* point) {
  to_ccd(static_cast<const PlacedConvex*>(object)->centre_W(), point);
}

std::string shape_parameters(const Shape& shape) {
  switch (shape.type) {
    case ShapeType::sphere:
      return fmt::format("sphere radius {:.17g}", shape.radius);
    case ShapeType::box:
      return fmt::format("box half_extents [{:.17g}, {:.17g}, {:.17g}]", shape.half_extents.x(),
                         shape.half_extents.y(), shape.half_extents.z());
    case ShapeType::capsule:
      return fmt::format("capsule radius {:.17g} length {:.17g}", shape.radius, shape.length);
    case ShapeType::cylinder:
      return fmt::format("cylinder radius {:.17g} length {:.17g}", shape.radius, shape.length);
    case ShapeType::cone:
      return fmt::format("cone radius {:.17g} top_radius {:.17g} length {:.17g}", shape.radius,
                         shape.top_radius, shape.length);
    case ShapeType::ellipsoid:
      return fmt::format("ellipsoid radii [{:.17g}, {:.17g}, {:.17g}]", shape.radii.x(),
                         shape.radii.y(), shape.radii.z());
    case ShapeType::convex: {
      // Every vertex to 17 digits, so that the pair can be rebuilt in a test.
      std::string text = "convex vertices [";
      for (const Vec3& v : shape.hull->vertices_S) {
        text += fmt::format("[{:.17g}, {:.17g}, {:.17g}], ", v.x(), v.y(), v.z());
      }
      text += "]";
      return text;
    }
    case ShapeType::halfspace:
      return "halfspace";
    case ShapeType::mesh:
      return "mesh";
    case ShapeType::heightmap:
      return "heightmap";
  }
  return "unknown shape";
}

std::string pose_text(const PlacedConvex& placed) {
  const Quat q(placed.X_WS->rotation);
  const Vec3 p = placed.centre_W();
  return fmt::format(
      "position [{:.17g}, {:.17g}, {:.17g}] quaternion_wxyz [{:.17g}, {:.17g}, "
      "{:.17g}, {:.17g}]",
      p.x(), p.y(), p.z(), q.w(), q.x(), q.y(), q.z());
}

}  // namespace

std::string describe_convex_pair(const PlacedConvex& a, const PlacedConvex& b) {
  return fmt::format("A: {} at {}; B: {} at {}", shape_parameters(*a.shape), pose_text(a),
                     shape_parameters(*b.shape), pose_text(b));
}

std::optional<MprPenetration> compute_mpr_penetration(const PlacedConvex& a, const PlacedConvex& b,
                                                      double tolerance, int max_iterations) {
  ccd_t ccd;
  CCD_INIT(&ccd);
  ccd.support1 = support;
  ccd.support2 = support;
  ccd.center1 = centre;
  ccd.center2 = centre;
  ccd.max_iterations = static_cast<unsigned long>(max_iterations);
  ccd.mpr_tolerance = tolerance;
  ccd_real_t depth = 0.0;
  ccd_vec3_t direction;
  ccd_vec3_t position;
  if (ccdMPRPenetration(&a, &b, &ccd, &depth, &direction, &position) != 0) return std::nullopt;
  // Touching within MPR's tolerance: libccd gives no direction, and none is needed.
  if (depth <= tolerance && to_eigen(direction).norm() < 0.5) return std::nullopt;
  // Check what comes back before it steers the refinement.
  MprPenetration result;
  result.depth = depth;
  result.n_AB_W = to_eigen(direction);
  const double norm = result.n_AB_W.norm();
  if (!std::isfinite(depth) || depth < 0.0 || !result.n_AB_W.allFinite() ||
      std::abs(norm - 1.0) > 1e-6) {
    throw SolverError(fmt::format("libccd MPR failed (depth {}, normal [{}, {}, {}]) for {}", depth,
                                  result.n_AB_W.x(), result.n_AB_W.y(), result.n_AB_W.z(),
                                  describe_convex_pair(a, b)));
  }
  result.n_AB_W /= norm;
  return result;
}

}  // namespace hybridsim
