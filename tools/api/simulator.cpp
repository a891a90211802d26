#include "hybridsim/simulator.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include <fmt/format.h>

#include "core/errors.hpp"
#include "core/friction_cone.hpp"
#include "integrators/hybrid_loop.hpp"
#include "models/multibody_system.hpp"
#include "models/trajectory_row.hpp"

namespace hybridsim {
namespace {

void require_positive(const char* key, double value) {
  if (!(value > 0.0) || !std::isfinite(value)) {
    throw InputError(fmt::format("{} = {}: must be a positive finite number", key, value));
  }
}

// Within [low, high]: values outside are typos that the integrator would only refuse later with a
// numerical failure (rtol below the precision of doubles, a step bound below a time's rounding).
void require_within(const char* key, double value, double low, double high, const char* why) {
  if (!(value >= low && value <= high)) {
    throw InputError(
        fmt::format("{} = {}: must lie in [{:g}, {:g}] ({})", key, value, low, high, why));
  }
}

void check_simulation_options(const SimulationOptions& options) {
  require_positive("stop_time", options.stop_time);
  require_positive("rtol", options.integrator.rtol);
  require_positive("atol", options.integrator.atol);
  require_within("rtol", options.integrator.rtol, 1e-14, 0.5,
                 "the precision of doubles, and an error of half the value");
  require_within("atol", options.integrator.atol, 1e-20, 1e6, "a state's size in m, m/s, rad/s");
  require_within("stop_time", options.stop_time - options.start_time, 1e-9, 1e12,
                 "the run's length in s");
  if (!std::isfinite(options.output_interval) || !std::isfinite(options.start_time) ||
      !(options.start_time < options.stop_time)) {
    throw InputError(fmt::format(
        "start_time = {}, stop_time = {}, output_interval = {}: need finite times, start < stop",
        options.start_time, options.stop_time, options.output_interval));
  }
  if (!(options.integrator.max_step > 0.0)) {
    throw InputError(fmt::format("max_step = {}: must be positive", options.integrator.max_step));
  }
  require_within("max_step", options.integrator.max_step, 1e-12, kInfinity,
                 "a step below 1e-12 s is below the rounding of the time");
  if (!(options.time_limit >= 0.0) || !std::isfinite(options.time_limit)) {
    throw InputError(
        fmt::format("time_limit = {}: must be 0 (none) or a positive number of "
                    "seconds of wall time",
                    options.time_limit));
  }
  if (!(options.step_budget >= 0.0) || !std::isfinite(options.step_budget)) {
    throw InputError(
        fmt::format("step_budget = {}: must be 0 (none) or a positive number of "
                    "steps per simulated second",
                    options.step_budget));
  }
}

}  // namespace

SimulationOptions make_simulation_options(const Model& model, const SimulatorConfig& config) {
  SimulationOptions options;
  options.stop_time = config.stop_time.value_or(model.simulation.stop_time);
  options.output_interval = config.output_interval.value_or(model.simulation.output_interval);
  options.integrator.rtol = config.rtol.value_or(model.simulation.rtol);
  options.integrator.atol = config.atol.value_or(
      model.simulation.atol.value_or(default_absolute_tolerance(options.integrator.rtol)));
  options.integrator.max_step = config.max_step.value_or(model.simulation.max_step);
  const bool scene_integrator =
      config.integrator.empty() || config.integrator == model.simulation.integrator;
  options.integrator.table =
      !config.table.empty() || !scene_integrator ? config.table : model.simulation.table;
  options.integrator.linear_solver = !config.linear_solver.empty() || !scene_integrator
                                         ? config.linear_solver
                                         : model.simulation.linear_solver;
  options.integrator.step_size = config.step_size.value_or(model.simulation.step_size);
  options.max_events_per_second = model.contact.max_events_per_second;
  options.time_limit = config.time_limit.value_or(options.time_limit);
  options.step_budget = config.step_budget.value_or(options.step_budget);
  check_simulation_options(options);
  check_integrator_settings(
      config.integrator.empty() ? model.simulation.integrator : config.integrator,
      options.integrator);
  return options;
}

// The simulator's state; it is also the loop's observer, recording events and fanning out to the
// host's observers. Heap-allocated so that the loop's references stay valid when a Simulator moves.
struct Simulator::Impl final : SimulationObserver {
  std::unique_ptr<Model> model;                // scene simulators
  std::unique_ptr<MultibodySystem> multibody;  // scene simulators
  HybridSystem* system = nullptr;
  std::string integrator_name;
  std::unique_ptr<Integrator> integrator;
  SimulationOptions options;
  std::unique_ptr<HybridLoop> loop;
  bool started = false;
  std::vector<SimulationObserver*> observers;
  std::vector<EventRecord> events;

  void setup() {
    integrator = make_integrator(integrator_name);
    loop = std::make_unique<HybridLoop>(*system, *integrator, options);
  }

  void ensure_started() {
    if (started) return;
    started = true;
    loop->start(this);
  }

  void on_output(double t, const VectorX& x) override {
    for (SimulationObserver* observer : observers) observer->on_output(t, x);
  }

  void on_event(const EventInstant& instant, const VectorX& x) override {
    events.insert(events.end(), instant.outcome.records.begin(), instant.outcome.records.end());
    for (SimulationObserver* observer : observers) observer->on_event(instant, x);
  }

  void on_warning(const Warning& warning) override {
    for (SimulationObserver* observer : observers) observer->on_warning(warning);
  }

  MultibodySystem& scene() const {
    if (!multibody) {
      throw InputError("this simulator integrates a user-defined system: it has no scene");
    }
    return *multibody;
  }

  int find_input(std::string_view name) const {
    const Model& m = scene().model();
    for (std::size_t i = 0; i < m.inputs.size(); ++i) {
      if (m.inputs[i].name == name) return static_cast<int>(i);
    }
    throw InputError(fmt::format("{}: no input named '{}'", m.name, name));
  }

  AdvanceResult finish_advance(HybridLoop::Stop stop) {
    AdvanceResult result;
    result.t = loop->time();
    result.status = loop->result().status;
    switch (stop) {
      case HybridLoop::Stop::target_reached:
        result.stop = AdvanceStop::target_reached;
        break;
      case HybridLoop::Stop::event:
        result.stop = AdvanceStop::event;
        break;
      case HybridLoop::Stop::step_taken:
        result.stop = AdvanceStop::step_taken;
        break;
      case HybridLoop::Stop::halted:
        result.stop = AdvanceStop::halted;
        break;
    }
    // The stop time (or where a halted run stands) gets its output row, as in a CLI run.
    if (stop == HybridLoop::Stop::halted || loop->time() >= options.stop_time) loop->finish();
    return result;
  }
};

Simulator::Simulator(Model model, const SimulatorConfig& config) : impl_(std::make_unique<Impl>()) {
  impl_->options = make_simulation_options(model, config);
  impl_->integrator_name =
      config.integrator.empty() ? model.simulation.integrator : config.integrator;
  impl_->model = std::make_unique<Model>(std::move(model));
  impl_->multibody = std::make_unique<MultibodySystem>(*impl_->model);
  impl_->system = impl_->multibody.get();
  impl_->setup();
}

Simulator::Simulator(HybridSystem& system, const SimulationOptions& options,
                     const std::string& integrator)
    : impl_(std::make_unique<Impl>()) {
  check_simulation_options(options);
  check_integrator_settings(integrator, options.integrator);
  impl_->options = options;
  impl_->integrator_name = integrator;
  impl_->system = &system;
  impl_->setup();
}

Simulator::~Simulator() = default;
Simulator::Simulator(Simulator&&) noexcept = default;
Simulator& Simulator::operator=(Simulator&&) noexcept = default;

AdvanceResult Simulator::advance_to(double t, bool stop_at_events) {
  if (!std::isfinite(t)) throw InputError(fmt::format("advance_to({}): not a finite time", t));
  impl_->ensure_started();
  if (t < impl_->loop->time()) {
    throw InputError(fmt::format("advance_to({:.17g}): before the current time {:.17g} s", t,
                                 impl_->loop->time()));
  }
  return impl_->finish_advance(impl_->loop->advance(t, stop_at_events, false));
}

AdvanceResult Simulator::step() {
  impl_->ensure_started();
  const SimulationOptions& o = impl_->options;
  const double t = impl_->loop->time();
  // Below the stop time a step may reach it; beyond, each step call may cover one more span of
  // the run's length.
  const double target = t < o.stop_time ? o.stop_time : t + (o.stop_time - o.start_time);
  return impl_->finish_advance(impl_->loop->advance(target, false, true));
}

double Simulator::time() const {
  return impl_->started ? impl_->loop->time() : impl_->options.start_time;
}

SimulationStatus Simulator::status() const {
  return impl_->started ? impl_->loop->result().status : SimulationStatus::ok;
}

std::string Simulator::status_message() const {
  return impl_->started ? impl_->loop->result().message : std::string();
}

const VectorX& Simulator::state() const {
  impl_->ensure_started();
  return impl_->loop->state();
}

SimulationResult Simulator::statistics() const {
  if (!impl_->started) return {};
  return impl_->loop->result();
}

const std::vector<EventRecord>& Simulator::events() const {
  impl_->ensure_started();
  return impl_->events;
}

const std::vector<Warning>& Simulator::warnings() const {
  impl_->ensure_started();
  return impl_->loop->warnings();
}

void Simulator::clear_events() {
  impl_->events.clear();
}

const SimulationOptions& Simulator::options() const {
  return impl_->options;
}

const std::string& Simulator::integrator_name() const {
  return impl_->integrator_name;
}

const Model& Simulator::model() const {
  return impl_->scene().model();
}

BodyState Simulator::body_state(std::string_view body) const {
  MultibodySystem& scene = impl_->scene();
  const Model& m = scene.model();
  const auto it =
      std::find_if(m.bodies.begin(), m.bodies.end(), [&](const Body& b) { return b.name == body; });
  if (it == m.bodies.end()) throw InputError(fmt::format("{}: no body named '{}'", m.name, body));
  const BodyKinematics& k = scene.compute_kinematics(state())[it - m.bodies.begin()];
  BodyState s;
  s.position_W = k.X_WB.translation;
  s.orientation_WB = k.q_WB;
  s.angular_velocity_W = k.w_WB_W;
  s.com_position_W = k.p_WCom;
  s.com_velocity_W = k.v_WCom_W;
  s.linear_velocity_W = k.v_WCom_W + k.w_WB_W.cross(s.position_W - k.p_WCom);
  return s;
}

JointCoordinate Simulator::joint_state(std::string_view joint) const {
  MultibodySystem& scene = impl_->scene();
  const int index = scene.model().find_joint(std::string(joint));
  if (index < 0) {
    throw InputError(fmt::format("{}: no joint named '{}'", scene.model().name, joint));
  }
  return scene.compute_joint_coordinates(state())[index];
}

Simulator::WheelState Simulator::wheel_state(std::string_view wheel) const {
  MultibodySystem& scene = impl_->scene();
  const int index = scene.model().find_wheel(std::string(wheel));
  if (index < 0) {
    throw InputError(fmt::format("{}: no wheel named '{}'", scene.model().name, wheel));
  }
  const MultibodySystem::WheelOutput output =
      scene.compute_wheel_outputs(state())[static_cast<std::size_t>(index)];
  WheelState result;
  static_cast<WheelContactState&>(result) = output.state;
  result.normal_force = output.normal_force;
  return result;
}

std::vector<ContactResult> Simulator::contact_results() const {
  MultibodySystem& scene = impl_->scene();
  return scene.compute_contact_results(time(), state());
}

double Simulator::energy() const {
  return impl_->scene().compute_energy(state());
}

std::vector<std::string> Simulator::trajectory_columns() const {
  return trajectory_column_names(model());
}

void Simulator::trajectory_row(const VectorX& x, std::vector<double>& row) const {
  compute_trajectory_row(impl_->scene(), x, row);
}

Vec3 Simulator::input_value(std::string_view input) const {
  return impl_->scene().input_value(impl_->find_input(input), time());
}

void Simulator::set_input(std::string_view input, const Vec3& value) {
  const int index = impl_->find_input(input);
  if (!value.allFinite()) {
    throw InputError(fmt::format("set_input('{}'): the value must be finite", input));
  }
  impl_->scene().set_input_override(index, value);
  if (!impl_->started) return;  // the run starts with the host's value
  EventRecord record;
  record.t = time();
  record.kind = EventRecord::Kind::time_event;
  record.description = fmt::format("input {} set by the host to [{:.17g}, {:.17g}, {:.17g}]", input,
                                   value.x(), value.y(), value.z());
  impl_->loop->interrupt({record});
}

void Simulator::release_input(std::string_view input) {
  const int index = impl_->find_input(input);
  impl_->scene().clear_input_override(index);
  if (!impl_->started) return;
  EventRecord record;
  record.t = time();
  record.kind = EventRecord::Kind::time_event;
  record.description = fmt::format("input {} released by the host to its signal", input);
  impl_->loop->interrupt({record});
}

int Simulator::velocity_size() const {
  return impl_->scene().velocity_size();
}

int Simulator::velocity_column(std::string_view body) const {
  const MultibodySystem& scene = impl_->scene();
  const int index = scene.model().find_body(std::string(body));
  if (index < 0) throw InputError(fmt::format("{}: no body named '{}'", scene.model().name, body));
  return scene.velocity_column(index);
}

namespace {

MultibodySystem::ContactJacobian find_contact(MultibodySystem& scene, const VectorX& x, double t,
                                              std::uint64_t pair, int slot) {
  MultibodySystem::ContactJacobian contact;
  if (!scene.compute_contact_jacobian(x, ContactId{pair, slot}, contact)) {
    throw InputError(fmt::format(
        "contact {}-{}#{} is not in contact at t = {} s (an id from before an event is stale)",
        pair >> 32, pair & 0xffffffffu, slot, t));
  }
  return contact;
}

}  // namespace

Simulator::ContactFrame Simulator::contact_frame(std::uint64_t pair, int slot) const {
  MultibodySystem& scene = impl_->scene();
  const MultibodySystem::ContactJacobian c = find_contact(scene, state(), time(), pair, slot);
  ContactFrame frame;
  frame.pair = pair;
  frame.slot = slot;
  frame.body_a = scene.model().bodies[c.frame.body_a].name;
  frame.body_b = scene.model().bodies[c.frame.body_b].name;
  frame.witness_A_W = c.frame.witness_A_W;
  frame.witness_B_W = c.frame.witness_B_W;
  frame.normal_W = c.frame.normal_W;
  frame.tangent1_W = c.frame.tangent1_W;
  frame.tangent2_W = c.frame.tangent2_W;
  frame.mu = c.frame.mu;
  frame.mu2 = c.frame.mu2;
  frame.normal_law = c.frame.law->normal_law;
  frame.friction_law = c.frame.law->friction.model;
  return frame;
}

namespace {

template <typename Matrix>
void fill_contact_jacobian(MultibodySystem& scene, const VectorX& x, double t, std::uint64_t pair,
                           int slot, Matrix& jacobian, Eigen::Ref<Vec6>& drift) {
  const int nv = scene.velocity_size();
  if (jacobian.rows() != 6 || jacobian.cols() != nv) {
    throw InputError(fmt::format("contact_jacobian: the matrix is {} x {}, must be 6 x {}",
                                 jacobian.rows(), jacobian.cols(), nv));
  }
  const MultibodySystem::ContactJacobian c = find_contact(scene, x, t, pair, slot);
  jacobian.setZero();
  const int column_a = scene.velocity_column(c.frame.body_a);
  const int column_b = scene.velocity_column(c.frame.body_b);
  if (column_b >= 0) jacobian.template middleCols<6>(column_b) += c.point_B.jacobian;
  if (column_a >= 0) jacobian.template middleCols<6>(column_a) -= c.point_A.jacobian;
  // A fixed body is at rest: its point has no drift.
  drift = c.point_B.drift - c.point_A.drift;
}

}  // namespace

void Simulator::contact_jacobian(std::uint64_t pair, int slot, Eigen::Ref<Eigen::MatrixXd> jacobian,
                                 Eigen::Ref<Vec6> drift) const {
  fill_contact_jacobian(impl_->scene(), state(), time(), pair, slot, jacobian, drift);
}

void Simulator::contact_jacobian(std::uint64_t pair, int slot,
                                 Eigen::Ref<RowMajorJacobian> jacobian,
                                 Eigen::Ref<Vec6> drift) const {
  fill_contact_jacobian(impl_->scene(), state(), time(), pair, slot, jacobian, drift);
}

Eigen::MatrixX3d Simulator::friction_cone(const ContactFrame& contact, int edges,
                                          ConeApproximation approximation) {
  if (edges < 3) throw InputError(fmt::format("friction cone: {} edges; needs at least 3", edges));
  Eigen::Matrix<double, Eigen::Dynamic, 3, Eigen::RowMajor> rows(edges, 3);
  compute_friction_cone(contact.normal_W, contact.tangent1_W, contact.mu, edges, approximation,
                        rows.data());
  return rows;
}

namespace {

int find_bilateral(const Model& model, std::string_view name) {
  const int index = model.find_bilateral_contact(std::string(name));
  if (index < 0) {
    throw InputError(fmt::format("{}: no bilateral contact named '{}'", model.name, name));
  }
  return index;
}

}  // namespace

void Simulator::set_bilateral(std::string_view name, bool on) {
  MultibodySystem& scene = impl_->scene();
  const int index = find_bilateral(scene.model(), name);
  impl_->ensure_started();  // a switch acts on the running state
  if (!scene.request_bilateral(index, on)) return;
  EventRecord record;
  record.t = time();
  record.kind = EventRecord::Kind::time_event;
  record.description = fmt::format("bilateral {} switched {} by the host", name, on ? "on" : "off");
  impl_->loop->interrupt({record});
}

bool Simulator::bilateral_on(std::string_view name) const {
  impl_->ensure_started();  // a rule may switch it on at the start
  const MultibodySystem& scene = impl_->scene();
  return scene.bilateral_on(find_bilateral(scene.model(), name));
}

namespace {

Simulator::ConstraintWrench constraint_wrench(MultibodySystem& scene, double t, const VectorX& x,
                                              std::size_t index) {
  const Model& model = scene.model();
  std::vector<MultibodySystem::ConstraintWrench> wrenches(model.joints.size() +
                                                          model.bilateral_contacts.size());
  scene.compute_constraint_wrenches(t, x, wrenches);
  const MultibodySystem::ConstraintWrench& w = wrenches[index];
  return {w.force_W, w.torque_W, w.point_W};
}

}  // namespace

Simulator::ConstraintWrench Simulator::joint_wrench(std::string_view joint) const {
  MultibodySystem& scene = impl_->scene();
  const int index = scene.model().find_joint(std::string(joint));
  if (index < 0) {
    throw InputError(fmt::format("{}: no joint named '{}'", scene.model().name, joint));
  }
  return constraint_wrench(scene, time(), state(), static_cast<std::size_t>(index));
}

Simulator::ConstraintWrench Simulator::bilateral_wrench(std::string_view name) const {
  MultibodySystem& scene = impl_->scene();
  const int index = find_bilateral(scene.model(), name);
  return constraint_wrench(scene, time(), state(),
                           scene.model().joints.size() + static_cast<std::size_t>(index));
}

void Simulator::add_observer(SimulationObserver& observer) {
  impl_->observers.push_back(&observer);
}

}  // namespace hybridsim
