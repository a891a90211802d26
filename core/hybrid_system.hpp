// The HybridSystem interface (design.md §1): what the Simulator needs to integrate a hybrid ODE
// x' = f(t, x) with crossing functions z(t, x), state events, time events and outputs. The
// multibody system of models/ is one implementation; an embedder may write its own.
#pragma once

#include <algorithm>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "core/math.hpp"

namespace hybridsim {

// Writable and read-only views of a state-sized vector (x, x', z) without copies. Entries have
// the units of the system's state layout (for scenes: 13 per free body, core/rigid_body.hpp).
using VectorRef = Eigen::Ref<Eigen::VectorXd>;
using ConstVectorRef = Eigen::Ref<const Eigen::VectorXd>;

// One entry of the event log (spec/outputs.md, events JSONL). Fields that do not apply to a kind
// stay NaN or empty.
struct EventRecord {
  // contact_start: a shape pair entered the contact set. contact_end: it left it. time_event: an
  // input breakpoint or a host change of an input (see description). guard_stop: the Zeno guard
  // stopped the run. bilateral_on, bilateral_off: a bilateral contact was switched
  // (core/bilateral_contact.hpp); `bilateral` names it, pair_a and pair_b its bodies, point_W is
  // its anchor and normal_W its frame's z axis (on only), description says why. stick, slip: a
  // friction patch of stick-slip friction started to stick or to slide (see below). limit_on,
  // limit_off: a side of a joint limit started or stopped pushing (see below).
  enum class Kind {
    contact_start,
    contact_end,
    time_event,
    guard_stop,
    bilateral_on,
    bilateral_off,
    stick,
    slip,
    limit_on,
    limit_off
  };
  double t = 0.0;  // s, time of the event
  Kind kind = Kind::contact_start;
  std::string crossing;        // "z1", "z2", "z1,z2", or empty (initialisation, time events)
  std::string pair_a, pair_b;  // "body/shape" of A and B, A < B
  // The contact point (design.md §4b): "A-B#slot" with the global shape indices, stable while the
  // point lasts, and the features of A and B that make it ("shape" for one point per pair).
  std::string contact_id;
  std::string feature_a, feature_b;
  // Signed distance of the two shapes at the event (distanceOrg), m: < 0 penetrating.
  double distance = kNaN;
  double crossing_distance = kNaN;  // distance + contact_eps, the distance the force law uses, m
  Vec3 normal_W = Vec3::Constant(kNaN);  // unit contact normal from A to B, world frame
  Vec3 point_W = Vec3::Constant(kNaN);   // contact point C, world frame, m
  // contact_start only: the stored delta_dot- (m/s, positive approaching), and the stiffness and
  // damping the law keeps. elastic: c_res (N/m^2) and d (s/m); hunt_crossley: K (N/m^n) and
  // d (s/m); linear: kp (N/m) and kd (N s/m).
  double pre_impact_velocity = kNaN;  // m/s
  double c_res = kNaN;                // N/m^2, N/m^n or N/m by law (see above)
  double d_res = kNaN;                // s/m, or N s/m for the linear law
  std::string description;            // time events, guard stops and bilateral switches
  std::string bilateral;              // bilateral_on and bilateral_off: the contact's name
  // limit_on and limit_off (core/joint.hpp: JointLimit): the joint, its side ("lower" or
  // "upper"), the bound in `distance` (rad or m) and the joint rate at the switch in
  // pre_impact_velocity (rad/s or m/s).
  std::string joint;
  std::string limit_side;
  // stick and slip (stick-slip friction, a friction patch of two bodies: pair_a the parent,
  // pair_b the child, point_W its mean contact point, normal_W its normal): the tangential force
  // that holds it (stick: after the switch; slip: before) and its normal force, N.
  double tangential_force = kNaN;
  double normal_force = kNaN;
};

// The kind's name as in the events JSONL ("contact_start", ...).
std::string_view to_string(EventRecord::Kind kind);

// What happened at one event instant.
struct EventOutcome {
  bool state_changed = false;        // x was modified (the integrator must restart anyway)
  std::vector<EventRecord> records;  // log entries of this instant, in order (may be empty)
};

// What kind of instant an event log entry describes: initialization (the start time, the initial
// contact set), state_event (a crossing function triggered), time_event (next_time_event reached,
// or a host changed an input), guard_stop (the Zeno guard stopped the run).
enum class EventInstantKind { initialization, state_event, time_event, guard_stop };

// One event instant as reported to observers.
struct EventInstant {
  EventInstantKind kind = EventInstantKind::state_event;
  double t = 0.0;                // s
  std::vector<int> roots_found;  // state events: per crossing function, nonzero if it triggered
  EventOutcome outcome;          // what the system did there and the records it logged
};

// Something a run's host should know that does not stop the run (the summary's "warnings"):
// kind is "load", "initial_overlap", "stiff_contact", "energy_rise" or "stall".
struct Warning {
  double t = 0.0;  // s, the simulated time it refers to
  std::string kind;
  std::string message;  // one line, naming what it is about (a pair, a depth, a file)
};

class HybridSystem {
 public:
  virtual ~HybridSystem() = default;

  // Number of continuous states (the length of x).
  virtual int state_size() const = 0;
  // Writes the state at the start time into x0 (of length state_size()).
  virtual void initial_state(VectorRef x0) const = 0;

  // Sets the discrete state at the start time (for contacts: the initial contact set).
  virtual EventOutcome initialize(double t0, VectorRef x) = 0;

  // x' = f(t, x). Allocates nothing; may throw, the integrator adapter captures it.
  virtual void compute_derivatives(double t, ConstVectorRef x, VectorRef xdot) = 0;

  // DAE form for IDA (design.md §3): F(t, y, y') = 0 with y = (x, a), where a are
  // algebraic_size() algebraic variables (for joints: the constraint multipliers). The default has
  // no algebraic variables and F = y' - f(t, y); a system with a residual form of its own
  // overrides all three. Restarts of a DAE integrator start from x, guess_algebraic's a and
  // y' = (f(t, x), 0), which IDACalcIC makes consistent.
  virtual int algebraic_size() const { return 0; }
  virtual void guess_algebraic(double /*t*/, ConstVectorRef /*x*/, VectorRef a) { a.setZero(); }
  // Writes F (length state_size() + algebraic_size()). Allocates nothing; may throw.
  virtual void compute_residual(double t, ConstVectorRef y, ConstVectorRef yp, VectorRef residual);

  // Crossing functions z(t, x) and the direction in which each one triggers an event
  // (+1 rising through zero, -1 falling, 0 both).
  virtual int crossing_count() const = 0;
  virtual std::vector<int> crossing_directions() const = 0;
  virtual void compute_crossings(double t, ConstVectorRef x, VectorRef z) = 0;

  // A state event at t: roots_found[i] != 0 for each crossing function that triggered. May modify
  // x (and report it); the integrator restarts afterwards in any case.
  virtual EventOutcome handle_state_event(double t, VectorRef x,
                                          std::span<const int> roots_found) = 0;

  // The first time event strictly after t (+inf if none), and its handling.
  virtual double next_time_event(double /*t*/) const { return kInfinity; }
  virtual EventOutcome handle_time_event(double /*t*/, VectorRef /*x*/) { return {}; }

  // A bound on the next integrator step from (t, x), so that no contact is stepped over
  // (design.md §4); the Simulator asks again after every step. +inf for no bound.
  virtual double max_step_hint(double /*t*/, ConstVectorRef /*x*/) const { return kInfinity; }

  // For symplectic methods (semi-implicit Euler): true for each state that is a velocity, whose
  // derivative is an acceleration and on which the other states' derivatives depend; those
  // depend on positions and velocities only. Empty (the default): the system has no such split.
  virtual std::vector<bool> velocity_mask() const { return {}; }

  // For difference-quotient Jacobians: per state, a magnitude the state may take (its unit
  // scale), so that the increment is at least sqrt(u) times it. The error weights alone make a
  // state near zero (a velocity at rest, a quaternion's vector part at the identity) an increment
  // of sqrt(u) atol, whose quotient is rounding noise. Empty (the default): no floor.
  virtual std::vector<double> state_scales() const { return {}; }

  // Which states' derivatives may depend on which, for sparse Jacobians: writes a group id per
  // state (group_of_state has state_size() entries) such that the derivatives of a group depend on
  // the states of that group only. Valid from the last initialize or event handling until the
  // next (a contact couples two bodies only while its pair is in contact). The default puts every
  // state in one group (a dense Jacobian).
  virtual void state_coupling(std::span<int> group_of_state) const {
    std::fill(group_of_state.begin(), group_of_state.end(), 0);
  }

  // A finer sparsity than state_coupling's groups, for large systems where interactions chain
  // (a pile: every sphere touches a few others, and the chain spans the pile). Writes a block id
  // per state (block_of_state has state_size() entries) such that the derivatives of a block
  // depend only on the states of that block and of the blocks paired with it in coupled_blocks
  // (pairs of block ids, either order, no self pairs needed). Valid over the same interval as
  // state_coupling. The default: state_coupling's groups as blocks, no pairs.
  virtual void state_blocks(std::span<int> block_of_state,
                            std::vector<std::pair<int, int>>& coupled_blocks) const {
    state_coupling(block_of_state);
    coupled_blocks.clear();
  }
  // Marks (1) the states whose derivatives depend on their own block's states only, never on a
  // coupled block's, for the whole run (a free body's position and orientation: their rates are
  // its velocities). local has state_size() entries. The default marks none.
  virtual void local_states(std::span<char> local) const {
    std::fill(local.begin(), local.end(), char{0});
  }

  // Checkpoints (a long run continued by another process): the discrete state that the
  // continuous state needs to go on from a restart, as numbers (for scenes, contactDict's pairs
  // with the pre-impact velocities they stored), and a start from it. restore_discrete_state
  // replaces initialize for a run that continues at (t0, x) from discrete_state()'s numbers; it
  // throws InputError if they do not fit the system. The defaults: no discrete state, initialize.
  virtual std::vector<double> discrete_state() const { return {}; }
  virtual EventOutcome restore_discrete_state(double t0, VectorRef x,
                                              std::span<const double> /*discrete*/) {
    return initialize(t0, x);
  }

  // Partial right-hand sides for coloured difference quotients (integrators/block_jacobian.hpp):
  // each of the Jacobian's evaluations perturbs the states of a few blocks, no two coupled, and
  // reads only the derivatives of those blocks and of the blocks coupled to them, where a full
  // evaluation recomputes every body and every contact.
  // prepare_partial_derivatives takes (t, x) as the base point and returns true if the system
  // supports partial evaluations there (the default returns false: callers evaluate in full).
  // compute_partial_derivatives then takes an x that differs from the base only in the states
  // `perturbed` (the same t), and writes the derivatives of every state in the blocks of those
  // states and in the blocks coupled to them (state_blocks' blocks and pairs), exactly as
  // compute_derivatives would (bit for bit); the other entries of xdot are left as they were.
  // Valid until the next call of any other member.
  virtual bool prepare_partial_derivatives(double /*t*/, ConstVectorRef /*x*/) { return false; }
  virtual void compute_partial_derivatives(double t, ConstVectorRef x,
                                           std::span<const int> /*perturbed*/, VectorRef xdot) {
    compute_derivatives(t, x, xdot);
  }

  // Warnings about the start of a run at (t0, x), after initialize: what the loader skipped, an
  // initial overlap deeper than the contact law's scale, a contact the absolute tolerance atol
  // (in the state's units) cannot resolve. The default has none.
  virtual std::vector<Warning> start_warnings(double /*t0*/, ConstVectorRef /*x*/,
                                              double /*atol*/) {
    return {};
  }
  // Warnings about an event instant's records (a contact whose law is too stiff for the absolute
  // tolerance atol, ...), appended to `warnings`. The default has none.
  virtual void event_warnings(double /*t*/, const EventOutcome& /*outcome*/, double /*atol*/,
                              std::vector<Warning>& /*warnings*/) {}
  // The total energy at x (J), for a system that nothing feeds energy into (no inputs, actuators,
  // prescribed motion), so that a rise is a numerical fault worth a warning; NaN otherwise (the
  // default). Evaluated while the run is at x (outputs and events). energy_rise_tolerance is the
  // rise (J) above the starting energy that counts as one.
  virtual double passive_energy(ConstVectorRef /*x*/) { return kNaN; }
  virtual double energy_rise_tolerance(ConstVectorRef /*x0*/) const { return kInfinity; }

  // Number of right-hand-side evaluations since construction.
  virtual long rhs_evaluation_count() const = 0;
};

}  // namespace hybridsim
