// MultibodySystem: free rigid bodies with shapes in contact, connected by joints, as a
// HybridSystem. Contact starts and ends are state events through the z1/z2 crossing functions of
// the ContactHandler; input signal breakpoints are time events. Joints are constraints in maximal
// coordinates (core/constraint_solver.hpp); every restart projects the state onto them.
//
// One right-hand-side evaluation, in stages:
//   update_kinematics        body poses and velocities from x (normalised quaternions), shape poses
//   apply_gravity_and_inputs gravity at each centre of mass, input forces and torques
//   apply_joint_efforts      joint inputs, springs and dampers
//   apply_contact_forces     the law of each pair in contactDict (the set is frozen between events)
//   write_derivatives        Newton-Euler per free body; with joints, the constrained
//                            accelerations of the KKT system with Baumgarte stabilisation
// Nothing allocates on this path or in the crossing functions.
#pragma once

#include <set>
#include <span>
#include <vector>

#include "core/constraint_solver.hpp"
#include "core/contact_jacobian.hpp"
#include "core/hybrid_system.hpp"
#include "core/model.hpp"
#include "core/rigid_body.hpp"
#include "core/wheel_contact.hpp"
#include "events/contact_handler.hpp"

namespace hybridsim {

class MultibodySystem final : public HybridSystem {
 public:
  // The model must outlive the system.
  explicit MultibodySystem(const Model& model);

  int state_size() const override { return model_.state_size; }
  void initial_state(VectorRef x0) const override;
  EventOutcome initialize(double t0, VectorRef x) override;
  // contactDict's pairs with their stored pre-impact velocity and damping (4 numbers per pair).
  std::vector<double> discrete_state() const override;
  EventOutcome restore_discrete_state(double t0, VectorRef x,
                                      std::span<const double> discrete) override;
  void compute_derivatives(double t, ConstVectorRef x, VectorRef xdot) override;
  // DAE form: the algebraic variables are the joint multipliers (one per constraint row, N or
  // N m); the residual is the state equation with the constraint forces G^T lambda, and the
  // Baumgarte-stabilised acceleration constraints (index 1, see docs/physics.md).
  int algebraic_size() const override { return constraints_.row_count(); }
  void guess_algebraic(double t, ConstVectorRef x, VectorRef lambda) override;
  void compute_residual(double t, ConstVectorRef y, ConstVectorRef yp, VectorRef residual) override;
  // z1, z2 of the contact set; with stick-slip friction also z3 (rising: a sticking patch's
  // tangential force reaches its static limit) and z4 (falling: a sliding patch's slip along its
  // direction at the last event reaches zero).
  // z1, z2 (contacts), z3, z4 with stick-slip friction patches, then the two of the joint limits.
  int crossing_count() const override {
    return limit_crossing_offset() + (limit_sides_.empty() ? 0 : 2);
  }
  std::vector<int> crossing_directions() const override {
    std::vector<int> directions = {+1, -1};
    if (!patches_.empty()) directions.insert(directions.end(), {+1, -1});
    if (!limit_sides_.empty()) directions.insert(directions.end(), {-1, +1});
    return directions;
  }
  void compute_crossings(double t, ConstVectorRef x, VectorRef z) override;
  EventOutcome handle_state_event(double t, VectorRef x, std::span<const int> roots_found) override;
  double next_time_event(double t) const override;
  EventOutcome handle_time_event(double t, VectorRef x) override;
  double max_step_hint(double t, ConstVectorRef x) const override;
  // Partial evaluations for scenes of free bodies without joints or inputs (a pile): a perturbed
  // body's kinematics and its contacts are recomputed, the other contacts' terms are those of the
  // base point, and each affected body sums its terms in the order of a full evaluation.
  bool prepare_partial_derivatives(double t, ConstVectorRef x) override;
  void compute_partial_derivatives(double t, ConstVectorRef x, std::span<const int> perturbed,
                                   VectorRef xdot) override;
  long rhs_evaluation_count() const override { return rhs_count_; }
  // Warnings (models/multibody_warnings.cpp): the loader's; shape pairs overlapping by more than
  // kOverlapWarningDepth at the start; contacts whose static deflection under the lighter body's
  // weight is below atol (once per contact material); energy checks for scenes without inputs,
  // servos, wheels or bilateral contacts.
  std::vector<Warning> start_warnings(double t0, ConstVectorRef x, double atol) override;
  void event_warnings(double t, const EventOutcome& outcome, double atol,
                      std::vector<Warning>& warnings) override;
  double passive_energy(ConstVectorRef x) override;
  double energy_rise_tolerance(ConstVectorRef x0) const override;
  static constexpr double kOverlapWarningDepth = 1e-4;  // m, deeper than any catalog contact
  // The linear and angular velocities of every free body.
  std::vector<bool> velocity_mask() const override;
  // 1 for the quaternions and the velocities (m/s, rad/s): of order one where they are not zero
  // (at rest, at the identity), which the error weights do not see. 1e-3 m for positions: a
  // position at zero is still perturbed by 1.5e-11 m, far below a contact's micrometre depth, so
  // that its stiffness is not sampled across the kink at zero penetration.
  std::vector<double> state_scales() const override;
  // One group per set of free bodies connected by joints and by the pairs in contactDict.
  void state_coupling(std::span<int> group_of_state) const override;
  // A free body's position and orientation (their rates are its own velocities).
  void local_states(std::span<char> local) const override;
  // One block per set of free bodies connected by joints (the constraint forces couple a whole
  // jointed set); each pair in contactDict couples the blocks of its two bodies.
  void state_blocks(std::span<int> block_of_state,
                    std::vector<std::pair<int, int>>& coupled_blocks) const override;

  // Host-set inputs (Simulator::set_input): a constant value replaces the input's signal, and its
  // breakpoints, until cleared. The caller restarts the integration (a time event).
  void set_input_override(int input, const Vec3& value);
  void clear_input_override(int input);
  // The value of input `input` at time t: the host's, or the signal's.
  Vec3 input_value(int input, double t) const;
  // Its rate at t: zero for a host's value, else the signal's (evaluate_signal_rate).
  Vec3 input_rate(int input, double t) const;

  // Outputs.
  const Model& model() const { return model_; }
  const ContactHandler& contact_handler() const { return contacts_; }
  // Kinetic + gravitational potential + joint spring + elastic contact energy, J. The elastic
  // part is that of the pairs in contactDict now: evaluate it while the run is at x (an observer's
  // on_output), not afterwards for earlier states.
  double compute_energy(ConstVectorRef x);
  // The same in its parts, J: kinetic; potential (gravitational and joint springs); elastic
  // (contacts). Their sum is compute_energy.
  struct EnergyParts {
    double kinetic = 0.0;
    double potential = 0.0;
    double elastic = 0.0;
  };
  EnergyParts compute_energy_parts(ConstVectorRef x);
  // Kinematics of every body at x (world frame velocities and poses).
  std::span<const BodyKinematics> compute_kinematics(ConstVectorRef x);
  // Law results of the pairs in contact at x.
  std::vector<ContactResult> compute_contact_results(ConstVectorRef x);
  // The same with the holding force of every sticking friction patch (stick-slip friction) in
  // friction_force_W and force_on_B_W, shared among the patch's points by their normal forces
  // (only the patch's total is determined); t for the inputs of the solve that gives it.
  std::vector<ContactResult> compute_contact_results(double t, ConstVectorRef x);
  // Every wheel's contact frame and slip at x (Model::wheels order), with the normal force summed
  // over its contacts; the contact of the largest normal force gives the frame. A wheel without a
  // contact reports its frame on the normal along gravity (or -z) at its nominal radius, zero
  // normal force.
  struct WheelOutput {
    WheelContactState state;
    double normal_force = 0.0;  // N
  };
  std::vector<WheelOutput> compute_wheel_outputs(ConstVectorRef x);
  // Coordinate and rate of every joint at x (Model::joints order).
  std::vector<JointCoordinate> compute_joint_coordinates(ConstVectorRef x);
  // Bilateral contacts (models/multibody_bilateral.cpp).
  bool bilateral_on(int contact) const { return bilateral_on_[contact] != 0; }
  // A host's switch of `contact` on or off, applied by the next time event (the caller restarts
  // the integration at once, as for set_input_override). False when it is in that state already.
  bool request_bilateral(int contact, bool on);
  // The weld frame of a bilateral contact that is on (core/joint_constraints.hpp).
  const Joint& bilateral_weld(int contact) const { return welds_[contact]; }
  // The wrench a joint or bilateral contact transmits to its child (body_b) at x: the constraint
  // force (N) and the torque about `point_W` (N m), the child's anchor, world frame; zero for a
  // bilateral contact that is off (its point is then body_b's origin).
  struct ConstraintWrench {
    Vec3 force_W = Vec3::Zero();
    Vec3 torque_W = Vec3::Zero();
    Vec3 point_W = Vec3::Zero();
  };
  // Every joint's (Model::joints order), then every bilateral contact's.
  void compute_constraint_wrenches(double t, ConstVectorRef x,
                                   std::span<ConstraintWrench> wrenches);

  // Friction patches of stick_slip friction (models/multibody_stick_slip.cpp): one per pair of
  // bodies that a stick_slip contact material can join. All its contact points stick or slide
  // together: while it sticks, two constraint rows hold its anchor (the mean of its points at the
  // stick instant) in the tangent plane; while it slides, each point takes the kinetic force
  // against its slip.
  struct FrictionPatch {
    enum class Mode : char { apart, sliding, sticking };
    int parent = -1;  // the lower body index
    int child = -1;
    Mode mode = Mode::apart;
    Vec3 slip_direction_P = Vec3::Zero();  // unit, tangential, parent's body frame (sliding)
    // Sliding: the mean contact point at the last event, a point of the child (child's frame),
    // and the normal then (parent's frame); the slip there gives the friction's direction.
    Vec3 anchor_C = Vec3::Zero();
    Vec3 normal_P = Vec3::UnitZ();
    Vec3 friction_direction_W = Vec3::Zero();  // this evaluation's, compute_kinetic_friction_...
    Joint weld;                                // its frame while sticking (tangents x, y; normal z)
    // At most kRollingPatchPoints points at the last restart: the bodies may roll on each other
    // (a ball, a cylinder on its side), so the contact point moves over both. Sticking, its weld
    // holds the relative velocity at the moving point (re-anchored at every evaluation); sliding,
    // its slip is measured at its points, not at a point of the child.
    bool rolls = false;
    // Sums over its contact points at the last force evaluation.
    int points = 0;
    double normal_force = 0.0;  // N, compressive parts
    double static_limit = 0.0;  // N, mu_s f_n summed
    Vec3 point_sum_W = Vec3::Zero();
    Vec3 normal_sum_W = Vec3::Zero();  // normals oriented from parent to child
    // Curvatures (1/m, zero for a flat face) of the child's and the parent's shapes at the points,
    // summed: how the contact point of a rolling patch moves (moving_point_velocity).
    double child_curvature_sum = 0.0;
    double parent_curvature_sum = 0.0;
    // Torsional stick (friction torsional_stick): the spin about the normal, child relative to
    // parent, sticks (one rotation row, spin_weld) or slides against spin_sign (+1 or -1, its
    // sense at the last event about spin_normal_P, parent's frame). apart: no torsional stick.
    bool torsional = false;
    Mode spin = Mode::apart;
    double spin_sign = 0.0;
    Vec3 spin_normal_P = Vec3::UnitZ();
    Joint spin_weld;
    double spin_limit = 0.0;  // N m, mu_tor r_geo f_n summed
    // Rolling stick (friction rolling_stick): the relative rotation about the tangents, child
    // relative to parent, sticks (two rotation rows, roll_weld) or rolls on against
    // roll_direction_P (unit, tangential, parent's frame, at the last event). apart: no rolling
    // stick. While the rolling sticks the patch does not roll (rolls is false).
    bool rolling = false;
    Mode roll = Mode::apart;
    Vec3 roll_direction_P = Vec3::Zero();
    Joint roll_weld;
    double roll_limit = 0.0;  // N m, mu_r lever f_n summed (lever: r_geo or rolling_lever)
  };
  std::span<const FrictionPatch> friction_patches() const { return patches_; }
  // The tangential force that holds a sticking patch's child at x (N, world, from the parent), and
  // its static limit sum mu_s f_n (N); zero for a patch that does not stick.
  struct PatchForce {
    Vec3 tangential_W = Vec3::Zero();
    double normal_force = 0.0;
    double static_limit = 0.0;
    // Torsional stick: the torque about the normal (parent to child) that holds the child's spin
    // (N m, zero unless the spin sticks) and its limit sum mu_tor r_geo f_n.
    double spin_torque = 0.0;
    double spin_limit = 0.0;
    // Rolling stick: the torque about the tangents (parent to child, N m, world) that holds the
    // child's rolling (zero unless it sticks) and its limit sum mu_r lever f_n.
    Vec3 roll_torque_W = Vec3::Zero();
    double roll_limit = 0.0;
  };
  std::vector<PatchForce> compute_patch_forces(double t, ConstVectorRef x);
  // A break-away needs |f_t| > (1 + kStaticLimitMargin) sum mu_s f_n: the margin is the accuracy
  // of the constraint multipliers (iterative refinement leaves about 1e-14 relative), so that a
  // load exactly at the limit (Gazebo's mu = 1 box on a 45 degree slope) holds.
  static constexpr double kStaticLimitMargin = 1e-11;
  // A sliding patch whose slip at an event is below this (m/s) is tested for sticking: the root
  // of z4 locates zero slip to 1e-14 s relative, about 1e-12 m/s at 100 m/s^2.
  static constexpr double kStickSpeed = 1e-9;
  // The same for a spin (rad/s).
  static constexpr double kStickSpin = 1e-9;
  // A patch of this many points or fewer may roll (FrictionPatch::rolls): on three or more, which
  // span an area unless they are in a line, the bodies cannot roll without a contact ending.
  static constexpr int kRollingPatchPoints = 2;
  // More candidate patches than this are refused (each takes two constraint rows, one more with
  // torsional stick and two more with rolling stick, inert while it does not stick, in every
  // evaluation).
  static constexpr std::size_t kMaxFrictionPatches = 500;

  // Contact kinematics for controllers (core/contact_jacobian.hpp): nv = 6 per free body.
  int velocity_size() const { return 6 * static_cast<int>(free_bodies_.size()); }
  // The column of a free body's first velocity in v (-1 for a fixed body).
  int velocity_column(int body) const;
  struct ContactFrame {
    Vec3 witness_A_W = Vec3::Zero();  // on A's surface, m
    Vec3 witness_B_W = Vec3::Zero();  // on B's surface, m
    Vec3 normal_W = Vec3::UnitZ();    // unit, from A to B
    Vec3 tangent1_W = Vec3::UnitX();  // the friction law's t1 (fdir1 projected, else world x)
    Vec3 tangent2_W = Vec3::UnitY();  // normal x tangent1
    double mu = 0.0;                  // friction coefficient along t1 (kinetic)
    double mu2 = 0.0;                 // along t2
    const ContactLawParameters* law = nullptr;
    int body_a = -1;
    int body_b = -1;
  };
  // For the contact `id` in contactDict at x: its frame, and the two bodies' blocks of the
  // Jacobian of the relative velocity of its witness points (B's minus A's, world; then w_B - w_A,
  // world), with the drift J' v of each. False when id is not in contact. Allocates nothing.
  struct ContactJacobian {
    ContactFrame frame;
    PointJacobian point_A;  // of A's witness point on A (subtracted)
    PointJacobian point_B;  // of B's witness point on B
  };
  bool compute_contact_jacobian(ConstVectorRef x, const ContactId& id, ContactJacobian& out);

  // Largest joint constraint violation at x: position (m or rad) and velocity (m/s or rad/s).
  struct ConstraintError {
    double position = 0.0;
    double velocity = 0.0;
  };
  // t: the time of x, for the commands of ideal velocity servos.
  ConstraintError compute_constraint_error(ConstVectorRef x, double t = 0.0);

 private:
  // Per body, the representative of its set: bodies joined by joints and, if through_contacts,
  // by the pairs in contactDict (fixed bodies stay alone).
  std::vector<int> coupled_sets(bool through_contacts) const;
  void update_kinematics(const double* x);
  void apply_gravity_and_inputs(double t);
  void apply_joint_efforts(double t);
  void apply_contact_forces(ContactResult* results);

  // Joint limits (multibody_joint_limits.cpp): a side per finite bound of a limited joint.
  struct LimitSide {
    int joint;     // index into Model::joints
    int sign;      // +1 the upper bound, -1 the lower
    double bound;  // rad or m
  };
  static std::vector<LimitSide> find_limit_sides(const Model& model);
  int limit_crossing_offset() const { return patches_.empty() ? 2 : 4; }
  // The penetration past the side's bound, p = sign (q - bound), and its rate.
  static JointCoordinate limit_penetration(const LimitSide& side, const JointCoordinate& q);
  JointCoordinate joint_coordinate(int joint) const;
  // z_start: the least distance to its bound of a side not pushing (falls through 0 when one
  // starts); z_end: the largest of a pushing side's, less the hysteresis (rises through 0 when one
  // stops). At the current kinematics.
  void compute_limit_crossings(double& z_start, double& z_end) const;
  // Switches the sides at the current kinematics (after a restart's projection), with a record
  // per switch.
  void update_joint_limits(double t, std::vector<EventRecord>& records);
  // The limit's effort on joint `joint` at coordinate q (0 unless a side pushes).
  double joint_limit_effort(int joint, const JointCoordinate& q) const;
  double joint_limit_energy(int joint, const JointCoordinate& q) const;
  // What one contact adds to its bodies' wrenches, in the order it adds them: B gets f_B_W, then
  // the moments moment_B_W and tau_B_W; A gets -f_B_W, then moment_A_W and -tau_B_W.
  struct ContactTerms {
    Vec3 f_B_W;
    Vec3 moment_B_W;  // of f_B_W at the contact point about B's centre of mass
    Vec3 tau_B_W;     // the law's torque on B (rolling, torsion)
    Vec3 moment_A_W;  // of -f_B_W about A's centre of mass
  };
  ContactTerms compute_contact_terms(const ContactPair& pair, PairId id, ContactResult* result);
  // The terms of a contact force applied at p_WC, and its result record (normal_W: the law's).
  static ContactTerms make_contact_terms(const ContactForce& force, const Vec3& p_WC,
                                         const BodyKinematics& body_a,
                                         const BodyKinematics& body_b);
  void fill_contact_result(ContactResult& r, const ContactPair& pair, PairId id,
                           const SignedDistance& geometry, const ContactKinematics& contact,
                           const ContactForce& force, const Vec3& p_WC);
  // A wheel's contact (models/multibody_wheels.cpp): the wheel frame, wheel-slip compliance,
  // plowing tilt and rolling resistance around the contact law.
  ContactTerms compute_wheel_contact_terms(const ContactPair& pair, PairId id, int wheel,
                                           ContactResult* result);
  // The servo command of every joint at t, into joint_commands_ and the constraint solver.
  void update_joint_commands(double t);
  // Prescribed bodies: velocity states set to their inputs at t (restarts), and the state rates.
  void set_prescribed_velocities(double t, double* x) const;
  void write_prescribed_rates(int body, const double* x, double* xdot) const;
  void add_contact_terms(int body, const ContactTerms& terms, bool body_is_b);
  void write_derivatives(const double* x, double* xdot);
  // With joints: the unconstrained accelerations of the jointed bodies into nu_dot_, and the
  // constraint rows at the current kinematics.
  void evaluate_constraints();
  // Every free body's state derivatives: jointed ones from nu_dot_, the others from their wrench.
  void write_body_rates(const double* x, double* xdot);
  // Forces of every kind into wrenches_ (the first stages of an evaluation).
  void compute_wrenches(double t, const double* x);
  EventOutcome rebuild_contacts(double t, std::string_view crossing, VectorRef x);
  // Bilateral contacts: switch one at t (the state x is that of the switch, kinematics current),
  // then the switches due by rule (contact starts among `records`, times) and by the host.
  EventRecord switch_bilateral(int contact, bool on, double t, std::string_view why);
  // Numbers per bilateral contact in discrete_state(): on, then the weld's seven vectors.
  static constexpr std::size_t kBilateralDiscreteSize = 22;
  enum class BilateralInstant { start, state_event, time_event };
  void apply_bilateral_rules(double t, VectorRef x, BilateralInstant instant,
                             EventOutcome& outcome);
  bool bilateral_rule_armed(int contact, double t) const;
  // Stick-slip friction (models/multibody_stick_slip.cpp).
  static std::vector<FrictionPatch> find_friction_patches(const Model& model);
  static std::vector<BilateralContact> patch_rows(std::span<const FrictionPatch> patches);
  int patch_of(int body_a, int body_b) const;  // -1: none
  // The patch (or -1) and its sign (+1: shape_a's body is its parent) of a stick_slip contact.
  std::pair<int, double> patch_of_contact(const ContactPair& pair) const;
  // Before the contact forces: zero sums, and each sliding patch's friction direction.
  void reset_patch_sums();
  // A sliding patch's slip (child at its anchor relative to the parent, tangential, m/s).
  Vec3 sliding_patch_slip(const FrictionPatch& patch) const;
  // The patch's mean point and unit normal (parent to child) and the tangential slip of its child
  // at the mean point (m/s), from the sums of the last force evaluation.
  struct PatchKinematics {
    Vec3 point_W = Vec3::Zero();
    Vec3 normal_W = Vec3::UnitZ();
    Vec3 slip_W = Vec3::Zero();
  };
  PatchKinematics patch_kinematics(const FrictionPatch& patch) const;
  // Multipliers with the welds as they are: every sticking patch's holding force.
  void solve_patch_forces(double t, const double* x, std::span<PatchForce> forces);
  void set_patch_weld(int patch, bool on, const PatchKinematics& at);
  void set_spin_weld(int patch, bool on, const PatchKinematics& at);
  void set_roll_weld(int patch, bool on, const PatchKinematics& at);
  // The constraint solver's switched-weld slots of a patch's spin and rolling rows.
  int spin_slot(int patch) const;
  int roll_slot(int patch) const;
  // The weld frame of a patch at `at` (anchors at the mean point, z along the normal).
  void make_patch_weld(const FrictionPatch& patch, const PatchKinematics& at, Joint& weld) const;
  // z3's measure of a sticking load against its limit: load - (1 + margin) limit (N), or that
  // over the limit when some patch has spin or rolling rows (forces and torques compared; with
  // no limit, the excess itself, whose sign is what counts).
  double break_away_excess(double load, double limit) const;
  // The spin of the patch's child relative to its parent about n_W, rad/s.
  double patch_spin(const FrictionPatch& patch, const Vec3& n_W) const;
  // The spin part of update_friction_patches: new and stopped spins stick on trial.
  void update_patch_spins(const std::vector<PatchKinematics>& at);
  // The same for the rolling (rolling stick).
  void update_patch_rolls(const std::vector<PatchKinematics>& at);
  // The tangential part of the relative rotation of the patch's child about n_W, rad/s.
  Vec3 patch_rolling(const FrictionPatch& patch, const Vec3& n_W) const;
  void set_slide_anchor(FrictionPatch& patch, const PatchKinematics& at) const;
  // Re-anchors the welds of sticking rolling patches at their current points (velocity rows), from
  // the sums of the last force evaluation; before every constraint evaluation.
  void reanchor_rolling_welds();
  // The velocity of a rolling patch's contact point (m/s, world) at `at`: between the bodies'
  // centres of curvature, c = p +- n / kappa, moving with them in the ratio of the curvatures
  // (exact for spheres rolling on spheres and planes), from the last force evaluation's sums.
  Vec3 moving_point_velocity(const FrictionPatch& patch, const PatchKinematics& at) const;
  // After a force evaluation at a restart: which patches roll (FrictionPatch::rolls); a sticking
  // patch whose kind changed is re-anchored where it is.
  void classify_rolling_patches();
  void compute_friction_crossings(double t, const double* x, double& z_slip, double& z_stick);
  // At every restart: patches whose contacts ended come apart; new and stopped ones stick if the
  // force that holds them is inside the static cone; sticking ones whose force is not slide.
  // break_away_root: z3 triggered this event.
  void update_friction_patches(double t, VectorRef x, EventOutcome& outcome,
                               bool break_away_root = false);
  // What of a patch switched: its translation, its spin or its rolling.
  enum class PatchPart { translation, spin, rolling };
  EventRecord patch_record(int patch, bool stick, double t, const PatchForce& force,
                           const PatchKinematics& at,
                           PatchPart part = PatchPart::translation) const;
  // A weld frame's 21 checkpoint numbers (anchors, then axes), written and read back.
  static void append_weld_frame(const Joint& weld, std::vector<double>& discrete);
  static void read_weld_frame(const double* numbers, int parent, int child, Joint& weld);
  // Checkpoint numbers of a patch's rolling stick (roll_rows_ only): mode, direction, weld.
  void append_roll_state(const FrictionPatch& patch, std::vector<double>& discrete) const;
  void restore_roll_state(int patch, const double* numbers);
  static constexpr std::size_t kPatchDiscreteSize = 31;  // mode, 3 vectors, weld's 7
  // With torsional stick, per patch also: spin mode, sign, spin normal, the spin weld's 7.
  static constexpr std::size_t kSpinDiscreteSize = 26;
  std::size_t patch_discrete_size() const {
    return kPatchDiscreteSize + (spin_rows_ ? kSpinDiscreteSize : 0) +
           (roll_rows_ ? kRollDiscreteSize : 0);
  }
  static constexpr std::size_t kRollDiscreteSize = 25;  // mode, direction, the weld's 7
  bool spin_rows_ = false;  // some patch has torsional stick: a spin row per patch
  bool roll_rows_ = false;  // some patch has rolling stick: two rolling rows per patch

  const Model& model_;
  ContactHandler contacts_;
  double smallest_shape_thickness_ = kInfinity;  // m, of the collision shapes

  std::vector<int> free_bodies_;  // indices of the bodies with states
  std::vector<FrictionPatch> patches_;
  std::vector<std::pair<std::pair<int, int>, int>> patch_index_;  // sorted (parent, child) -> patch
  std::vector<PatchForce> patch_forces_;  // per patch: workspace of the crossing functions
  ConstraintSolver constraints_;
  std::vector<char> jointed_;  // per body: a free body with a joint (constrained accelerations)

  // Workspace, sized once.
  std::vector<BodyKinematics> kinematics_;    // per body
  std::vector<Pose> X_WS_;                    // per shape
  std::vector<BodyWrench> wrenches_;          // per body
  std::vector<Vec6> nu_dot_;                  // per body: (a_Com_W, alpha_W)
  std::vector<char> input_overridden_;        // per input: a host value is set
  std::vector<Vec3> input_override_values_;   // per input
  std::vector<JointCommand> joint_commands_;  // per joint: servo command at the last evaluation
  bool has_servos_ = false;
  std::vector<int> shape_wheel_;                 // per shape: index into Model::wheels, -1 for none
  std::vector<int> prescribed_bodies_;           // indices of the prescribed bodies
  std::vector<Joint> welds_;                     // per bilateral contact: its frame while on
  std::vector<char> bilateral_on_;               // per bilateral contact
  std::vector<signed char> bilateral_requests_;  // per bilateral contact: -1 none, 0 off, 1 on
  std::vector<LimitSide> limit_sides_;
  std::vector<char> limit_pushing_;                  // per limit side
  std::vector<char> joint_limited_;                  // per joint: a side of its limit pushes
  double time_ = 0.0;                                // t of the last compute_wrenches
  std::set<std::pair<int, int>> stiffness_checked_;  // contact-material pairs (warnings)
  long rhs_count_ = 0;

  // Partial evaluations (prepare_partial_derivatives): the base point's contact terms, per pair
  // of contactDict in its order, and each body's pairs in that order (compressed rows).
  struct PartialContact {
    const ContactPair* pair;
    PairId id;
    int body_a;
    int body_b;
  };
  std::vector<int> body_of_state_;  // per state: its free body
  std::vector<PartialContact> partial_contacts_;
  std::vector<ContactTerms> base_terms_;       // per pair, at the base point
  std::vector<ContactTerms> perturbed_terms_;  // per pair, valid where pair_stamp_ is current
  std::vector<int> body_pairs_start_;          // per body + 1
  std::vector<int> body_pairs_;
  std::vector<int> body_pairs_next_;       // scratch of prepare_partial_derivatives
  std::vector<BodyWrench> base_external_;  // per body: gravity (no inputs or joint efforts)
  // Per evaluation: its stamp marks the perturbed bodies, the affected ones and the pairs redone.
  int partial_stamp_ = 0;
  std::vector<int> perturbed_stamp_;  // per body
  std::vector<int> affected_stamp_;   // per body
  std::vector<int> pair_stamp_;       // per pair
  std::vector<int> perturbed_bodies_;
  std::vector<int> affected_bodies_;
  std::vector<BodyKinematics> saved_kinematics_;  // per perturbed body, the base point's
  std::vector<Pose> saved_shape_poses_;           // their shapes' poses, in the same order
};

}  // namespace hybridsim
