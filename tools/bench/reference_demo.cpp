#include "tools/bench/reference_demo.hpp"

#include <cvode/cvode.h>

#include <algorithm>
#include <cmath>
#include <numbers>

#include "tools/bench/reference_support.hpp"

namespace hybridsim::bench {
namespace {

// Scene constants (models/scenes/bouncing_sphere.yaml).
constexpr double kRadius = 0.1, kDensity = 8000.0, kYoungs = 2.0e11, kPoisson = 0.3;
constexpr double kGravity = 9.81, kEps = 1e-13, kRestitution = 0.7, kVSmall = 0.01;
constexpr double kDMax = 2000.0, kMu = 0.5, kMuRolling = 0.001, kWSmall = 0.01;
constexpr double kThinnest = 0.1;  // the plate's thickness

struct Problem {
  double mass, inertia, stiffness, alpha;
  bool in_contact = false;
  double damping = 0.0;
  long rhs_evals = 0;
};

double regularize(double v, double vs) {
  return v >= vs ? v : v * v / vs * (1.0 - v / (3.0 * vs)) + vs / 3.0;
}

// Root of (1 + e) a = ln((1 + a) / (1 - e a)) by bisection.
double exact_alpha(double e) {
  double lo = 1e-6 * (1.0 - e), hi = 1.0 / e;
  for (int i = 0; i < 200; ++i) {
    const double mid = 0.5 * (lo + hi);
    const double g = (1.0 + e) * mid - std::log1p(mid) + std::log1p(-e * mid);
    (g > 0.0 ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

int rhs(double, N_Vector yv, N_Vector ydotv, void* data) {
  auto* p = static_cast<Problem*>(data);
  ++p->rhs_evals;
  const double* y = N_VGetArrayPointer(yv);
  double* yd = N_VGetArrayPointer(ydotv);
  const double qw = y[3], qx = y[4], qy = y[5], qz = y[6];
  const double wx = y[10], wy = y[11], wz = y[12];  // body frame

  // Rotation matrix of the normalised quaternion.
  const double n = std::sqrt(qw * qw + qx * qx + qy * qy + qz * qz);
  const double w = qw / n, x = qx / n, yq = qy / n, z = qz / n;
  const double R[3][3] = {{1 - 2 * (yq * yq + z * z), 2 * (x * yq - z * w), 2 * (x * z + yq * w)},
                          {2 * (x * yq + z * w), 1 - 2 * (x * x + z * z), 2 * (yq * z - x * w)},
                          {2 * (x * z - yq * w), 2 * (yq * z + x * w), 1 - 2 * (x * x + yq * yq)}};
  const double wW[3] = {R[0][0] * wx + R[0][1] * wy + R[0][2] * wz,
                        R[1][0] * wx + R[1][1] * wy + R[1][2] * wz,
                        R[2][0] * wx + R[2][1] * wy + R[2][2] * wz};

  double F[3] = {0.0, 0.0, -p->mass * kGravity};
  double T[3] = {0.0, 0.0, 0.0};  // world frame, about the centre
  if (p->in_contact) {
    // Contact point halfway between the plate top (z = 0) and the sphere bottom.
    const double distance = y[2] - kRadius;
    const double delta = std::max(0.0, -(distance + kEps));
    const double rc = -0.5 * (y[2] + kRadius);  // lever arm to C along z
    const double vrel[3] = {y[7] + wW[1] * rc, y[8] - wW[0] * rc, y[9]};
    double fn = p->stiffness * delta * std::sqrt(delta) * (1.0 - p->damping * vrel[2]);
    fn = std::max(fn, 0.0);
    const double slip = std::hypot(vrel[0], vrel[1]);
    const double ft = kMu * fn / regularize(slip, kVSmall);
    const double f[3] = {-ft * vrel[0], -ft * vrel[1], fn};
    F[0] += f[0];
    F[1] += f[1];
    F[2] += f[2];
    T[0] += -rc * f[1];
    T[1] += rc * f[0];
    const double roll = std::hypot(wW[0], wW[1]);
    const double tr = kMuRolling * kRadius * fn / regularize(roll, kWSmall);
    T[0] -= tr * wW[0];
    T[1] -= tr * wW[1];
  }

  // Newton-Euler (a sphere: no gyroscopic term) and quaternion kinematics with stabilisation.
  const double pull = -(qw * qw + qx * qx + qy * qy + qz * qz - 1.0);
  yd[0] = y[7];
  yd[1] = y[8];
  yd[2] = y[9];
  yd[3] = 0.5 * (-qx * wx - qy * wy - qz * wz) + pull * qw;
  yd[4] = 0.5 * (qw * wx + qy * wz - qz * wy) + pull * qx;
  yd[5] = 0.5 * (qw * wy + qz * wx - qx * wz) + pull * qy;
  yd[6] = 0.5 * (qw * wz + qx * wy - qy * wx) + pull * qz;
  yd[7] = F[0] / p->mass;
  yd[8] = F[1] / p->mass;
  yd[9] = F[2] / p->mass;
  for (int i = 0; i < 3; ++i) {
    yd[10 + i] = (R[0][i] * T[0] + R[1][i] * T[1] + R[2][i] * T[2]) / p->inertia;
  }
  return 0;
}

// z1 rises through 0 when the contact ends, z2 falls through 0 when it starts.
int roots(double, N_Vector yv, double* g, void* data) {
  auto* p = static_cast<Problem*>(data);
  const double distance = N_VGetArrayPointer(yv)[2] - kRadius;
  g[0] = p->in_contact ? distance + kEps : -1.0;
  g[1] = p->in_contact ? 1.0 : distance + 3.0 * kEps;
  return 0;
}

// The step may not carry the sphere through half the plate's thickness.
double step_bound(const double* y) {
  const double v = std::sqrt(y[7] * y[7] + y[8] * y[8] + y[9] * y[9]) +
                   std::sqrt(y[10] * y[10] + y[11] * y[11] + y[12] * y[12]) * kRadius;
  const double travel = 0.5 * kThinnest;
  return (-v + std::sqrt(v * v + 4.0 * kGravity * travel)) / (2.0 * kGravity);
}

}  // namespace

ReferenceResult run_reference_demo(double rtol, double atol, double stop_time) {
  Problem p;
  p.mass = kDensity * 4.0 / 3.0 * std::numbers::pi * std::pow(kRadius, 3);
  p.inertia = 0.4 * p.mass * kRadius * kRadius;
  const double c = kYoungs / (1.0 - kPoisson * kPoisson);
  p.stiffness = 0.5 * c * 4.0 / 3.0 * std::sqrt(kRadius);
  p.alpha = exact_alpha(kRestitution);

  PlainCvode solver(13);
  double* s = solver.state();
  s[2] = 1.1;
  s[3] = 1.0;
  solver.start(rhs, roots, &p, rtol, atol);
  void* cvode = solver.cvode();
  check(CVodeSetMaxStep(cvode, step_bound(s)), "CVodeSetMaxStep");

  ReferenceResult result;
  const double dt = 0.01;
  long next_output = 1;
  result.output_z.push_back(s[2]);
  double t = 0.0;
  while (stop_time - t > 1e-14 * stop_time) {
    check(CVodeSetStopTime(cvode, stop_time), "CVodeSetStopTime");
    const int flag = CVode(cvode, stop_time, solver.y(), &t, CV_ONE_STEP);
    check(flag, "CVode");
    // Outputs inside the step from dense output.
    while (true) {
      const double t_out = static_cast<double>(next_output) * dt;
      if (t_out > t + 1e-9 * dt || t_out > stop_time + 1e-9 * dt) break;
      result.output_z.push_back(solver.interpolate(std::min(t_out, t))[2]);
      ++next_output;
    }
    check(CVodeSetMaxStep(cvode, step_bound(s)), "CVodeSetMaxStep");
    if (flag != CV_ROOT_RETURN) continue;
    // Event: contact iff penetrating deeper than 2 eps; a new contact stores v- and its damping.
    const double distance = s[2] - kRadius;
    const bool contact = distance < -2.0 * kEps;
    if (contact && !p.in_contact) {
      const double v_pre = -s[9];
      p.damping = v_pre > kVSmall ? std::min(kDMax, p.alpha / v_pre) : kDMax;
      ++result.contact_starts;
    }
    if (!contact && p.in_contact) ++result.contact_ends;
    p.in_contact = contact;
    const double qn = std::sqrt(s[3] * s[3] + s[4] * s[4] + s[5] * s[5] + s[6] * s[6]);
    for (int i = 3; i < 7; ++i) s[i] /= qn;
    result.steps += solver.steps();
    check(CVodeReInit(cvode, t, solver.y()), "CVodeReInit");
    check(CVodeSetMaxStep(cvode, step_bound(s)), "CVodeSetMaxStep");
  }
  result.steps += solver.steps();
  result.rhs_evals = p.rhs_evals;
  std::copy(s, s + 13, result.final_state.begin());
  return result;
}

}  // namespace hybridsim::bench
