// The HybridSystem interface (design.md §1): what the Simulator needs to integrate a hybrid ODE
// x' = f(t, x) with crossing functions z(t, x), state events, time events and outputs. The
// multibody system of models/ is one implementation; an embedder may write its own.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "core/math.hpp"

namespace hybridsim {

using VectorRef = Eigen::Ref<Eigen::VectorXd>;
using ConstVectorRef = Eigen::Ref<const Eigen::VectorXd>;

// One entry of the event log (spec/outputs.md, events JSONL).
struct EventRecord {
  enum class Kind { contact_start, contact_end, time_event, guard_stop };
  double t = 0.0;
  Kind kind = Kind::contact_start;
  std::string crossing;             // "z1", "z2", or empty (initialisation, time events)
  std::string pair_a, pair_b;       // "body/shape" of A and B, A < B
  double distance = kNaN;           // distanceOrg at the event, m
  double crossing_distance = kNaN;  // distanceOrg + contact_eps (the force-law distance), m
  Vec3 normal_W = Vec3::Constant(kNaN);
  Vec3 point_W = Vec3::Constant(kNaN);
  double pre_impact_velocity = kNaN;  // stored delta_dot-, m/s, positive approaching
  double c_res = kNaN;                // N/m^2
  double d_res = kNaN;                // s/m
  std::string description;            // time events and guard stops
};

std::string_view to_string(EventRecord::Kind kind);

// What happened at one event instant.
struct EventOutcome {
  bool state_changed = false;  // x was modified (the integrator must restart anyway)
  std::vector<EventRecord> records;
};

// What kind of instant an event log entry describes.
enum class EventInstantKind { initialization, state_event, time_event, guard_stop };

struct EventInstant {
  EventInstantKind kind = EventInstantKind::state_event;
  double t = 0.0;
  std::vector<int> roots_found;  // state events: per crossing function, nonzero if it triggered
  EventOutcome outcome;
};

class HybridSystem {
 public:
  virtual ~HybridSystem() = default;

  virtual int state_size() const = 0;
  virtual void initial_state(VectorRef x0) const = 0;

  // Sets the discrete state at the start time (for contacts: the initial contact set).
  virtual EventOutcome initialize(double t0, VectorRef x) = 0;

  // x' = f(t, x). Allocates nothing; may throw, the integrator adapter captures it.
  virtual void compute_derivatives(double t, ConstVectorRef x, VectorRef xdot) = 0;

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

  // Number of right-hand-side evaluations since construction.
  virtual long rhs_evaluation_count() const = 0;
};

}  // namespace hybridsim
