// Linearised friction cones for controllers (seed 003): C f <= 0 for a contact force f inside a
// polyhedral approximation of the Coulomb cone |f_t| <= mu f_n.
#pragma once

#include "core/math.hpp"

namespace hybridsim {

// A linearised friction cone with `edges` faces (>= 3): rows C_i = t_i^T - mu_face n^T, i = 0 ..
// edges - 1, with t_i = cos(2 pi i / edges) t1 + sin(2 pi i / edges) t2 (t2 = n x t1), so that
// C f <= 0 exactly when the force f (on B, world, N) lies in the polyhedral cone around the unit
// normal n. inscribed: the cone's edges lie on the circular cone |f_t| <= mu f_n (mu_face =
// mu cos(pi / edges)), so the pyramid lies inside it; circumscribed: its faces touch it
// (mu_face = mu), so it contains it. With an even number of edges, rows i and i + edges/2 have
// opposite t_i: together |t_i . f| <= mu_face n . f, edges/2 two-sided constraints (6 edges give
// 3, the seed's count; 4 circumscribed edges give Gazebo's box |f_1|, |f_2| <= mu f_n).
enum class ConeApproximation { inscribed, circumscribed };
// Writes edges x 3 entries, row-major, into `rows`. InputError for fewer than 3 edges, a mu that
// is negative or not finite, or n and t1 not unit and orthogonal (to 1e-9).
void compute_friction_cone(const Vec3& n_W, const Vec3& t1_W, double mu, int edges,
                           ConeApproximation approximation, double* rows);

}  // namespace hybridsim
