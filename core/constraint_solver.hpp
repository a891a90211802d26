// The joint constraints of a whole model solved together (design.md §3), in maximal coordinates:
// with M the block-diagonal mass matrix of the free bodies (mass and world inertia about the
// centre of mass) and G the stacked constraint Jacobians, the constrained accelerations solve
//
//   M nu' = F + G^T lambda,   G nu' = bias - 2 omega g' - omega^2 g   (Baumgarte, critically
//   damped)
//
// through A lambda = rhs with A = G M^-1 G^T (core/constraint_matrix.hpp: dense for small systems,
// sparse above kSparseConstraintRows rows), factorised with a small diagonal regularisation, so
// that redundant constraints (planar loops) have smooth finite multipliers, and with iterative
// refinement that removes the regularisation's error. It also projects positions and
// velocities back onto the constraint manifold (mass-weighted, Newton on the positions), used at
// every restart.
//
// nu = (v_Com_W, w_W) per body, as in core/joint_constraints.hpp; the per-body arrays below are
// indexed by body index and ignore fixed bodies. Nothing allocates after construction
// but detect_redundancy (called at the start and at bilateral switches, never in an evaluation).
#pragma once

#include <array>
#include <span>
#include <vector>

#include "core/constraint_matrix.hpp"
#include "core/joint_constraints.hpp"
#include "core/model.hpp"

namespace hybridsim {

// With ConstraintFactorization::automatic, systems of more rows than this use the sparse
// factorisation (the crossover measured in BENCHMARKS.md, "Joints: dense against sparse").
inline constexpr int kSparseConstraintRows = 20;
// ConstraintFactorization::dense takes at most this many rows (its matrix and factor take 16 m^2
// bytes, 64 MB here, and each evaluation m^3/3 operations); the loader refuses more, and so does
// the solver for a Model edited in code.
inline constexpr int kMaxDenseConstraintRows = 2000;

class ConstraintSolver {
 public:
  // A constraint row acting on a body.
  struct RowBody {
    int row;
    bool child;  // which side of the row's joint the body is
  };

  // The model must outlive the solver. `sticking`: further switched welds after the model's
  // bilateral contacts, the friction patches of stick-slip friction (core/stick_slip.hpp); they
  // are numbered on from Model::bilateral_contacts in set_bilateral and first_row.
  explicit ConstraintSolver(const Model& model, std::span<const BilateralContact> sticking = {});

  int row_count() const { return row_count_; }
  ConstraintMatrix::Storage storage() const { return matrix_.storage(); }
  bool empty() const { return row_count_ == 0; }

  // The commands of the ideal velocity servos, one per joint (Model::joints order), used by every
  // evaluation from now on; others are ignored.
  void set_joint_commands(std::span<const JointCommand> commands);

  // Evaluates every row and the inverse mass blocks at these body kinematics.
  void evaluate(std::span<const BodyKinematics> kinematics);

  // ODE form: adds M^-1 G^T lambda to nu_dot (per body; unconstrained accelerations in, constrained
  // out), with lambda from the stabilised acceleration constraints. omega in 1/s.
  void solve_accelerations(double omega, std::span<Vec6> nu_dot);

  // DAE form, for given multipliers: adds M^-1 G^T lambda to nu_dot...
  void add_constraint_accelerations(std::span<const double> lambda, std::span<Vec6> nu_dot) const;
  // ...and the residual G nu' - (bias - 2 omega g' - omega^2 g) of each row; with redundant
  // constraints plus a regularisation r_i lambda_i (r_i = 1e-10 (G M^-1 G^T)_ii), so that the
  // DAE's iteration matrix stays regular.
  void acceleration_residual(double omega, std::span<const Vec6> nu_dot,
                             std::span<const double> lambda, std::span<double> residual) const;

  // Switches switched weld `contact` (Model::bilateral_contacts index, then the sticking ones) on
  // with this weld frame (core/joint_constraints.hpp: evaluate_weld_rows; the parent is its
  // body_a), or off (nullptr): its rows then have zero multipliers. Redundancy may change: call
  // detect_redundancy after the next evaluate or project. velocity_only: the rows hold the
  // relative velocity only (their position error is taken as zero): a rolling contact's, whose
  // weld the caller re-anchors at the moving contact point before every evaluate;
  // anchor_velocity_W is then that point's velocity (m/s, world), whose motion over the bodies
  // adds to the rows' bias.
  void set_bilateral(int contact, const Joint* weld, bool velocity_only = false,
                     const Vec3& anchor_velocity_W = Vec3::Zero());
  bool bilateral_active(int contact) const { return weld_active_[contact] != 0; }
  // The first row of joint j (j < joints) or of bilateral contact j - joints.
  int first_row(int constraint) const { return first_row_[constraint]; }
  // Sum over rows [first_row, first_row + count) of J_child lambda: the constraint force on the
  // child at its centre of mass and the torque about it (N, N m, world), from the last multipliers.
  Vec6 wrench_on_child(int first_row, int count) const;

  // Decides from the last evaluation whether the rows are redundant (A numerically singular: the
  // planar loops of 3D joints, a weld on a body already held). Call at the start and after every
  // bilateral switch, after evaluate or project (an eigen-decomposition: events only).
  void detect_redundancy();
  bool redundant() const { return redundant_; }

  // Largest |g| over the rows (m or rad) and largest |g'| (m/s or rad/s), at the last evaluate.
  double max_position_error() const;
  double max_velocity_error() const;
  // Multipliers of the last solve_accelerations (N or N m per row; project overwrites them).
  std::span<const double> multipliers() const {
    return {lambda_.data(), static_cast<std::size_t>(lambda_.size())};
  }

  // Moves the free bodies' states in x onto g = 0 (Newton, at most 50 iterations, until
  // max |g| <= position_tolerance) and then onto g' = 0. Returns whether positions converged.
  bool project(double* x, double position_tolerance);

 private:
  void compute_kinematics(const double* x);
  // matrix_ := G M^-1 G^T at the last evaluation.
  void assemble();
  // ...plus the regularisation, factorised; false when that failed.
  bool factorize();
  // delta_b = M_b^-1 sum_i J_ib mu_i for every free body.
  void distribute(std::span<const double> mu, std::span<Vec6> delta) const;
  // Row i's J nu' of the given accelerations, and the stabilised value it must take.
  double row_acceleration(int i, std::span<const Vec6> nu_dot) const;
  double target_acceleration(int i, double omega) const;
  // delta_ := -M^-1 G^T A^-1 e for the rows' errors e (position or velocity, at the last
  // evaluate): the mass-weighted correction that removes them to first order.
  void compute_correction(double ConstraintRow::*error);

  const Model& model_;
  std::vector<BilateralContact> switched_;  // the model's bilateral contacts, then `sticking`
  std::vector<int> first_row_;              // per joint, then per bilateral contact
  std::vector<int> row_parent_;  // per row: its parent body (a bilateral contact's body_a)
  std::vector<int> row_child_;   // per row: its child body
  int row_count_ = 0;
  std::vector<ConstraintRow> rows_;              // per row
  std::vector<std::vector<RowBody>> body_rows_;  // per body: the rows touching it (free bodies)
  std::vector<Mat3> inverse_inertia_W_;          // per body, 1/(kg m^2)
  std::vector<BodyKinematics> kinematics_;       // per body (projection workspace)
  std::vector<Vec6> delta_;                      // per body (projection workspace)
  ConstraintMatrix matrix_;
  // The slot in matrix_ of each term that assemble() adds, in the order it adds them.
  std::vector<int> assembly_slots_;
  bool redundant_ = false;
  Eigen::VectorXd lambda_;
  std::vector<JointCommand> commands_;   // per joint
  std::vector<int> diagonal_slots_;      // per row: the slot of A_ii
  std::vector<Joint> welds_;             // per bilateral contact: its frame while on
  std::vector<char> weld_active_;        // per bilateral contact
  std::vector<char> velocity_only_;      // per bilateral contact: set_bilateral's velocity_only
  std::vector<Vec3> anchor_velocity_W_;  // per bilateral contact: set_bilateral's, m/s
  std::vector<double> inert_diagonal_;   // per bilateral contact: A_ii of its rows while off, 1/kg
  std::array<ConstraintRow, 6> weld_rows_;
};

}  // namespace hybridsim
