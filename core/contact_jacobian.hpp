// What a controller needs from a contact (seed 003): its Jacobian over the model's generalised
// velocities and the drift term J' v (the linearised friction cone: core/friction_cone.hpp).
//
// Generalised velocities v (nv = 6 per free body, in the order of the bodies' states): per free
// body, the velocity of its origin in W (m/s) and its angular velocity in its own frame B (rad/s),
// exactly the velocity entries of the state (core/rigid_body.hpp). Joints are constraints in
// maximal coordinates, so a jointed model has the same v; its joint rates are outputs.
#pragma once

#include "core/math.hpp"
#include "core/rigid_body.hpp"

namespace hybridsim {

// The Jacobian of a material point p_W of a body, over that body's six velocity states:
// v_p = J_linear (v_WBo_W, w_WB_B), and its angular part J_angular (w_WB_W = R_WB w_WB_B); the
// drift is the point's acceleration at constant velocity states, w x (w x r) (the angular part's
// drift is zero: d/dt (R w_B) = R (w_B x w_B) = 0).
struct PointJacobian {
  Mat6 jacobian = Mat6::Zero();  // rows: linear (m/s), then angular (rad/s); columns: the body's v
  Vec6 drift = Vec6::Zero();     // (m/s^2, rad/s^2)
};
PointJacobian compute_point_jacobian(const BodyKinematics& body, const Vec3& p_W);

}  // namespace hybridsim
