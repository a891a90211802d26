#include "core/friction_cone.hpp"

#include <cmath>
#include <numbers>

#include <fmt/format.h>

#include "core/errors.hpp"

namespace hybridsim {

void compute_friction_cone(const Vec3& n_W, const Vec3& t1_W, double mu, int edges,
                           ConeApproximation approximation, double* rows) {
  if (edges < 3) {
    throw InputError(fmt::format("friction cone: {} edges; a cone needs at least 3", edges));
  }
  if (!(mu >= 0.0) || !std::isfinite(mu)) {
    throw InputError(fmt::format("friction cone: mu = {}: must be finite and >= 0", mu));
  }
  if (!(std::abs(n_W.norm() - 1.0) <= 1e-9 && std::abs(t1_W.norm() - 1.0) <= 1e-9 &&
        std::abs(n_W.dot(t1_W)) <= 1e-9)) {
    throw InputError("friction cone: the normal and the first tangent must be unit and orthogonal");
  }
  const Vec3 t2_W = n_W.cross(t1_W);
  const double half_angle = std::numbers::pi / edges;
  const double mu_face =
      approximation == ConeApproximation::inscribed ? mu * std::cos(half_angle) : mu;
  for (int i = 0; i < edges; ++i) {
    const double angle = 2.0 * half_angle * i;
    const Vec3 row = std::cos(angle) * t1_W + std::sin(angle) * t2_W - mu_face * n_W;
    for (int k = 0; k < 3; ++k) rows[3 * i + k] = row[k];
  }
}

}  // namespace hybridsim
