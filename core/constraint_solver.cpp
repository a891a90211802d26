#include "core/constraint_solver.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/errors.hpp"

namespace hybridsim {
namespace {

// Relative regularisation of A's diagonal, large enough that a redundant set of constraints (A
// singular) gives finite multipliers, whose null-space part G^T removes. The shift alone would
// leave an error shift * lambda in the constraint accelerations; kRefinements steps of iterative
// refinement with the shifted factorisation (iterated Tikhonov) remove it by a factor
// shift / (shift + sigma) each, about 1e-10 for the well-posed directions.
constexpr double kRegularization = 1e-10;
constexpr int kRefinements = 2;

Vec6 joint_jacobian(const ConstraintRow& row, bool child) {
  return child ? row.J_child : row.J_parent;
}

// M_b^-1 J for one body: 1/m on the linear part, the world inverse inertia on the angular part.
Vec6 apply_inverse_mass(const Body& body, const Mat3& inverse_inertia_W, const Vec6& J) {
  Vec6 out;
  out.head<3>() = J.head<3>() / body.mass;
  out.tail<3>() = inverse_inertia_W * J.tail<3>();
  return out;
}

// Writes the velocity states of a free body (origin velocity, body-frame angular velocity) from
// the centre-of-mass velocity and the angular velocity in world, at orientation R_WB.
void write_body_velocity(const Body& body, const Mat3& R_WB, const Vec3& v_WCom, const Vec3& w_W,
                         double* s) {
  const Vec3 w_B = R_WB.transpose() * w_W;
  const Vec3 v_WB = v_WCom - w_W.cross(R_WB * body.p_BCom_B);
  for (int i = 0; i < 3; ++i) {
    s[7 + i] = v_WB[i];
    s[10 + i] = w_B[i];
  }
}

// Per row: its child (or parent) body. Joints' rows come first, in Model::joints order, then the
// rows of each bilateral contact's held directions (body_b the child).
std::vector<int> body_of_each_row(const Model& model, const std::vector<BilateralContact>& switched,
                                  bool child) {
  std::vector<int> body;
  for (const Joint& joint : model.joints) {
    body.insert(body.end(), joint_row_count(joint), child ? joint.child : joint.parent);
  }
  for (const BilateralContact& contact : switched) {
    body.insert(body.end(), contact.direction_count(), child ? contact.body_b : contact.body_a);
  }
  return body;
}

std::vector<int> first_rows(const Model& model, const std::vector<BilateralContact>& switched) {
  std::vector<int> first;
  int row = 0;
  for (const Joint& joint : model.joints) {
    first.push_back(row);
    row += joint_row_count(joint);
  }
  for (const BilateralContact& contact : switched) {
    first.push_back(row);
    row += contact.direction_count();
  }
  return first;
}

// Throws for a dense system beyond kMaxDenseConstraintRows (a Model edited in code; the loader
// refuses such scenes itself), before its matrices are allocated.
ConstraintMatrix::Storage choose_storage(ConstraintFactorization choice, int rows) {
  switch (choice) {
    case ConstraintFactorization::dense:
      if (rows > kMaxDenseConstraintRows) {
        throw InputError(fmt::format(
            "constraint solver: {} rows are more than the dense factorisation takes ({})", rows,
            kMaxDenseConstraintRows));
      }
      return ConstraintMatrix::Storage::dense;
    case ConstraintFactorization::sparse:
      return ConstraintMatrix::Storage::sparse;
    case ConstraintFactorization::automatic:
      break;
  }
  return rows > kSparseConstraintRows ? ConstraintMatrix::Storage::sparse
                                      : ConstraintMatrix::Storage::dense;
}

// Calls add(i, k) for every term of A = G M^-1 G^T in the lower triangle (i >= k), body by body:
// rows i and k couple through every free body they both touch.
template <typename Add>
void for_each_lower_term(const std::vector<std::vector<ConstraintSolver::RowBody>>& body_rows,
                         Add&& add) {
  for (std::size_t b = 0; b < body_rows.size(); ++b) {
    for (const ConstraintSolver::RowBody& k : body_rows[b]) {
      for (const ConstraintSolver::RowBody& i : body_rows[b]) {
        if (i.row >= k.row) add(b, i, k);
      }
    }
  }
}

std::vector<std::pair<int, int>> lower_entries(
    const std::vector<std::vector<ConstraintSolver::RowBody>>& body_rows) {
  std::vector<std::pair<int, int>> entries;
  for_each_lower_term(
      body_rows, [&](std::size_t, const ConstraintSolver::RowBody& i,
                     const ConstraintSolver::RowBody& k) { entries.emplace_back(i.row, k.row); });
  return entries;
}

std::vector<std::vector<ConstraintSolver::RowBody>> rows_of_each_body(
    const Model& model, const std::vector<int>& row_parent, const std::vector<int>& row_child) {
  std::vector<std::vector<ConstraintSolver::RowBody>> body_rows(model.bodies.size());
  for (std::size_t row = 0; row < row_parent.size(); ++row) {
    const int r = static_cast<int>(row);
    if (!model.bodies[row_child[row]].fixed) body_rows[row_child[row]].push_back({r, true});
    if (!model.bodies[row_parent[row]].fixed) body_rows[row_parent[row]].push_back({r, false});
  }
  return body_rows;
}

std::vector<BilateralContact> join(const std::vector<BilateralContact>& bilateral,
                                   std::span<const BilateralContact> sticking) {
  std::vector<BilateralContact> all = bilateral;
  all.insert(all.end(), sticking.begin(), sticking.end());
  return all;
}

// Largest |row.*member| over the rows; NaN when any is NaN (so that "error <= tolerance" fails).
double largest_magnitude(const std::vector<ConstraintRow>& rows, double ConstraintRow::*member) {
  double largest = 0.0;
  for (const ConstraintRow& row : rows) {
    const double magnitude = std::abs(row.*member);
    if (!(magnitude <= largest)) largest = magnitude;
  }
  return largest;
}

}  // namespace

ConstraintSolver::ConstraintSolver(const Model& model, std::span<const BilateralContact> sticking)
    : model_(model),
      switched_(join(model.bilateral_contacts, sticking)),
      first_row_(first_rows(model, switched_)),
      row_parent_(body_of_each_row(model, switched_, false)),
      row_child_(body_of_each_row(model, switched_, true)),
      row_count_(static_cast<int>(row_parent_.size())),
      rows_(row_parent_.size()),
      body_rows_(rows_of_each_body(model, row_parent_, row_child_)),
      inverse_inertia_W_(model.bodies.size(), Mat3::Zero()),
      kinematics_(model.bodies.size()),
      delta_(model.bodies.size(), Vec6::Zero()),
      matrix_(row_count_, lower_entries(body_rows_),
              choose_storage(model.simulation.constraint_factorization, row_count_)),
      lambda_(Eigen::VectorXd::Zero(row_count_)),
      commands_(model.joints.size()),
      welds_(switched_.size()),
      weld_active_(switched_.size(), 0),
      velocity_only_(switched_.size(), 0),
      anchor_velocity_W_(switched_.size(), Vec3::Zero()) {
  for_each_lower_term(body_rows_, [&](std::size_t, const RowBody& i, const RowBody& k) {
    assembly_slots_.push_back(matrix_.slot(i.row, k.row));
  });
  // Every row touches a free body (the loader refuses joints and bilateral contacts between two
  // fixed bodies), so each has its diagonal entry.
  for (int i = 0; i < row_count_; ++i) diagonal_slots_.push_back(matrix_.slot(i, i));
  // An inactive bilateral row's diagonal: 1/m of one of its free bodies, of the order of the
  // active rows' (A's units are 1/kg), so that the factorisation's scaling does not see it.
  for (const BilateralContact& contact : switched_) {
    const Body& free =
        model.bodies[model.bodies[contact.body_b].fixed ? contact.body_a : contact.body_b];
    inert_diagonal_.push_back(1.0 / free.mass);
  }
}

void ConstraintSolver::evaluate(std::span<const BodyKinematics> kinematics) {
  int row = 0;
  for (std::size_t j = 0; j < model_.joints.size(); ++j) {
    const Joint& joint = model_.joints[j];
    evaluate_joint_constraints(joint, kinematics[joint.parent], kinematics[joint.child],
                               rows_.data() + row, commands_[j]);
    row += joint_row_count(joint);
  }
  for (std::size_t c = 0; c < switched_.size(); ++c) {
    const BilateralContact& contact = switched_[c];
    if (weld_active_[c] != 0) {
      const BodyKinematics& P = kinematics[contact.body_a];
      const BodyKinematics& C = kinematics[contact.body_b];
      if (velocity_only_[c] != 0) {
        evaluate_velocity_weld_rows(welds_[c], P, C, anchor_velocity_W_[c], weld_rows_.data());
      } else {
        evaluate_weld_rows(welds_[c], P, C, weld_rows_.data());
      }
      for (int k = 0; k < 6; ++k) {
        if (contact.directions[k]) rows_[row++] = weld_rows_[k];
      }
    } else {
      // An inactive row: no Jacobian and no error; assemble() gives it a diagonal of its own, so
      // that its multiplier is zero.
      for (int k = 0; k < contact.direction_count(); ++k) rows_[row++] = ConstraintRow{};
    }
  }
  for (std::size_t b = 0; b < model_.bodies.size(); ++b) {
    if (body_rows_[b].empty()) continue;
    const Mat3& R = kinematics[b].X_WB.rotation;
    inverse_inertia_W_[b] = R * model_.bodies[b].inverse_inertia_com_B * R.transpose();
  }
}

void ConstraintSolver::assemble() {
  matrix_.set_zero();
  double* values = matrix_.values();
  const int* slot = assembly_slots_.data();
  for_each_lower_term(body_rows_, [&](std::size_t b, const RowBody& i, const RowBody& k) {
    const Vec6 MinvJk = apply_inverse_mass(model_.bodies[b], inverse_inertia_W_[b],
                                           joint_jacobian(rows_[k.row], k.child));
    values[*slot++] += joint_jacobian(rows_[i.row], i.child).dot(MinvJk);
  });
  for (std::size_t c = 0; c < weld_active_.size(); ++c) {
    if (weld_active_[c] != 0) continue;
    const int first = first_row_[model_.joints.size() + c];
    const int count = switched_[c].direction_count();
    for (int i = first; i < first + count; ++i) values[diagonal_slots_[i]] += inert_diagonal_[c];
  }
}

bool ConstraintSolver::factorize() {
  assemble();
  return matrix_.factorize(kRegularization);
}

void ConstraintSolver::distribute(std::span<const double> mu, std::span<Vec6> delta) const {
  for (std::size_t b = 0; b < model_.bodies.size(); ++b) {
    if (body_rows_[b].empty()) continue;
    Vec6 J_mu = Vec6::Zero();
    for (const RowBody& r : body_rows_[b])
      J_mu += joint_jacobian(rows_[r.row], r.child) * mu[r.row];
    delta[b] += apply_inverse_mass(model_.bodies[b], inverse_inertia_W_[b], J_mu);
  }
}

double ConstraintSolver::row_acceleration(int i, std::span<const Vec6> nu_dot) const {
  const ConstraintRow& row = rows_[i];
  const int child = row_child_[i];
  const int parent = row_parent_[i];
  double achieved = 0.0;
  if (!model_.bodies[child].fixed) achieved += row.J_child.dot(nu_dot[child]);
  if (!model_.bodies[parent].fixed) achieved += row.J_parent.dot(nu_dot[parent]);
  return achieved;
}

double ConstraintSolver::target_acceleration(int i, double omega) const {
  const ConstraintRow& row = rows_[i];
  return row.bias - 2.0 * omega * row.velocity_error - omega * omega * row.position_error;
}

void ConstraintSolver::solve_accelerations(double omega, std::span<Vec6> nu_dot) {
  if (empty()) return;
  if (!factorize()) {
    // A non-finite or indefinite A (a state gone bad): NaN accelerations, which the integrator
    // treats as a failed evaluation, rather than the last evaluation's multipliers.
    lambda_.setConstant(kNaN);
  } else {
    for (int i = 0; i < row_count_; ++i) {
      lambda_[i] = target_acceleration(i, omega) - row_acceleration(i, nu_dot);
    }
    matrix_.solve_in_place(lambda_, kRefinements);
  }
  distribute({lambda_.data(), static_cast<std::size_t>(row_count_)}, nu_dot);
}

void ConstraintSolver::add_constraint_accelerations(std::span<const double> lambda,
                                                    std::span<Vec6> nu_dot) const {
  distribute(lambda, nu_dot);
}

void ConstraintSolver::acceleration_residual(double omega, std::span<const Vec6> nu_dot,
                                             std::span<const double> lambda,
                                             std::span<double> residual) const {
  for (int i = 0; i < row_count_; ++i) {
    residual[i] = row_acceleration(i, nu_dot) - target_acceleration(i, omega);
    if (!redundant_) continue;
    const ConstraintRow& row = rows_[i];
    const Body& child = model_.bodies[row_child_[i]];
    const Body& parent = model_.bodies[row_parent_[i]];
    double diagonal = 0.0;  // A_ii
    if (!child.fixed) {
      diagonal += row.J_child.dot(
          apply_inverse_mass(child, inverse_inertia_W_[row_child_[i]], row.J_child));
    }
    if (!parent.fixed) {
      diagonal += row.J_parent.dot(
          apply_inverse_mass(parent, inverse_inertia_W_[row_parent_[i]], row.J_parent));
    }
    residual[i] += kRegularization * diagonal * lambda[i];
  }
  // An inactive bilateral row: its multiplier is zero.
  for (std::size_t c = 0; c < weld_active_.size(); ++c) {
    if (weld_active_[c] != 0) continue;
    const int first = first_row_[model_.joints.size() + c];
    const int count = switched_[c].direction_count();
    for (int i = first; i < first + count; ++i) residual[i] = lambda[i];
  }
}

void ConstraintSolver::detect_redundancy() {
  if (empty()) return;
  assemble();
  redundant_ = matrix_.numerically_singular();
}

double ConstraintSolver::max_position_error() const {
  return largest_magnitude(rows_, &ConstraintRow::position_error);
}

double ConstraintSolver::max_velocity_error() const {
  return largest_magnitude(rows_, &ConstraintRow::velocity_error);
}

void ConstraintSolver::compute_kinematics(const double* x) {
  for (std::size_t b = 0; b < model_.bodies.size(); ++b) {
    compute_body_kinematics(model_.bodies[b], x, kinematics_[b]);
  }
}

void ConstraintSolver::compute_correction(double ConstraintRow::*error) {
  if (factorize()) {
    for (int i = 0; i < row_count_; ++i) lambda_[i] = -(rows_[i].*error);
    matrix_.solve_in_place(lambda_, kRefinements);
  } else {
    lambda_.setConstant(kNaN);  // the projection then fails to converge and reports it
  }
  std::fill(delta_.begin(), delta_.end(), Vec6::Zero());
  distribute({lambda_.data(), static_cast<std::size_t>(row_count_)}, delta_);
}

void ConstraintSolver::set_bilateral(int contact, const Joint* weld, bool velocity_only,
                                     const Vec3& anchor_velocity_W) {
  weld_active_.at(static_cast<std::size_t>(contact)) = weld != nullptr ? 1 : 0;
  velocity_only_[static_cast<std::size_t>(contact)] = velocity_only ? 1 : 0;
  anchor_velocity_W_[static_cast<std::size_t>(contact)] = anchor_velocity_W;
  if (weld != nullptr) welds_[static_cast<std::size_t>(contact)] = *weld;
}

Vec6 ConstraintSolver::wrench_on_child(int first_row, int count) const {
  Vec6 wrench = Vec6::Zero();
  for (int i = first_row; i < first_row + count; ++i) wrench += rows_[i].J_child * lambda_[i];
  return wrench;
}

void ConstraintSolver::set_joint_commands(std::span<const JointCommand> commands) {
  std::copy(commands.begin(), commands.end(), commands_.begin());
}

bool ConstraintSolver::project(double* x, double position_tolerance) {
  if (empty()) return true;
  bool converged = false;
  for (int iteration = 0; iteration < 50; ++iteration) {
    compute_kinematics(x);
    evaluate(kinematics_);
    if (max_position_error() <= position_tolerance) {
      converged = true;
      break;
    }
    // The smallest mass-weighted displacement that removes g to first order.
    compute_correction(&ConstraintRow::position_error);
    for (std::size_t b = 0; b < model_.bodies.size(); ++b) {
      const Body& body = model_.bodies[b];
      if (body_rows_[b].empty()) continue;
      const BodyKinematics& k = kinematics_[b];
      // Translate the centre of mass, rotate about it; then the origin follows.
      const Vec3 p_WCom = k.p_WCom + delta_[b].head<3>();
      const Vec3 rotation_W = delta_[b].tail<3>();
      const double angle = rotation_W.norm();
      const Quat turn =
          angle > 0.0 ? Quat(Eigen::AngleAxisd(angle, rotation_W / angle)) : Quat::Identity();
      const Quat q = (turn * k.q_WB).normalized();
      const Vec3 p_WB = p_WCom - q.toRotationMatrix() * body.p_BCom_B;
      double* s = x + body.state_offset;
      s[0] = p_WB.x();
      s[1] = p_WB.y();
      s[2] = p_WB.z();
      s[3] = q.w();
      s[4] = q.x();
      s[5] = q.y();
      s[6] = q.z();
      // Keep the world velocities of the centre of mass and the angular velocity.
      write_body_velocity(body, q.toRotationMatrix(), k.v_WCom_W, k.w_WB_W, s);
    }
  }
  // Velocities: g' is linear in nu, one solve of A mu = -g' removes it (a second one cleans up
  // the round-off of the first).
  for (int pass = 0; pass < 2; ++pass) {
    compute_kinematics(x);
    evaluate(kinematics_);
    compute_correction(&ConstraintRow::velocity_error);
    for (std::size_t b = 0; b < model_.bodies.size(); ++b) {
      const Body& body = model_.bodies[b];
      if (body_rows_[b].empty()) continue;
      const BodyKinematics& k = kinematics_[b];
      write_body_velocity(body, k.X_WB.rotation, k.v_WCom_W + delta_[b].head<3>(),
                          k.w_WB_W + delta_[b].tail<3>(), x + body.state_offset);
    }
  }
  compute_kinematics(x);
  evaluate(kinematics_);
  return converged;
}

}  // namespace hybridsim
