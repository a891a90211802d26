// Simulator: the embedding interface. It integrates a scene Model (or a host's own HybridSystem)
// with any registered integrator under hybridsim's event machinery, and lets the host advance in
// time, read states, contact results and events, and set inputs between calls.
//
// Frames: W is the world frame, B a body frame. Units: SI (m, kg, s, N, rad). Times are simulated
// time in s. Quaternions are (w, x, y, z), unit length.
//
// Errors at the API edge (an unknown name, a bad value, a scene error) are exceptions (InputError
// and subclasses); numerical outcomes (a failed step, the Zeno guard) are statuses: the simulator
// then keeps the last state it computed and every further advance returns at once. A Simulator
// has no global state: independent simulators may run in parallel threads (one thread per
// simulator at a time).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/contact_law.hpp"
#include "core/friction_cone.hpp"
#include "core/friction_law.hpp"
#include "core/hybrid_system.hpp"
#include "core/math.hpp"
#include "core/model.hpp"
#include "integrators/integrator.hpp"
#include "integrators/simulation.hpp"

namespace hybridsim {

// Choices for a scene simulator; an empty field takes the scene's value (Model::simulation).
struct SimulatorConfig {
  // Registry name (list_integrators()); empty: the scene's.
  std::string integrator = {};
  std::optional<double> rtol = std::nullopt;  // relative tolerance
  // Absolute tolerance, in the units of each state (m, m/s, rad/s, quaternion units).
  std::optional<double> atol = std::nullopt;
  // s; the stop time: the horizon that integrator steps may reach without being cut at advance
  // targets (advancing beyond it is allowed).
  std::optional<double> stop_time = std::nullopt;
  // s; spacing of the observers' on_output calls (<= 0: only start, events and stop).
  std::optional<double> output_interval = std::nullopt;
  std::optional<double> max_step = std::nullopt;  // s, the largest integrator step allowed
  // Method options (IntegratorSettings). Table and linear solver: empty takes the scene's when the
  // integrator is the scene's, the integrator's default otherwise. step_size: s, fixed-step
  // methods only; empty takes the scene's.
  std::string table = {};
  std::string linear_solver = {};
  std::optional<double> step_size = std::nullopt;
  // Work guard (SimulationOptions): wall-time limit, s (0: none); steps per simulated second
  // (0: none); empty takes the defaults.
  std::optional<double> time_limit = std::nullopt;
  std::optional<double> step_budget = std::nullopt;
};

// The run options of a scene under a config, each empty field from the scene. InputError for a
// tolerance or stop time that is not positive and finite, a non-finite output interval, a
// max_step that is not positive, or method options the integrator does not have.
SimulationOptions make_simulation_options(const Model& model, const SimulatorConfig& config);

// The state of one body at the simulator's time.
struct BodyState {
  Vec3 position_W = Vec3::Zero();          // p_WB: origin of B in W, m
  Quat orientation_WB = Quat::Identity();  // rotation of B relative to W
  Vec3 linear_velocity_W = Vec3::Zero();   // velocity of B's origin in W, m/s
  Vec3 angular_velocity_W = Vec3::Zero();  // angular velocity of B in W, rad/s
  Vec3 com_position_W = Vec3::Zero();      // centre of mass in W, m
  Vec3 com_velocity_W = Vec3::Zero();      // velocity of the centre of mass in W, m/s
};

// Why an advance returned.
enum class AdvanceStop {
  target_reached,  // at the requested time
  event,           // at an event before the target (only when the host asked to stop at events)
  step_taken,      // step(): at the end of one integrator step
  halted           // the status is no longer ok (status() and status_message() say why)
};

// What an advance_to or step call did.
struct AdvanceResult {
  AdvanceStop stop = AdvanceStop::target_reached;  // why it returned
  double t = 0.0;                                  // the simulator's time on return, s
  SimulationStatus status = SimulationStatus::ok;  // the run's status on return
};

class Simulator {
 public:
  // Simulates a scene Model (from load_scene_file or ModelBuilder::build). InputError for an
  // unknown integrator or a non-positive tolerance or time.
  explicit Simulator(Model model, const SimulatorConfig& config = {});
  // Integrates a host's own hybrid system, which must outlive the simulator, with the named
  // integrator. Scene queries (model, body_state, contact_results, energy, input_value,
  // set_input, release_input) throw InputError.
  Simulator(HybridSystem& system, const SimulationOptions& options,
            const std::string& integrator = "cvode-bdf");
  ~Simulator();
  Simulator(Simulator&&) noexcept;
  Simulator& operator=(Simulator&&) noexcept;
  Simulator(const Simulator&) = delete;
  Simulator& operator=(const Simulator&) = delete;

  // --- Advancing -------------------------------------------------------------------------------
  // Advances to time t (s, >= time()). With stop_at_events it returns earlier, right after the
  // first event instant (state after the event's handling). Steps are never shortened to hit t:
  // the state at t comes from the integrator's dense output, so any sequence of advance_to calls
  // gives the same steps and events as one call (until the host changes an input).
  AdvanceResult advance_to(double t, bool stop_at_events = false);
  // One integrator step (to the end of the step the integrator has already taken beyond time(),
  // if any), with the events at its end handled.
  AdvanceResult step();

  // --- Reading ---------------------------------------------------------------------------------
  double time() const;                 // s
  SimulationStatus status() const;     // ok until a numerical failure
  std::string status_message() const;  // why the status is not ok; empty when ok
  // The system's state vector at time(). For scenes: 13 values per free body, in body order:
  // position of the body origin in W (m), quaternion q_WB (w, x, y, z), velocity of the body
  // origin in W (m/s), angular velocity of B in B (rad/s).
  const VectorX& state() const;
  // Integrator statistics and event counters so far, summed over restarts.
  SimulationResult statistics() const;
  // Every event record so far (initial contacts, contact starts and ends, time events, a guard
  // stop), in time order. clear_events() forgets them (hosts that poll and keep their own).
  const std::vector<EventRecord>& events() const;
  void clear_events();
  // Every warning so far (the summary's "warnings": "degenerate_mesh", "initial_overlap", "stiff_contact",
  // "energy_rise", "stall"), in time order; observers get each as it is raised (on_warning).
  const std::vector<Warning>& warnings() const;
  const SimulationOptions& options() const;    // the run options in force
  const std::string& integrator_name() const;  // the registry name of the integrator

  // Scene simulators only (InputError otherwise, and for unknown names):
  const Model& model() const;  // the scene being simulated
  // The state of the named body at time() (world frame; see BodyState).
  BodyState body_state(std::string_view body) const;
  // Coordinate and rate of the named joint at time(): rad and rad/s (revolute), m and m/s
  // (prismatic); spherical and fixed joints give the relative rotation angle and angular speed
  // (docs/scene-format.md, Joints). InputError for an unknown joint.
  JointCoordinate joint_state(std::string_view joint) const;
  // Results of the contact law for every pair in contact at time() (ContactResult, world frame);
  // Model::shape_label(result.shape_a) names a shape.
  std::vector<ContactResult> contact_results() const;
  // The named wheel's contact frame and slip at time() (the contact of the largest normal force
  // gives the frame; normal_force sums its contacts; without a contact the frame lies on the
  // normal along gravity at the nominal radius). InputError for an unknown wheel.
  struct WheelState : WheelContactState {
    double normal_force = 0.0;  // N
  };
  WheelState wheel_state(std::string_view wheel) const;
  // Kinetic + gravitational potential + elastic contact energy at time(), J.
  double energy() const;
  // The trajectory's columns after t (docs/outputs.md: per body position, quaternion, velocity
  // of the origin and angular velocity in W, per joint q and qd, energy, per wheel its slip), and
  // their values at state x: the CLI's trajectory rows, number for number. x is the state at
  // time(), or the one an observer is given during its call.
  std::vector<std::string> trajectory_columns() const;
  void trajectory_row(const VectorX& x, std::vector<double>& row) const;
  // The current value of an input (force N or torque N m, in its frame).
  Vec3 input_value(std::string_view input) const;
  // Replaces an input's signal by a constant value from time() on (force N or torque N m, in the
  // input's frame). Once the run has started a change is a time event with a restart of the
  // integrator, logged as an event record "input NAME set by the host to [x, y, z]"; before the
  // first advance or read it simply sets the starting value.
  void set_input(std::string_view input, const Vec3& value);
  // Returns an input to its scene signal from time() on (a time event, as set_input).
  void release_input(std::string_view input);

  // --- Contacts for controllers (docs/controllers.md) -----------------------------------------
  // Generalised velocities v: 6 per free body, in body order, exactly the state's velocity
  // entries (the velocity of the body origin in W, m/s; the angular velocity in B, rad/s).
  int velocity_size() const;
  // The column of the named body's first velocity in v; -1 for a fixed body.
  int velocity_column(std::string_view body) const;
  // One contact point in contact at time(), named by its id (ContactResult::pair and slot).
  struct ContactFrame {
    std::uint64_t pair = 0;
    int slot = 0;
    std::string body_a, body_b;       // A and B of the pair (A: the smaller shape index)
    Vec3 witness_A_W = Vec3::Zero();  // witness point on A's surface (seed Aw), m
    Vec3 witness_B_W = Vec3::Zero();  // witness point on B's surface (Bw), m
    Vec3 normal_W = Vec3::UnitZ();    // unit normal from A to B
    Vec3 tangent1_W = Vec3::UnitX();  // the friction law's first direction
    Vec3 tangent2_W = Vec3::UnitY();  // normal x tangent1
    double mu = 0.0;                  // friction coefficient along tangent1 (kinetic)
    double mu2 = 0.0;                 // along tangent2
    NormalLaw normal_law = NormalLaw::elastic;
    FrictionModel friction_law = FrictionModel::regularized_coulomb;
  };
  // InputError when (pair, slot) is not in contact at time() (a stale id after an event).
  ContactFrame contact_frame(std::uint64_t pair, int slot) const;
  // The contact Jacobian at time(): rows 0-2 map v to the relative velocity of the witness points
  // (B's minus A's, each moving with its body, W), rows 3-5 to w_B - w_A (W); `jacobian` is
  // 6 x velocity_size() (zero outside the two bodies' columns). `drift` is J' v (m/s^2, rad/s^2):
  // J v' + J' v is the relative acceleration. Allocates nothing. InputError for a stale id or a
  // wrong size.
  void contact_jacobian(std::uint64_t pair, int slot, Eigen::Ref<Eigen::MatrixXd> jacobian,
                        Eigen::Ref<Vec6> drift) const;
  // The same into a row-major matrix (a C host's buffer).
  using RowMajorJacobian = Eigen::Matrix<double, 6, Eigen::Dynamic, Eigen::RowMajor>;
  void contact_jacobian(std::uint64_t pair, int slot, Eigen::Ref<RowMajorJacobian> jacobian,
                        Eigen::Ref<Vec6> drift) const;
  // The linearised friction cone of a contact (core/friction_cone.hpp: compute_friction_cone):
  // edges x 3, C f <= 0 for a force f on B (W) inside it, on the contact's normal, tangent1 and mu.
  static Eigen::MatrixX3d friction_cone(
      const ContactFrame& contact, int edges = 6,
      ConeApproximation approximation = ConeApproximation::inscribed);

  // --- Bilateral contacts and constraint wrenches ----------------------------------------------
  // Switches the named bilateral contact on (at the bodies' current relative pose; the frame of
  // their deepest contact, else body A's axes at B's origin) or off, from time(): an event with a
  // restart, logged as bilateral_on / bilateral_off. Switching to the state it is in does
  // nothing. InputError for an unknown name.
  void set_bilateral(std::string_view name, bool on);
  bool bilateral_on(std::string_view name) const;
  // The wrench a joint or a bilateral contact transmits to its child (a bilateral's second body)
  // at time(): force (N) and torque (N m) about point_W, the child's anchor, world frame.
  struct ConstraintWrench {
    Vec3 force_W = Vec3::Zero();
    Vec3 torque_W = Vec3::Zero();
    Vec3 point_W = Vec3::Zero();
  };
  ConstraintWrench joint_wrench(std::string_view joint) const;
  ConstraintWrench bilateral_wrench(std::string_view name) const;

  // --- Observers -------------------------------------------------------------------------------
  // Called at every output time (start, each output_interval, the end of each advance that
  // reaches the stop time) and at every event instant, during advance_to and step. Add them
  // before the first advance or read to see the start; the observer must outlive the simulator.
  void add_observer(SimulationObserver& observer);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace hybridsim
