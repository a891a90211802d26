#include "tools/bench/reference_cradle.hpp"

#include <cvode/cvode.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <numbers>
#include <vector>

#include "tools/bench/reference_support.hpp"

namespace hybridsim::bench {
namespace {

// Scene constants (models/scenes/newtons_cradle.yaml, models/materials.yaml for steel).
constexpr int kBalls = 5, kStates = 13 * kBalls;
constexpr double kRadius = 0.02, kLength = 0.3, kPitch = 0.041, kDensity = 7850.0;
constexpr double kYoungs = 2.0e11, kPoisson = 0.3, kGravity = 9.81, kEps = 1e-13;
constexpr double kPullback = 0.3490658503988659;  // ball 1, rad about +y
constexpr double kStabilization = 50.0;           // Baumgarte omega, 1/s (the model default)

using Vec3 = Eigen::Vector3d;
using Mat3 = Eigen::Matrix3d;
using Mat5 = Eigen::Matrix<double, 5, 5>;
using Vec5 = Eigen::Matrix<double, 5, 1>;

struct Ball {
  Vec3 centre, velocity, w_W, w_B;
  Mat3 R;
};

struct Problem {
  double mass, inertia, stiffness;
  std::array<bool, kBalls * kBalls> in_contact{};  // [i * kBalls + j], i < j
  long rhs_evals = 0;
};

Ball ball_kinematics(const double* s) {
  Ball b;
  const Eigen::Quaterniond q = Eigen::Quaterniond(s[3], s[4], s[5], s[6]).normalized();
  b.R = q.toRotationMatrix();
  b.centre = Vec3(s[0], s[1], s[2]);
  b.velocity = Vec3(s[7], s[8], s[9]);
  b.w_B = Vec3(s[10], s[11], s[12]);
  b.w_W = b.R * b.w_B;
  return b;
}

double surface_distance(const Ball& a, const Ball& b) {
  return (b.centre - a.centre).norm() - 2.0 * kRadius;
}

int rhs(double, N_Vector yv, N_Vector ydotv, void* data) {
  auto* p = static_cast<Problem*>(data);
  ++p->rhs_evals;
  const double* y = N_VGetArrayPointer(yv);
  double* yd = N_VGetArrayPointer(ydotv);
  std::array<Ball, kBalls> balls;
  std::array<Vec3, kBalls> force;
  for (int i = 0; i < kBalls; ++i) {
    balls[i] = ball_kinematics(y + 13 * i);
    force[i] = Vec3(0.0, 0.0, -p->mass * kGravity);
  }
  // Hertz contacts (restitution 1: no damping, no friction); the forces pass through the centres.
  for (int i = 0; i < kBalls; ++i) {
    for (int j = i + 1; j < kBalls; ++j) {
      if (!p->in_contact[i * kBalls + j]) continue;
      const Vec3 d = balls[j].centre - balls[i].centre;
      const double delta = std::max(0.0, -(d.norm() - 2.0 * kRadius + kEps));
      const Vec3 f = p->stiffness * delta * std::sqrt(delta) * d.normalized();
      force[j] += f;
      force[i] -= f;
    }
  }
  for (int i = 0; i < kBalls; ++i) {
    const Ball& b = balls[i];
    const double* s = y + 13 * i;
    double* sd = yd + 13 * i;
    // The revolute joint: the ball's anchor (kLength above its centre in its own frame) stays at
    // the frame's anchor (3 rows), and the ball's y axis stays perpendicular to world x and z.
    const Vec3 anchor(kPitch * i, 0.0, kLength);
    const Vec3 r = b.R * Vec3(0.0, 0.0, kLength);
    const Vec3 axis = b.R * Vec3::UnitY();
    Eigen::Matrix<double, 5, 6> G;
    Vec5 target;
    for (int k = 0; k < 3; ++k) {
      const Vec3 e = Vec3::Unit(k);
      G.row(k) << e.transpose(), r.cross(e).transpose();
      const double g = b.centre[k] + r[k] - anchor[k];
      const double g_dot = (b.velocity + b.w_W.cross(r))[k];
      const double bias = -b.w_W.cross(b.w_W.cross(r))[k];
      target[k] = bias - 2.0 * kStabilization * g_dot - kStabilization * kStabilization * g;
    }
    const Vec3 perpendicular[2] = {Vec3::UnitZ(), Vec3::UnitX()};
    for (int k = 0; k < 2; ++k) {
      const Vec3& w = perpendicular[k];
      const Vec3 axw = axis.cross(w);
      G.row(3 + k) << 0.0, 0.0, 0.0, axw.transpose();
      const double bias = -b.w_W.dot(b.w_W.cross(axis).cross(w));
      target[3 + k] = bias - 2.0 * kStabilization * b.w_W.dot(axw) -
                      kStabilization * kStabilization * axis.dot(w);
    }
    // M nu' = F + G^T lambda with G nu' = target; a sphere has no gyroscopic torque.
    Eigen::Matrix<double, 6, 1> inverse_mass;
    inverse_mass << Vec3::Constant(1.0 / p->mass), Vec3::Constant(1.0 / p->inertia);
    Eigen::Matrix<double, 6, 1> nu_dot;
    nu_dot << force[i] / p->mass, Vec3::Zero();
    const Mat5 A = G * inverse_mass.asDiagonal() * G.transpose();
    const Vec5 lambda = A.ldlt().solve(target - G * nu_dot);
    nu_dot += inverse_mass.asDiagonal() * (G.transpose() * lambda);

    const double qw = s[3], qx = s[4], qy = s[5], qz = s[6];
    const double pull = -(qw * qw + qx * qx + qy * qy + qz * qz - 1.0);
    const Vec3& w = b.w_B;
    sd[0] = s[7];
    sd[1] = s[8];
    sd[2] = s[9];
    sd[3] = 0.5 * (-qx * w.x() - qy * w.y() - qz * w.z()) + pull * qw;
    sd[4] = 0.5 * (qw * w.x() + qy * w.z() - qz * w.y()) + pull * qx;
    sd[5] = 0.5 * (qw * w.y() + qz * w.x() - qx * w.z()) + pull * qy;
    sd[6] = 0.5 * (qw * w.z() + qx * w.y() - qy * w.x()) + pull * qz;
    const Vec3 w_dot_B = b.R.transpose() * nu_dot.tail<3>();
    for (int k = 0; k < 3; ++k) {
      sd[7 + k] = nu_dot[k];
      sd[10 + k] = w_dot_B[k];
    }
  }
  return 0;
}

// z1 rises through 0 when a contact ends, z2 falls through 0 when one starts (design.md §4).
int roots(double, N_Vector yv, double* g, void* data) {
  const auto* p = static_cast<Problem*>(data);
  const double* y = N_VGetArrayPointer(yv);
  double z1 = -1.0, z2 = 1.0;
  bool any_contact = false, any_apart = false;
  for (int i = 0; i < kBalls; ++i) {
    for (int j = i + 1; j < kBalls; ++j) {
      const Vec3 ci(y[13 * i], y[13 * i + 1], y[13 * i + 2]);
      const Vec3 cj(y[13 * j], y[13 * j + 1], y[13 * j + 2]);
      const double d = (cj - ci).norm() - 2.0 * kRadius;
      if (p->in_contact[i * kBalls + j]) {
        z1 = any_contact ? std::max(z1, d + kEps) : d + kEps;
        any_contact = true;
      } else {
        z2 = any_apart ? std::min(z2, d + 3.0 * kEps) : d + 3.0 * kEps;
        any_apart = true;
      }
    }
  }
  g[0] = z1;
  g[1] = z2;
  return 0;
}

// A step may not carry a ball through its own radius (half the thinnest shape).
double step_bound(const double* y) {
  double bound = 1e300;
  for (int i = 0; i < kBalls; ++i) {
    const Ball b = ball_kinematics(y + 13 * i);
    const double v = b.velocity.norm() + b.w_W.norm() * kRadius;
    const double travel = kRadius;
    bound = std::min(bound, (-v + std::sqrt(v * v + 4.0 * kGravity * travel)) / (2.0 * kGravity));
  }
  return bound;
}

}  // namespace

CradleResult run_reference_cradle(double rtol, double atol, double stop_time,
                                  double output_interval) {
  Problem p;
  p.mass = kDensity * 4.0 / 3.0 * std::numbers::pi * std::pow(kRadius, 3);
  p.inertia = 0.4 * p.mass * kRadius * kRadius;
  const double c = kYoungs / (1.0 - kPoisson * kPoisson);
  p.stiffness = 0.5 * c * 4.0 / 3.0 * std::sqrt(0.5 * kRadius);

  PlainCvode solver(kStates);
  double* s = solver.state();
  for (int i = 0; i < kBalls; ++i) {
    double* b = s + 13 * i;
    const double angle = i == 0 ? kPullback : 0.0;
    b[0] = kPitch * i - kLength * std::sin(angle);
    b[2] = kLength * (1.0 - std::cos(angle));
    b[3] = std::cos(0.5 * angle);
    b[5] = std::sin(0.5 * angle);
  }
  solver.start(rhs, roots, &p, rtol, atol);
  void* cvode = solver.cvode();
  check(CVodeSetMaxStep(cvode, step_bound(s)), "CVodeSetMaxStep");

  CradleResult result;
  std::vector<double> outputs;  // every state at every output, as a host would keep them
  outputs.reserve(static_cast<std::size_t>(stop_time / output_interval + 2) * kStates);
  outputs.insert(outputs.end(), s, s + kStates);
  long next_output = 1;
  double t = 0.0;
  check(CVodeSetStopTime(cvode, stop_time), "CVodeSetStopTime");
  while (stop_time - t > 1e-14 * stop_time) {
    const int flag = CVode(cvode, stop_time, solver.y(), &t, CV_ONE_STEP);
    check(flag, "CVode");
    while (true) {
      const double t_out = static_cast<double>(next_output) * output_interval;
      if (t_out > t + 1e-9 * output_interval || t_out > stop_time + 1e-9 * output_interval) break;
      const double* out = solver.interpolate(std::min(t_out, t));
      outputs.insert(outputs.end(), out, out + kStates);
      ++next_output;
    }
    check(CVodeSetMaxStep(cvode, step_bound(s)), "CVodeSetMaxStep");
    if (flag != CV_ROOT_RETURN) continue;
    // Event: a pair is in contact iff it penetrates deeper than 2 eps (no damping: v- unused).
    for (int i = 0; i < kBalls; ++i) {
      for (int j = i + 1; j < kBalls; ++j) {
        const bool contact = surface_distance(ball_kinematics(s + 13 * i),
                                              ball_kinematics(s + 13 * j)) < -2.0 * kEps;
        bool& was = p.in_contact[i * kBalls + j];
        if (contact && !was) ++result.contact_starts;
        if (!contact && was) ++result.contact_ends;
        was = contact;
      }
    }
    for (int i = 0; i < kBalls; ++i) {
      double* q = s + 13 * i + 3;
      const double norm = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
      for (int k = 0; k < 4; ++k) q[k] /= norm;
    }
    result.steps += solver.steps();
    check(CVodeReInit(cvode, t, solver.y()), "CVodeReInit");
    check(CVodeSetStopTime(cvode, stop_time), "CVodeSetStopTime");
    check(CVodeSetMaxStep(cvode, step_bound(s)), "CVodeSetMaxStep");
  }
  result.steps += solver.steps();
  result.rhs_evals = p.rhs_evals;
  result.outputs = static_cast<long>(outputs.size() / kStates);
  for (int i = 0; i < kBalls; ++i) {
    result.final_x[i] = s[13 * i];
    result.final_vx[i] = s[13 * i + 7];
  }
  return result;
}

}  // namespace hybridsim::bench
