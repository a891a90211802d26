// A whole-body controller's contact problem, as on the controller page behind hybridsim's contact
// API: a steel box is held against a vertical wall by friction. Every control period the host
// reads each contact point's Jacobian J_i, drift J_i' v and linearised friction cone C_i, and
// solves a small quadratic programme for the push p of a pusher that presses the box's centre of
// mass straight into the wall (u = -p n, p >= 0) and the contact forces f_i that keep it still:
//
//   minimise   p^2 + eps sum |f_i|^2
//   subject to M a = h + sum J_i^T f_i - p n        (Newton-Euler in the generalised velocities)
//              C_i f_i <= 0, p >= 0                  (f_i inside its inscribed 6-edge pyramid)
//
// with the desired acceleration a the least-squares solution of J_i a + J_i' v = -k J_i v (the
// contact points brought to rest). The wall takes the forces through hybridsim's compliant contact
// law; the controller only chooses u. The QP is solved by a primal-dual interior-point method
// written with Eigen (13 variables, 6 equalities, 25 inequalities).
//
// The box must stay in place: the example exits non-zero if it moves more than 0.1 mm in 2 s, or
// if the push differs from the closed form by more than 1 %. The closed form: the wall's normal
// is x, so the pyramids' first tangent is the horizontal y and the vertical is one of their
// edges (at 90 degrees, between the faces at 60 and 120), where the inscribed pyramid reaches
// the circular cone: the friction carries m g when p = m g / mu_c.
#include <cmath>
#include <cstdio>
#include <vector>

#include <Eigen/Dense>

#include "hybridsim/hybridsim.hpp"

namespace {

// The wall fills x < 0; the cube (0.1 m, steel, 7.85 kg) touches its face with 1 um of overlap,
// so that its four corner points are in contact from the start. Regularised Coulomb friction with
// v_small = 1e-5 m/s: the box creeps at most at a fraction of v_small while friction holds.
constexpr const char* kScene = R"(
name: hold_box
description: a box held against a wall by friction, the push chosen by a QP controller
gravity: [0, 0, -9.81]
contact: {points: manifold}
simulation: {stop_time: 2.0, integrator: cvode-bdf, rtol: 1.0e-8, atol: 1.0e-10}
materials:
  Steel: {density: 7850, youngs_modulus: 2.0e11, poisson_ratio: 0.3}
contact_materials:
  - pair: [Steel, Steel]
    restitution: 0.2
    friction: {model: regularized_coulomb, mu_kinetic: 0.5, v_small: 1.0e-5}
inputs:
  - {name: push, target: {body: box, kind: force}, signal: {constant: [0, 0, 0]}}
bodies:
  - name: wall
    fixed: true
    position: [-0.5, 0, 0]
    shapes: [{type: box, size: [1.0, 1.0, 1.0], material: Steel}]
  - name: box
    position: [0.049999, 0, 0]
    shapes: [{type: box, size: [0.1, 0.1, 0.1], material: Steel}]
)";

// min 1/2 z^T H z subject to A z = b, G z <= 0, by a primal-dual interior-point method (Nocedal
// and Wright, Numerical Optimization, 2nd ed., section 16.6) with slacks s = -G z > 0.
Eigen::VectorXd solve_qp(const Eigen::MatrixXd& H, const Eigen::MatrixXd& A,
                         const Eigen::VectorXd& b, const Eigen::MatrixXd& G) {
  const Eigen::Index n = H.rows();
  const Eigen::Index m = A.rows();
  const Eigen::Index p = G.rows();
  Eigen::VectorXd z = Eigen::VectorXd::Zero(n);
  Eigen::VectorXd y = Eigen::VectorXd::Zero(m);
  Eigen::VectorXd s = Eigen::VectorXd::Ones(p);
  Eigen::VectorXd lambda = Eigen::VectorXd::Ones(p);
  for (int iteration = 0; iteration < 100; ++iteration) {
    const Eigen::VectorXd r_dual = H * z + A.transpose() * y + G.transpose() * lambda;
    const Eigen::VectorXd r_eq = A * z - b;
    const Eigen::VectorXd r_in = G * z + s;
    const double gap = s.dot(lambda) / static_cast<double>(p);
    if (r_dual.norm() < 1e-10 && r_eq.norm() < 1e-10 * (1.0 + b.norm()) && r_in.norm() < 1e-10 &&
        gap < 1e-12) {
      break;
    }
    const Eigen::VectorXd r_comp =
        (s.array() * lambda.array()).matrix() - Eigen::VectorXd::Constant(p, 0.1 * gap);
    // Eliminate ds = -r_in - G dz and dlambda = (-r_comp - lambda ds) / s.
    const Eigen::ArrayXd D = lambda.array() / s.array();
    Eigen::MatrixXd K = Eigen::MatrixXd::Zero(n + m, n + m);
    K.topLeftCorner(n, n) = H + G.transpose() * D.matrix().asDiagonal() * G;
    K.topRightCorner(n, m) = A.transpose();
    K.bottomLeftCorner(m, n) = A;
    Eigen::VectorXd rhs(n + m);
    rhs.head(n) =
        -r_dual -
        G.transpose() * ((-r_comp.array() + lambda.array() * r_in.array()) / s.array()).matrix();
    rhs.tail(m) = -r_eq;
    const Eigen::VectorXd step = K.fullPivLu().solve(rhs);
    const Eigen::VectorXd dz = step.head(n);
    const Eigen::VectorXd dy = step.tail(m);
    const Eigen::VectorXd ds = -r_in - G * dz;
    const Eigen::VectorXd dlambda =
        ((-r_comp.array() - lambda.array() * ds.array()) / s.array()).matrix();
    // The largest step that keeps s and lambda positive (fraction to the boundary 0.99).
    double alpha = 1.0;
    for (Eigen::Index i = 0; i < p; ++i) {
      if (ds[i] < 0.0) alpha = std::fmin(alpha, -0.99 * s[i] / ds[i]);
      if (dlambda[i] < 0.0) alpha = std::fmin(alpha, -0.99 * lambda[i] / dlambda[i]);
    }
    z += alpha * dz;
    y += alpha * dy;
    s += alpha * ds;
    lambda += alpha * dlambda;
  }
  return z;
}

}  // namespace

int main() {
  using hybridsim::Vec3;
  hybridsim::Simulator simulator(hybridsim::load_scene_text(kScene, "hold_box.yaml"));
  const hybridsim::Model& model = simulator.model();
  const hybridsim::Body& box = model.bodies[static_cast<std::size_t>(model.find_body("box"))];
  const int nv = simulator.velocity_size();             // 6: the box's origin velocity, w in B
  const int column = simulator.velocity_column("box");  // 0
  const double mu_controller = 0.8 * 0.5;  // the controller's friction: 80 % of the wall's
  const double gain = 20.0;                // 1/s, the rate at which contact motion is damped
  const double period = 0.005;             // s
  const Vec3 start = simulator.body_state("box").position_W;
  double push_normal = 0.0;

  Eigen::MatrixXd J(6, nv);
  hybridsim::Vec6 drift;
  for (double t = period; t <= model.simulation.stop_time + 1e-9; t += period) {
    const std::vector<hybridsim::ContactResult> contacts = simulator.contact_results();
    const auto k = static_cast<Eigen::Index>(contacts.size());
    if (k == 0) {
      std::fprintf(stderr, "hold_box: the box lost the wall at t = %g s\n", simulator.time());
      return 1;
    }
    // Stacked contact rows (linear parts), drifts and cones.
    Eigen::MatrixXd J_stack(3 * k, nv);
    Eigen::VectorXd drift_stack(3 * k);
    Eigen::MatrixXd G = Eigen::MatrixXd::Zero(6 * k + 1, 3 * k + 1);
    Vec3 n_wall = Vec3::Zero();
    for (Eigen::Index i = 0; i < k; ++i) {
      const hybridsim::ContactResult& c = contacts[static_cast<std::size_t>(i)];
      simulator.contact_jacobian(c.pair, c.slot, J, drift);
      J_stack.middleRows(3 * i, 3) = J.topRows(3);
      drift_stack.segment(3 * i, 3) = drift.head<3>();
      hybridsim::Simulator::ContactFrame frame = simulator.contact_frame(c.pair, c.slot);
      frame.mu = mu_controller;
      G.block(6 * i, 3 * i, 6, 3) = hybridsim::Simulator::friction_cone(frame, 6);
      n_wall = frame.normal_W;  // from the wall (A) to the box (B)
    }
    G(6 * k, 3 * k) = -1.0;  // p >= 0
    // The box's velocities v (origin in W, w in B) and its mass matrix in them (centre of mass at
    // the origin: M = diag(m I, I_B)); h: gravity and the gyroscopic torque.
    const Eigen::VectorXd v = simulator.state().segment<6>(box.state_offset + 7);
    Eigen::MatrixXd M = Eigen::MatrixXd::Zero(nv, nv);
    M.block<3, 3>(column, column) = box.mass * hybridsim::Mat3::Identity();
    M.block<3, 3>(column + 3, column + 3) = box.inertia_com_B;
    Eigen::VectorXd h = Eigen::VectorXd::Zero(nv);
    const Vec3 w_B = v.tail<3>();
    h.segment<3>(column) = box.mass * model.gravity_W;
    h.segment<3>(column + 3) = -w_B.cross(box.inertia_com_B * w_B);
    // Desired acceleration: the contact points come to rest, J a = -J' v - k J v.
    const Eigen::VectorXd a =
        J_stack.colPivHouseholderQr().solve(-drift_stack - gain * (J_stack * v));
    // QP in z = (f_1 .. f_k, p).
    const Eigen::Index n = 3 * k + 1;
    Eigen::MatrixXd H = 1e-6 * Eigen::MatrixXd::Identity(n, n);
    H(n - 1, n - 1) = 1.0;
    Eigen::MatrixXd A = Eigen::MatrixXd::Zero(nv, n);
    A.leftCols(3 * k) = J_stack.transpose();
    A.block<3, 1>(column, 3 * k) = -n_wall;  // the push at the centre of mass, into the wall
    const Eigen::VectorXd z = solve_qp(H, A, M * a - h, G);
    push_normal = z[n - 1];
    simulator.set_input("push", -push_normal * n_wall);
    if (simulator.advance_to(t).status != hybridsim::SimulationStatus::ok) {
      std::fprintf(stderr, "hold_box: %s\n", simulator.status_message().c_str());
      return 1;
    }
  }
  const double moved = (simulator.body_state("box").position_W - start).norm();
  // The least push: the weight carried along the pyramids' vertical edge.
  const double expected = box.mass * 9.81 / mu_controller;
  std::printf(
      "hold_box: %zu contact points, push %.6g N (closed form %.6g N), moved %.3g m in %g s\n",
      simulator.contact_results().size(), push_normal, expected, moved, model.simulation.stop_time);
  return moved < 1e-4 && std::abs(push_normal / expected - 1.0) < 0.01 ? 0 : 1;
}
