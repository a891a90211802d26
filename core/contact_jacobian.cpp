#include "core/contact_jacobian.hpp"

namespace hybridsim {
namespace {

Mat3 skew(const Vec3& v) {
  Mat3 s;
  s << 0.0, -v.z(), v.y(), v.z(), 0.0, -v.x(), -v.y(), v.x(), 0.0;
  return s;
}

}  // namespace

PointJacobian compute_point_jacobian(const BodyKinematics& body, const Vec3& p_W) {
  // v_p = v_o + w_W x r = v_o - [r]x R w_B, with r from the body origin to p.
  const Mat3& R_WB = body.X_WB.rotation;
  const Vec3 r_W = p_W - body.X_WB.translation;
  PointJacobian point;
  point.jacobian.topLeftCorner<3, 3>() = Mat3::Identity();
  point.jacobian.topRightCorner<3, 3>() = -skew(r_W) * R_WB;
  point.jacobian.bottomRightCorner<3, 3>() = R_WB;
  point.drift.head<3>() = body.w_WB_W.cross(body.w_WB_W.cross(r_W));
  return point;
}

}  // namespace hybridsim
