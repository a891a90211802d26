#include "models/closed_form.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>

#include <fmt/format.h>

#include "core/errors.hpp"
#include "core/rigid_body.hpp"

namespace hybridsim {
namespace {

// The arithmetic-geometric mean of 1 and sqrt(1 - m), with the c_n of each stage (A&S 16.4.1):
// c_n shrinks quadratically, so a dozen stages reach round-off for any m below 1 - 1e-300.
struct AgmStages {
  static constexpr int kMax = 16;
  std::array<double, kMax + 1> a{}, c{};
  int count = 0;  // stages N after the start
};

AgmStages arithmetic_geometric_mean(double m) {
  AgmStages stages;
  double a = 1.0, b = std::sqrt(1.0 - m);
  stages.a[0] = a;
  stages.c[0] = std::sqrt(m);
  while (stages.count < AgmStages::kMax && std::abs(stages.c[stages.count]) > 1e-17 * a) {
    const double next_a = 0.5 * (a + b);
    const double next_c = 0.5 * (a - b);
    b = std::sqrt(a * b);
    a = next_a;
    ++stages.count;
    stages.a[stages.count] = a;
    stages.c[stages.count] = next_c;
  }
  return stages;
}

[[noreturn]] void no_closed_form(const Model& model, const std::string& reason) {
  throw InputError(fmt::format("scene '{}' has no closed form: {}", model.name, reason));
}

// The compound pendulum of the header, after its preconditions are checked.
ClosedForm compound_pendulum(const Model& model) {
  const Joint& joint = model.joints.front();
  const Body& parent = model.bodies[joint.parent];
  const Body& body = model.bodies[joint.child];
  const int offset = body.state_offset;

  // Axis and anchor in world (the parent is fixed), the initial centre of mass and inertia.
  const Mat3 R_WP = parent.q_WB.toRotationMatrix();
  const Vec3 axis_W = (R_WP * joint.axis_P).normalized();
  const Vec3 p_WJ = parent.p_WB + R_WP * joint.p_PJ_P;
  const Mat3 R_WB0 = body.q_WB.toRotationMatrix();
  const Vec3 p_WCom0 = body.p_WB + R_WB0 * body.p_BCom_B;
  const Vec3 r0 = p_WCom0 - p_WJ;
  const Vec3 r_normal = r0 - r0.dot(axis_W) * axis_W;  // centre of mass off the axis, m
  const Vec3 g_normal = model.gravity_W - model.gravity_W.dot(axis_W) * axis_W;
  const double d = r_normal.norm();
  const double g_n = g_normal.norm();
  const Vec3 axis_B = R_WB0.transpose() * axis_W;
  const double inertia_axis = axis_B.dot(body.inertia_com_B * axis_B) + body.mass * d * d;

  // phi0: from "down" (g_normal) to r_normal, positive about the axis.
  double phi0 = 0.0;
  if (d > 0.0 && g_n > 0.0) {
    phi0 = std::atan2(g_normal.cross(r_normal).dot(axis_W), g_normal.dot(r_normal));
  }
  if (std::abs(phi0) > std::numbers::pi - 1e-6) {
    no_closed_form(model, "the pendulum starts upside down (an unstable equilibrium)");
  }
  const double w0 = std::sqrt(body.mass * g_n * d / inertia_axis);
  const double k = std::sin(0.5 * phi0);
  const double m = k * k;

  ClosedForm form;
  form.name = "compound_pendulum";
  const double K = complete_elliptic_k(m);
  form.period = w0 > 0.0 ? 4.0 * K / w0 : kInfinity;
  form.description = fmt::format(
      "compound pendulum released from rest at {:.9g} rad: w0 = {:.9g} rad/s, period {:.9g} s "
      "(Jacobi elliptic functions)",
      phi0, w0, form.period);
  const Quat q_WB0 = body.q_WB.normalized();
  const Vec3 p_WB0 = body.p_WB;
  const int state_size = model.state_size;
  form.state = [=](double t, VectorRef x) {
    if (x.size() != state_size) throw InputError("closed form: the state has the wrong size");
    // The angle and its rate from the elliptic solution.
    const JacobiElliptic e = jacobi_elliptic(w0 * t, m);
    const double half_sine = k * e.cn / e.dn;
    const double phi = 2.0 * std::asin(std::clamp(half_sine, -1.0, 1.0));
    const double phi_rate = -2.0 * k * w0 * (1.0 - m) * e.sn / (e.dn * e.dn * std::cos(0.5 * phi));
    // The body turned by phi - phi0 about the axis through the anchor.
    const Eigen::AngleAxisd turn(phi - phi0, axis_W);
    const Quat q_WB = Quat(turn) * q_WB0;
    const Vec3 p_WB = p_WJ + turn * (p_WB0 - p_WJ);
    const Vec3 w_WB_W = phi_rate * axis_W;
    const Vec3 w_WB_B = q_WB.conjugate() * w_WB_W;
    const Vec3 v_WB_W = w_WB_W.cross(p_WB - p_WJ);
    x.segment<3>(offset) = p_WB;
    x.segment<4>(offset + 3) << q_WB.w(), q_WB.x(), q_WB.y(), q_WB.z();
    x.segment<3>(offset + kFreeBodyVelocityOffset) = v_WB_W;
    x.segment<3>(offset + kFreeBodyVelocityOffset + 3) = w_WB_B;
  };
  return form;
}

}  // namespace

double complete_elliptic_k(double m) {
  const AgmStages stages = arithmetic_geometric_mean(m);
  return std::numbers::pi / (2.0 * stages.a[stages.count]);
}

JacobiElliptic jacobi_elliptic(double u, double m) {
  if (!(m >= 0.0 && m < 1.0)) {
    throw InputError(fmt::format("Jacobi elliptic functions: parameter m = {} not in [0, 1)", m));
  }
  const AgmStages stages = arithmetic_geometric_mean(m);
  const int n = stages.count;
  // Reduce u by the period 4K, so that the amplitude below stays small and accurate.
  const double period = 2.0 * std::numbers::pi / stages.a[n];
  u = std::fmod(u, period);
  if (n == 0) return {std::sin(u), std::cos(u), 1.0};  // m = 0: circular functions

  // Descending Landen: phi_N = 2^N a_N u, phi_{n-1} = (phi_n + asin(c_n / a_n sin phi_n)) / 2.
  double phi = std::ldexp(stages.a[n] * u, n);
  double phi_previous = phi;
  for (int i = n; i >= 1; --i) {
    phi_previous = phi;
    phi = 0.5 * (phi + std::asin(stages.c[i] / stages.a[i] * std::sin(phi)));
  }
  // phi = phi_0, phi_previous = phi_1.
  return {std::sin(phi), std::cos(phi), std::cos(phi) / std::cos(phi_previous - phi)};
}

ClosedForm find_closed_form(const Model& model) {
  // The one closed form offered: a compound pendulum (header). Each precondition that fails is
  // the reason given.
  int free_bodies = 0;
  for (const Body& body : model.bodies) free_bodies += body.fixed ? 0 : 1;
  if (free_bodies != 1 || model.joints.size() != 1) {
    no_closed_form(model, "the closed forms need one free body on one joint (a compound pendulum)");
  }
  const Joint& joint = model.joints.front();
  if (joint.type != JointType::revolute || !model.bodies[joint.parent].fixed) {
    no_closed_form(model, "the joint must be revolute with a fixed parent");
  }
  if (joint.input >= 0 || joint.stiffness != 0.0 || joint.damping != 0.0 || !model.inputs.empty() ||
      joint.friction != 0.0 || joint.limit.enabled) {
    no_closed_form(model,
                   "inputs, joint springs, dampers, friction and limits have no closed form here");
  }
  const int shape_count = static_cast<int>(model.shapes.size());
  for (int a = 0; a < shape_count; ++a) {
    for (int b = a + 1; b < shape_count; ++b) {
      if (model.may_collide(a, b)) {
        no_closed_form(model, fmt::format("shapes {} and {} may touch", model.shape_label(a),
                                          model.shape_label(b)));
      }
    }
  }
  const Body& body = model.bodies[joint.child];
  if (body.v_WB_W.norm() > 0.0 || body.w_WB_W.norm() > 0.0) {
    no_closed_form(model, "the pendulum must be released from rest");
  }
  return compound_pendulum(model);
}

}  // namespace hybridsim
