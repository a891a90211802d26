// Contact kinematics for controllers (seed 003): the contact Jacobian against body twists, its
// drift against a finite difference along the motion, linearised friction cones against the
// polyhedral cone of their generators, and the API's errors, sizes and allocations.
#include <doctest/doctest.h>

#include <cmath>
#include <numbers>
#include <random>
#include <string>

#include "core/contact_jacobian.hpp"
#include "core/errors.hpp"
#include "core/friction_cone.hpp"
#include "counting_allocator.hpp"
#include "hybridsim/hybridsim.h"
#include "hybridsim/simulator.hpp"
#include "test_support.hpp"

namespace hybridsim {
namespace {

using testing::relative;

// Free bodies touching: a steel box (four manifold points) on a free slab that rests on a fixed
// plate, and a ball on the box; and a jointed body: a pendulum bob hanging against a free block.
// Zero gravity and the initial overlaps make every pair start in contact.
constexpr const char* kScene = R"(
gravity: [0, 0, 0]
contact: {points: manifold}
simulation: {stop_time: 1.0}
contact_materials:
  - pair: [Steel, Steel]
    restitution: 0.5
    friction: {model: regularized_coulomb, mu_kinetic: 0.4, mu2: 0.3}
bodies:
  - name: ground
    fixed: true
    shapes: [{type: halfspace, material: Steel}]
  - name: slab
    position: [0, 0, 0.0499]
    shapes: [{type: box, size: [0.6, 0.6, 0.1], material: Steel}]
  - name: box
    position: [0.05, -0.02, 0.1498]
    orientation: {rpy: [0, 0, 0.3]}
    shapes: [{type: box, size: [0.2, 0.2, 0.1], material: Steel}]
  - name: ball
    position: [0.06, -0.01, 0.2497]
    shapes: [{type: sphere, radius: 0.05, material: Steel}]
  - name: bob
    position: [1, 0, 0.5]
    shapes: [{type: sphere, radius: 0.05, material: Steel}]
  - name: block
    position: [1.0999, 0, 0.5]
    shapes: [{type: box, size: [0.1, 0.1, 0.1], material: Steel}]
joints:
  - {name: hinge, type: revolute, parent: ground, child: bob, anchor: [1, 0, 1.5], axis: [0, 1, 0]}
)";

// The generalised velocities v of a state: its velocity entries, 6 per free body.
VectorX generalised_velocities(const Model& model, const VectorX& x) {
  VectorX v(6 * (model.state_size / kFreeBodyStateSize));
  for (const Body& body : model.bodies) {
    if (body.fixed) continue;
    const int column = 6 * (body.state_offset / kFreeBodyStateSize);
    v.segment<6>(column) = x.segment<6>(body.state_offset + kFreeBodyVelocityOffset);
  }
  return v;
}

// A random state near x0: positions moved by up to 1 mm, orientations turned by up to 0.05 rad,
// velocities in [-2, 2] m/s and rad/s.
VectorX random_state(const Model& model, const VectorX& x0, std::mt19937& random) {
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  VectorX x = x0;
  for (const Body& body : model.bodies) {
    if (body.fixed) continue;
    double* s = x.data() + body.state_offset;
    for (int i = 0; i < 3; ++i) s[i] += 1e-3 * unit(random);
    const Vec3 turn(unit(random), unit(random), unit(random));
    const Quat q = (Quat(Eigen::AngleAxisd(0.05 * unit(random), turn.normalized())) *
                    quaternion_from_wxyz(s + 3))
                       .normalized();
    s[3] = q.w();
    s[4] = q.x();
    s[5] = q.y();
    s[6] = q.z();
    for (int i = kFreeBodyVelocityOffset; i < kFreeBodyStateSize; ++i) s[i] = 2.0 * unit(random);
  }
  return x;
}

// The dense 6 x nv Jacobian of a contact from the system's per-body blocks, as the API builds it.
Eigen::MatrixXd dense_jacobian(const MultibodySystem& system,
                               const MultibodySystem::ContactJacobian& c) {
  Eigen::MatrixXd J = Eigen::MatrixXd::Zero(6, system.velocity_size());
  const int column_a = system.velocity_column(c.frame.body_a);
  const int column_b = system.velocity_column(c.frame.body_b);
  if (column_b >= 0) J.middleCols<6>(column_b) += c.point_B.jacobian;
  if (column_a >= 0) J.middleCols<6>(column_a) -= c.point_A.jacobian;
  return J;
}

// x moved along its own velocities for time h: p += h v_o, q = q exp(h w_B / 2) (the state's
// velocities held constant, the motion the drift term differentiates along).
VectorX move_along(const Model& model, const VectorX& x, double h) {
  VectorX moved = x;
  for (const Body& body : model.bodies) {
    if (body.fixed) continue;
    double* s = moved.data() + body.state_offset;
    const double* v = x.data() + body.state_offset + kFreeBodyVelocityOffset;
    for (int i = 0; i < 3; ++i) s[i] += h * v[i];
    const Vec3 w_B(v[3], v[4], v[5]);
    const double angle = h * w_B.norm();
    const Quat turn =
        w_B.norm() > 0.0 ? Quat(Eigen::AngleAxisd(angle, w_B.normalized())) : Quat::Identity();
    const Quat q = quaternion_from_wxyz(s + 3) * turn;
    s[3] = q.w();
    s[4] = q.x();
    s[5] = q.y();
    s[6] = q.z();
  }
  return moved;
}

TEST_CASE("contact jacobian: J v is the relative velocity of the witness points") {
  const Model model = load_scene_text(kScene, "jacobian_scene.yaml");
  MultibodySystem system(model);
  VectorX x0(model.state_size);
  system.initial_state(x0);
  system.initialize(0.0, x0);
  const ContactDict contacts = system.contact_handler().contacts();
  // slab-ground (4 points), box-slab (4), ball-box (1), bob-block (1).
  REQUIRE(contacts.size() == 10);
  std::mt19937 random(2026);
  double worst = 0.0;
  for (int trial = 0; trial < 200; ++trial) {
    const VectorX x = random_state(model, x0, random);
    const VectorX v = generalised_velocities(model, x);
    const std::span<const BodyKinematics> kinematics = system.compute_kinematics(x);
    std::vector<BodyKinematics> bodies(kinematics.begin(), kinematics.end());
    for (const auto& [id, pair] : contacts) {
      MultibodySystem::ContactJacobian c;
      REQUIRE(system.compute_contact_jacobian(x, id, c));
      // Independently: each witness point moves with its body's centre-of-mass velocity and
      // angular velocity (core/rigid_body.hpp), not through the origin and the body-frame w.
      const BodyKinematics& A = bodies[c.frame.body_a];
      const BodyKinematics& B = bodies[c.frame.body_b];
      Vec6 expected;
      expected << velocity_of_point(B, c.frame.witness_B_W) -
                      velocity_of_point(A, c.frame.witness_A_W),
          B.w_WB_W - A.w_WB_W;
      const Vec6 achieved = dense_jacobian(system, c) * v;
      // Velocities of order 1 m/s: round-off of a few 1e-16 per term.
      const double error = (achieved - expected).norm() / (1.0 + expected.norm());
      worst = std::max(worst, error);
    }
  }
  CHECK(worst < 1e-12);
}

TEST_CASE("contact jacobian: the drift J' v is the rate of J v along the motion") {
  // The witness points held as material points of their bodies (a controller's link points);
  // central difference (J(x + h) - J(x - h)) v / 2h with h = 1e-4 s: truncation O(h^2 w^3 r)
  // ~ 1e-9 and round-off 1e-16 / h ~ 1e-12, against the 1e-6 asked for.
  const Model model = load_scene_text(kScene, "jacobian_scene.yaml");
  MultibodySystem system(model);
  VectorX x0(model.state_size);
  system.initial_state(x0);
  system.initialize(0.0, x0);
  const ContactDict contacts = system.contact_handler().contacts();
  std::mt19937 random(7);
  const double h = 1e-4;
  double worst = 0.0;
  for (int trial = 0; trial < 50; ++trial) {
    const VectorX x = random_state(model, x0, random);
    const VectorX v = generalised_velocities(model, x);
    for (const auto& [id, pair] : contacts) {
      MultibodySystem::ContactJacobian c;
      REQUIRE(system.compute_contact_jacobian(x, id, c));
      const std::span<const BodyKinematics> now = system.compute_kinematics(x);
      // The witness points in their body frames.
      const Vec3 p_A = now[c.frame.body_a].X_WB.rotation.transpose() *
                       (c.frame.witness_A_W - now[c.frame.body_a].X_WB.translation);
      const Vec3 p_B = now[c.frame.body_b].X_WB.rotation.transpose() *
                       (c.frame.witness_B_W - now[c.frame.body_b].X_WB.translation);
      auto jacobian_at = [&](const VectorX& state) {
        const std::span<const BodyKinematics> k = system.compute_kinematics(state);
        MultibodySystem::ContactJacobian moved = c;
        moved.point_A =
            compute_point_jacobian(k[c.frame.body_a], k[c.frame.body_a].X_WB.transform_point(p_A));
        moved.point_B =
            compute_point_jacobian(k[c.frame.body_b], k[c.frame.body_b].X_WB.transform_point(p_B));
        return dense_jacobian(system, moved);
      };
      const Vec6 difference =
          (jacobian_at(move_along(model, x, h)) * v - jacobian_at(move_along(model, x, -h)) * v) /
          (2.0 * h);
      const Vec6 drift = c.point_B.drift - c.point_A.drift;
      worst = std::max(worst, (difference - drift).norm() / (1e-3 + drift.norm()));
    }
  }
  CHECK(worst < 1e-6);
}

// Whether f lies in the polyhedral cone spanned by the generators g_i = n + mu_g (cos a_i t1 +
// sin a_i t2), a_i = 2 pi (i + 1/2) / k (between the faces of compute_friction_cone), mu_g =
// mu_face / cos(pi / k): f_t lies in the sector of two neighbouring generators, as
// c_i u_i + c_j u_j with c >= 0, and f is in the cone when (c_i + c_j) / mu_g <= f_n.
bool in_generator_cone(const Vec3& f, const Vec3& n, const Vec3& t1, double mu_face, int k) {
  const Vec3 t2 = n.cross(t1);
  const double f_n = f.dot(n);
  const double f1 = f.dot(t1);
  const double f2 = f.dot(t2);
  if (f_n < 0.0) return false;
  const double mu_g = mu_face / std::cos(std::numbers::pi / k);
  double angle = std::atan2(f2, f1);
  if (angle < 0.0) angle += 2.0 * std::numbers::pi;
  const double step = 2.0 * std::numbers::pi / k;
  // The sector [a_i, a_i + step] that holds the angle (a_{-1} = -step/2 wraps to a_{k-1}).
  const int i = static_cast<int>(std::floor((angle - 0.5 * step) / step + k)) % k;
  const double a_i = step * (i + 0.5);
  const Eigen::Vector2d u_i(std::cos(a_i), std::sin(a_i));
  const Eigen::Vector2d u_j(std::cos(a_i + step), std::sin(a_i + step));
  Eigen::Matrix2d basis;
  basis << u_i, u_j;
  const Eigen::Vector2d c = basis.inverse() * Eigen::Vector2d(f1, f2);
  return (c.x() + c.y()) / mu_g <= f_n;
}

TEST_CASE("friction cones: C f <= 0 exactly inside the pyramid, inscribed in and around the cone") {
  std::mt19937 random(3);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  const double mu = 0.6;
  for (int edges : {3, 4, 6, 8, 13}) {
    const Vec3 n = Vec3(unit(random), unit(random), unit(random)).normalized();
    Vec3 t1 = n.unitOrthogonal();
    Eigen::MatrixX3d inscribed(edges, 3);
    Eigen::MatrixX3d circumscribed(edges, 3);
    Eigen::Matrix<double, Eigen::Dynamic, 3, Eigen::RowMajor> rows(edges, 3);
    compute_friction_cone(n, t1, mu, edges, ConeApproximation::inscribed, rows.data());
    inscribed = rows;
    compute_friction_cone(n, t1, mu, edges, ConeApproximation::circumscribed, rows.data());
    circumscribed = rows;
    int disagreements = 0;
    int inside = 0;
    for (int trial = 0; trial < 10000; ++trial) {
      // Forces around the cone's boundary: normal part in [0, 1], tangential up to 2 mu f_n.
      const double f_n = 0.5 * (1.0 + unit(random));
      const double angle = std::numbers::pi * unit(random);
      const double f_t = mu * f_n * (1.0 + unit(random));
      const Vec3 f = f_n * n + f_t * (std::cos(angle) * t1 + std::sin(angle) * n.cross(t1));
      const bool in_inscribed = (inscribed * f).maxCoeff() <= 0.0;
      const bool in_circumscribed = (circumscribed * f).maxCoeff() <= 0.0;
      // The same test through the generators; forces within 1e-12 of a face count either way.
      const double margin_in = (inscribed * f).maxCoeff();
      if (std::abs(margin_in) > 1e-12 &&
          in_inscribed !=
              in_generator_cone(f, n, t1, mu * std::cos(std::numbers::pi / edges), edges)) {
        ++disagreements;
      }
      const double margin_out = (circumscribed * f).maxCoeff();
      if (std::abs(margin_out) > 1e-12 &&
          in_circumscribed != in_generator_cone(f, n, t1, mu, edges)) {
        ++disagreements;
      }
      const bool in_circle = f_t <= mu * f_n;
      CHECK((!in_inscribed || in_circle));      // inscribed pyramid inside the circular cone
      CHECK((!in_circle || in_circumscribed));  // the circumscribed one contains it
      inside += in_inscribed ? 1 : 0;
    }
    CHECK(disagreements == 0);
    CHECK(inside > 1000);  // the sample covers both sides of the boundary
    if (edges % 2 == 0) {
      // Symmetry: rows i and i + k/2 differ only in the sign of their tangential part.
      for (int i = 0; i < edges / 2; ++i) {
        const Vec3 sum =
            circumscribed.row(i).transpose() + circumscribed.row(i + edges / 2).transpose();
        CHECK((sum + 2.0 * mu * n).norm() < 1e-14);
      }
    }
  }
  double rows[9];
  CHECK_THROWS_AS(compute_friction_cone(Vec3::UnitZ(), Vec3::UnitX(), 0.5, 2,
                                        ConeApproximation::inscribed, rows),
                  InputError);
  CHECK_THROWS_AS(compute_friction_cone(Vec3::UnitZ(), Vec3::UnitZ(), 0.5, 3,
                                        ConeApproximation::inscribed, rows),
                  InputError);
  CHECK_THROWS_AS(compute_friction_cone(Vec3::UnitZ(), Vec3::UnitX(), -1.0, 3,
                                        ConeApproximation::inscribed, rows),
                  InputError);
}

TEST_CASE("contact jacobian api: frames, sizes, stale ids and no allocation per call") {
  Simulator simulator(load_scene_text(kScene, "jacobian_scene.yaml"));
  simulator.advance_to(0.01);
  const std::vector<ContactResult> contacts = simulator.contact_results();
  REQUIRE(contacts.size() == 10);
  const int nv = simulator.velocity_size();
  CHECK(nv == 6 * 5);
  CHECK(simulator.velocity_column("ground") == -1);
  CHECK(simulator.velocity_column("slab") == 0);
  CHECK_THROWS_AS((void)simulator.velocity_column("nonesuch"), InputError);
  Eigen::MatrixXd J(6, nv);
  Vec6 drift;
  const ContactResult& first = contacts.front();
  const Simulator::ContactFrame frame = simulator.contact_frame(first.pair, first.slot);
  CHECK(frame.mu == 0.4);
  CHECK(frame.mu2 == 0.3);
  CHECK(frame.normal_W.dot(first.normal_W) == relative(1.0, 1e-12));
  CHECK(std::abs(frame.tangent1_W.dot(frame.normal_W)) < 1e-15);
  CHECK((frame.normal_W.cross(frame.tangent1_W) - frame.tangent2_W).norm() < 1e-15);
  // J v against the relative velocity the body states give, at the simulator's state.
  const VectorX v = generalised_velocities(simulator.model(), simulator.state());
  for (const ContactResult& c : contacts) {
    simulator.contact_jacobian(c.pair, c.slot, J, drift);
    const Simulator::ContactFrame f = simulator.contact_frame(c.pair, c.slot);
    const BodyState a = simulator.body_state(f.body_a);
    const BodyState b = simulator.body_state(f.body_b);
    const Vec3 expected =
        b.com_velocity_W + b.angular_velocity_W.cross(f.witness_B_W - b.com_position_W) -
        a.com_velocity_W - a.angular_velocity_W.cross(f.witness_A_W - a.com_position_W);
    CHECK(((J * v).head<3>() - expected).norm() < 1e-12 * (1.0 + expected.norm()));
  }
  // The row-major form a C host uses gives the same matrix.
  Simulator::RowMajorJacobian J_rows(6, nv);
  simulator.contact_jacobian(first.pair, first.slot, J_rows, drift);
  simulator.contact_jacobian(first.pair, first.slot, J, drift);
  CHECK((J - Eigen::MatrixXd(J_rows)).norm() == 0.0);
  const Eigen::MatrixX3d cone = Simulator::friction_cone(frame);
  CHECK(cone.rows() == 6);
  // Nothing allocates when the host passes its buffers.
  if (testing::kCountingAllocations) {
    testing::start_counting_allocations();
    simulator.contact_jacobian(first.pair, first.slot, J, drift);
    CHECK(testing::stop_counting_allocations() == 0);
  }
  Eigen::MatrixXd wrong(6, nv - 1);
  CHECK_THROWS_AS(simulator.contact_jacobian(first.pair, first.slot, wrong, drift), InputError);
  CHECK_THROWS_AS(simulator.contact_jacobian(first.pair, 99, J, drift), InputError);
}

TEST_CASE("contact jacobian api: an id goes stale when its contact ends") {
  // bouncing_sphere: the first impact starts a contact, the bounce ends it.
  Simulator simulator(load_scene_file("bouncing_sphere"));
  std::uint64_t pair = 0;
  for (int i = 0; i < 1000 && simulator.contact_results().empty(); ++i) {
    simulator.advance_to(simulator.time() + 0.01, true);
  }
  REQUIRE(!simulator.contact_results().empty());
  pair = simulator.contact_results().front().pair;
  Eigen::MatrixXd J(6, simulator.velocity_size());
  Vec6 drift;
  simulator.contact_jacobian(pair, 0, J, drift);
  for (int i = 0; i < 100000 && !simulator.contact_results().empty(); ++i) {
    simulator.advance_to(simulator.time() + 1e-3, true);
  }
  REQUIRE(simulator.contact_results().empty());
  CHECK_THROWS_WITH_AS(simulator.contact_jacobian(pair, 0, J, drift), doctest::Contains("stale"),
                       InputError);
}

TEST_CASE("contact jacobian c api: frames, jacobians, cones, bilateral switches and wrenches") {
  hybridsim_simulator* sim = hybridsim_create();
  REQUIRE(hybridsim_load_file(sim, "ladder_grasp") == HYBRIDSIM_OK);
  double t = 0.0;
  REQUIRE(hybridsim_advance_to(sim, 1.0, 0, &t) == HYBRIDSIM_OK);
  size_t nv = 0;
  REQUIRE(hybridsim_get_velocity_size(sim, &nv) == HYBRIDSIM_OK);
  CHECK(nv == 6);
  int64_t column = -2;
  CHECK(hybridsim_get_velocity_column(sim, "rung", &column) == HYBRIDSIM_OK);
  CHECK(column == -1);
  CHECK(hybridsim_get_velocity_column(sim, "nonesuch", &column) == HYBRIDSIM_ERROR_NOT_FOUND);
  size_t count = 0;
  REQUIRE(hybridsim_get_contact_count(sim, &count) == HYBRIDSIM_OK);
  REQUIRE(count == 1);  // the gripper on the rung
  hybridsim_contact_frame frame{};
  frame.size = sizeof frame;
  REQUIRE(hybridsim_get_contact_frame(sim, 0, &frame) == HYBRIDSIM_OK);
  CHECK(std::string(frame.normal_law) == "elastic");
  CHECK(hybridsim_get_contact_frame(sim, 1, &frame) == HYBRIDSIM_ERROR_NOT_FOUND);
  std::vector<double> jacobian(6 * nv);
  double drift[6];
  REQUIRE(hybridsim_get_contact_jacobian(sim, frame.pair, frame.slot, jacobian.data(), drift) ==
          HYBRIDSIM_OK);
  // A fixed rung (A) and the arm (B): rows 0-2, columns 0-2 are the identity (the arm's origin
  // velocity moves its witness point one to one).
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) CHECK(jacobian[6 * i + j] == (i == j ? 1.0 : 0.0));
  }
  CHECK(hybridsim_get_contact_jacobian(sim, frame.pair, frame.slot + 1, jacobian.data(), drift) ==
        HYBRIDSIM_ERROR_NOT_FOUND);
  double cone[18];
  CHECK(hybridsim_get_friction_cone(sim, &frame, 6, 0, cone) == HYBRIDSIM_OK);
  CHECK(hybridsim_get_friction_cone(sim, &frame, 2, 0, cone) == HYBRIDSIM_ERROR_INPUT);
  int on = -1;
  CHECK(hybridsim_get_bilateral(sim, "grasp", &on) == HYBRIDSIM_OK);
  CHECK(on == 1);
  CHECK(hybridsim_get_bilateral(sim, "nonesuch", &on) == HYBRIDSIM_ERROR_NOT_FOUND);
  double force[3], torque[3], point[3];
  CHECK(hybridsim_get_bilateral_wrench(sim, "grasp", force, torque, point) == HYBRIDSIM_OK);
  CHECK(hybridsim_get_joint_wrench(sim, "nonesuch", force, torque, point) ==
        HYBRIDSIM_ERROR_NOT_FOUND);
  // The host releases the pivot early; the event is logged and counted.
  CHECK(hybridsim_set_bilateral(sim, "pivot", 0) == HYBRIDSIM_OK);
  CHECK(hybridsim_get_bilateral(sim, "pivot", &on) == HYBRIDSIM_OK);
  CHECK(on == 0);
  CHECK(hybridsim_set_bilateral(sim, "pivot", 0) == HYBRIDSIM_OK);  // already off: harmless
  hybridsim_statistics statistics{};
  statistics.size = sizeof statistics;
  REQUIRE(hybridsim_get_statistics(sim, &statistics) == HYBRIDSIM_OK);
  CHECK(statistics.bilateral_switches == 3);  // pivot on, grasp on, pivot off
  hybridsim_free(sim);
}

}  // namespace
}  // namespace hybridsim
