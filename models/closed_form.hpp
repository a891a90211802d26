// Closed-form solutions of scenes whose equations of motion have one, as exact references for
// batch experiments and tests (docs/batch.md, docs/physics.md).
//
// compound_pendulum: one free body on a revolute joint to a fixed body, released from rest under
// gravity, with nothing it can touch, no joint spring, damper or input and no other input. With
// phi the angle of the centre of mass about the axis, measured from the downward direction (the
// gravity component normal to the axis, of size g_n), d the centre of mass's distance from the
// axis and I_a the inertia about the axis, I_a phi'' = -m g_n d sin(phi), so with
// w0^2 = m g_n d / I_a and k = sin(phi0 / 2):
//   sin(phi / 2) = k cd(w0 t | k^2),   phi' = -2 k w0 (1 - k^2) sn / (dn^2 cos(phi / 2))
// (cd = cn / dn; Jacobi elliptic functions of parameter m = k^2). The period is 4 K(k) / w0.
#pragma once

#include <functional>
#include <string>

#include "core/hybrid_system.hpp"
#include "core/math.hpp"
#include "core/model.hpp"

namespace hybridsim {

struct ClosedForm {
  std::string name;           // "compound_pendulum"
  std::string description;    // one line: the solution and its parameters
  double period = kInfinity;  // s, of a periodic solution
  // The exact state at time t (s) into x (Model::state_size entries). Copies what it needs from
  // the model: the model need not outlive it.
  std::function<void(double t, VectorRef x)> state;
};

// The closed form of a model; InputError naming the reason (and the scene) when it has none.
ClosedForm find_closed_form(const Model& model);

// Jacobi elliptic functions sn, cn, dn of argument u and parameter m = k^2 in [0, 1), by the
// arithmetic-geometric mean and the descending Landen transformation (Abramowitz and Stegun
// 16.4); u is first reduced by the period 4 K(m).
struct JacobiElliptic {
  double sn = 0.0, cn = 1.0, dn = 1.0;
};
JacobiElliptic jacobi_elliptic(double u, double m);

// The complete elliptic integral of the first kind K(m) = pi / (2 AGM(1, sqrt(1 - m))).
double complete_elliptic_k(double m);

}  // namespace hybridsim
