#include "tools/output_writers.hpp"

#include "collision/contact_manifold.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>

#include <fmt/format.h>

#include "core/errors.hpp"
#include "events/event_log.hpp"
#include "integrators/run_counters.hpp"
#include "models/optional_module.hpp"
#include "models/trajectory_row.hpp"

namespace hybridsim {

std::unique_ptr<TrajectoryTable> open_hdf5_trajectory(const std::string& path,
                                                      const std::vector<std::string>& columns) {
  const std::string purpose = fmt::format("{}: an HDF5 trajectory", path);
  auto* open =
      optional_module_function<Hdf5OpenFunction>("hdf5", "hybridsim_hdf5_open", purpose.c_str());
  std::string error;
  std::unique_ptr<TrajectoryTable> table(open(path, columns, error));
  if (!table) throw InputError(error);
  return table;
}

namespace {

nlohmann::json to_json(const Vec3& v) {
  return nlohmann::json::array({v.x(), v.y(), v.z()});
}

// A JSON number, or null for NaN (JSON has no NaN).
nlohmann::json number_or_null(double value) {
  return std::isfinite(value) ? nlohmann::json(value) : nlohmann::json(nullptr);
}

}  // namespace

nlohmann::json event_record_json(const EventRecord& record) {
  nlohmann::json line;
  line["t"] = record.t;
  line["kind"] = std::string(to_string(record.kind));
  if (record.kind == EventRecord::Kind::contact_start ||
      record.kind == EventRecord::Kind::contact_end) {
    line["crossing"] =
        record.crossing.empty() ? nlohmann::json(nullptr) : nlohmann::json(record.crossing);
    line["pair"] = {record.pair_a, record.pair_b};
    line["contact_id"] = record.contact_id;
    line["feature_a"] = record.feature_a;
    line["feature_b"] = record.feature_b;
    line["distance"] = record.distance;
    line["normal"] = to_json(record.normal_W);
    line["point"] = to_json(record.point_W);
  }
  if (record.kind == EventRecord::Kind::contact_start) {
    line["v_pre"] = record.pre_impact_velocity;
    line["c_res"] = record.c_res;
    line["d_res"] = number_or_null(record.d_res);
  }
  if (record.kind == EventRecord::Kind::bilateral_on ||
      record.kind == EventRecord::Kind::bilateral_off) {
    line["bilateral"] = record.bilateral;
    line["bodies"] = {record.pair_a, record.pair_b};
    if (record.kind == EventRecord::Kind::bilateral_on) {
      line["point"] = to_json(record.point_W);
      line["normal"] = to_json(record.normal_W);
    }
  }
  if (record.kind == EventRecord::Kind::limit_on || record.kind == EventRecord::Kind::limit_off) {
    line["joint"] = record.joint;
    line["side"] = record.limit_side;
    line["bound"] = record.distance;
    line["rate"] = record.pre_impact_velocity;
  }
  if (record.kind == EventRecord::Kind::stick || record.kind == EventRecord::Kind::slip) {
    line["bodies"] = {record.pair_a, record.pair_b};
    line["point"] = to_json(record.point_W);
    line["normal"] = to_json(record.normal_W);
    line["tangential_force"] = record.tangential_force;
    line["normal_force"] = record.normal_force;
  }
  if (!record.description.empty()) line["description"] = record.description;
  return line;
}

namespace {

OutputFile open_output(const std::string& path) {
  return OutputFile(path);
}

}  // namespace

RunWriter::RunWriter(MultibodySystem& system, const RunOutputs& outputs, double start_time,
                     double stop_time)
    : system_(system), outputs_(outputs), recorder_(system, true) {
  if (outputs.progress) progress_ = std::make_unique<ProgressBar>(start_time, stop_time);
  if (!outputs.diagnostics_path.empty()) {
    diagnostics_ = open_output(outputs.diagnostics_path);
    diagnostics_ << "t,energy.total,energy.kinetic,energy.potential,energy.elastic,"
                    "contacts.count,steps,step_size\n";
  }
  if (!outputs.trajectory_path.empty()) {
    std::vector<std::string> names = trajectory_column_names(system.model());
    if (outputs.constraint_wrenches) {
      const Model& model = system.model();
      constraint_wrenches_.resize(model.joints.size() + model.bilateral_contacts.size());
      for (std::size_t i = 0; i < constraint_wrenches_.size(); ++i) {
        const bool joint = i < model.joints.size();
        const std::string& name =
            joint ? model.joints[i].name : model.bilateral_contacts[i - model.joints.size()].name;
        if (!joint) names.push_back(name + ".on");
        for (const char* column : {"fx", "fy", "fz", "tx", "ty", "tz"}) {
          names.push_back(name + '.' + column);
        }
      }
    }
    // Checked before the file is opened: a bad pattern leaves no file behind.
    trajectory_selected_ = select_trajectory_columns(names, outputs.trajectory.column_patterns);
    if (outputs.trajectory_hdf5) {
      std::vector<std::string> columns = {"t"};
      for (const std::size_t column : trajectory_selected_) columns.push_back(names[column]);
      hdf5_ = open_hdf5_trajectory(outputs.trajectory_path, columns);
    } else {
      trajectory_ = open_output(outputs.trajectory_path);
      trajectory_ << "t";
      for (const std::size_t column : trajectory_selected_) trajectory_ << ',' << names[column];
      trajectory_ << '\n';
    }
  }
  if (!outputs.events_path.empty()) events_ = open_output(outputs.events_path);
  if (!outputs.contacts_path.empty()) {
    contacts_ = open_output(outputs.contacts_path);
    contacts_ << "t,pair_a,pair_b,contact_id,feature_a,feature_b,penetration,penetration_rate,slip_"
                 "x,slip_y,slip_z,normal_force,"
                 "friction_x,friction_y,friction_z,force_x,force_y,force_z,torque_x,torque_y,"
                 "torque_z,point_x,point_y,point_z,normal_x,normal_y,normal_z,witness_a_x,"
                 "witness_a_y,witness_a_z,witness_b_x,witness_b_y,witness_b_z";
    if (outputs.contact_frames) {
      contacts_ << ",tangent1_x,tangent1_y,tangent1_z,tangent2_x,tangent2_y,tangent2_z,mu,mu2";
    }
    contacts_ << '\n';
  }
}

void RunWriter::write_contact_rows(double t, const VectorX& x) {
  for (const ContactResult& r : system_.compute_contact_results(t, x)) {
    std::string row = fmt::format(
        "{:.17g},{},{},{}-{}#{},{},{},{:.17g},{:.17g}", t, system_.model().shape_label(r.shape_a),
        system_.model().shape_label(r.shape_b), r.shape_a, r.shape_b, r.slot,
        format_feature(feature_from_numbers(r.feature_a)),
        format_feature(feature_from_numbers(r.feature_b)), r.penetration, r.penetration_rate);
    for (const Vec3* v : {&r.slip_velocity_W}) {
      row += fmt::format(",{:.17g},{:.17g},{:.17g}", v->x(), v->y(), v->z());
    }
    row += fmt::format(",{:.17g}", r.normal_force);
    for (const Vec3* v : {&r.friction_force_W, &r.force_on_B_W, &r.torque_on_B_W, &r.point_W,
                          &r.normal_W, &r.witness_A_W, &r.witness_B_W}) {
      row += fmt::format(",{:.17g},{:.17g},{:.17g}", v->x(), v->y(), v->z());
    }
    if (outputs_.contact_frames) {
      MultibodySystem::ContactJacobian c;
      if (system_.compute_contact_jacobian(x, ContactId{r.pair, r.slot}, c)) {
        const MultibodySystem::ContactFrame& f = c.frame;
        for (const Vec3* v : {&f.tangent1_W, &f.tangent2_W}) {
          row += fmt::format(",{:.17g},{:.17g},{:.17g}", v->x(), v->y(), v->z());
        }
        row += fmt::format(",{:.17g},{:.17g}", f.mu, f.mu2);
      }
    }
    contacts_ << row << '\n';
  }
}

RunWriter::~RunWriter() = default;

void RunWriter::write_trajectory_row(double t, const VectorX& x) {
  compute_trajectory_row(system_, x, trajectory_values_);
  if (!constraint_wrenches_.empty()) {
    system_.compute_constraint_wrenches(t, x, constraint_wrenches_);
    const std::size_t joints = system_.model().joints.size();
    for (std::size_t i = 0; i < constraint_wrenches_.size(); ++i) {
      if (i >= joints) {
        trajectory_values_.push_back(system_.bilateral_on(static_cast<int>(i - joints)) ? 1 : 0);
      }
      const MultibodySystem::ConstraintWrench& w = constraint_wrenches_[i];
      trajectory_values_.insert(trajectory_values_.end(),
                                {w.force_W.x(), w.force_W.y(), w.force_W.z(), w.torque_W.x(),
                                 w.torque_W.y(), w.torque_W.z()});
    }
  }
  if (hdf5_) {
    hdf5_row_.assign(1, t);
    for (const std::size_t column : trajectory_selected_) {
      hdf5_row_.push_back(trajectory_values_[column]);
    }
    hdf5_->add_row(hdf5_row_);
    return;
  }
  std::string row = fmt::format("{:.17g}", t);
  for (const std::size_t column : trajectory_selected_) {
    fmt::format_to(std::back_inserter(row), ",{:.17g}", trajectory_values_[column]);
  }
  trajectory_ << row << '\n';
}

void RunWriter::on_output(double t, const VectorX& x) {
  if (!have_initial_energy_) {
    initial_energy_ = system_.compute_energy(x);
    have_initial_energy_ = true;
  }
  if (writes_trajectory()) write_trajectory_row(t, x);
  if (contacts_.is_open()) write_contact_rows(t, x);
  if (diagnostics_.is_open()) write_diagnostics_row(t, x);
  if (outputs_.record_replay) recorder_.on_output(t, x);
}

void RunWriter::on_warning(const Warning& warning) {
  const nlohmann::json entry = {
      {"t", warning.t}, {"kind", warning.kind}, {"message", warning.message}};
  warnings_.push_back(entry);
  if (outputs_.record_replay) recorder_.on_warning(entry);
  if (!outputs_.quiet) {
    std::cerr << fmt::format("hybridsim: warning: {}: {}\n", warning.kind, warning.message);
  }
}

void RunWriter::write_diagnostics_row(double t, const VectorX& x) {
  const MultibodySystem::EnergyParts energy = system_.compute_energy_parts(x);
  const long steps = loop_ != nullptr ? loop_->result().stats.steps : 0;
  // The mean step over the interval since the row before (no step taken: empty).
  std::string step_size;
  if (steps > last_diagnostics_steps_ && !std::isnan(last_diagnostics_time_)) {
    step_size = fmt::format("{:.17g}", (t - last_diagnostics_time_) /
                                           static_cast<double>(steps - last_diagnostics_steps_));
  }
  diagnostics_ << fmt::format("{:.17g},{:.17g},{:.17g},{:.17g},{:.17g},{},{},{}\n", t,
                              energy.kinetic + energy.potential + energy.elastic, energy.kinetic,
                              energy.potential, energy.elastic,
                              system_.contact_handler().contacts().size(), steps, step_size);
  last_diagnostics_time_ = t;
  last_diagnostics_steps_ = steps;
}

void RunWriter::on_event(const EventInstant& instant, const VectorX& x) {
  if (outputs_.log_events) std::cout << format_event_log_entry(instant);
  if (events_.is_open() || outputs_.record_replay) {
    const Model& model = system_.model();
    std::vector<MultibodySystem::WheelOutput> wheels;  // at x, computed once if a wheel is met
    for (const EventRecord& record : instant.outcome.records) {
      nlohmann::json line = event_record_json(record);
      // A wheel's contact event carries the wheel's frame and slip just after the event.
      for (std::size_t w = 0; w < model.wheels.size(); ++w) {
        const Wheel& wheel = model.wheels[w];
        const bool on_wheel = std::any_of(wheel.shapes.begin(), wheel.shapes.end(), [&](int shape) {
          const std::string label = model.shape_label(shape);
          return label == record.pair_a || label == record.pair_b;
        });
        if (!on_wheel) continue;
        if (wheels.empty()) wheels = system_.compute_wheel_outputs(x);
        const WheelContactState& state = wheels[w].state;
        line["wheel"] = {{"name", wheel.name},
                         {"s_a", state.s_a},
                         {"s_b", state.s_b},
                         {"S_a", state.S_a},
                         {"alpha", state.alpha},
                         {"v_lon", state.v_W_lon},
                         {"v_lat", state.v_W_lat},
                         {"R_omega", state.R_omega},
                         {"normal_force", wheels[w].normal_force}};
      }
      if (events_.is_open()) events_ << line.dump() << '\n';
      if (outputs_.record_replay) recorder_.on_event_record(line, x);
    }
  }
  // One trajectory row at each event after the initialisation (the state does not jump).
  if (hdf5_) {
    for (const EventRecord& record : instant.outcome.records) hdf5_->add_event(record);
  }
  if (writes_trajectory() && instant.kind != EventInstantKind::initialization &&
      keeps_event_row(outputs_.trajectory, instant.t, last_event_row_time_)) {
    write_trajectory_row(instant.t, x);
    last_event_row_time_ = instant.t;
  }
}

std::vector<std::string> RunWriter::finish() {
  if (progress_) progress_->stop();
  std::vector<std::string> failed;
  // Each complete file takes its name now (output_file.hpp): a reader never sees half of one.
  const auto close = [&failed](OutputFile& file, const std::string& path) {
    if (!file.commit()) failed.push_back(path);
  };
  close(trajectory_, outputs_.trajectory_path);
  if (hdf5_ && !hdf5_->commit()) failed.push_back(outputs_.trajectory_path);
  close(events_, outputs_.events_path);
  close(contacts_, outputs_.contacts_path);
  close(diagnostics_, outputs_.diagnostics_path);
  return failed;
}

nlohmann::json make_stats(const SimulationResult& result) {
  nlohmann::json stats = nlohmann::json::object();
  for (const RunCounter& counter : kRunCounters) stats[counter.name] = counter.get(result);
  return stats;
}

nlohmann::json make_summary(MultibodySystem& system, const SimulationOptions& options,
                            const std::string& integrator, const SimulationResult& result,
                            const VectorX& final_state, double initial_energy, double wall_time) {
  nlohmann::json summary;
  summary["scene"] = system.model().name;
  summary["integrator"] = integrator;
  summary["rtol"] = options.integrator.rtol;
  summary["atol"] = options.integrator.atol;
  if (!options.integrator.table.empty()) summary["table"] = options.integrator.table;
  if (!options.integrator.linear_solver.empty()) {
    summary["linear_solver"] = options.integrator.linear_solver;
  }
  if (options.integrator.step_size > 0.0) summary["step_size"] = options.integrator.step_size;
  summary["status"] = std::string(to_string(result.status));
  if (!result.message.empty()) summary["message"] = result.message;
  summary["t_end"] = result.t_end;
  summary["wall_time_s"] = wall_time;
  summary["stats"] = make_stats(result);
  summary["energy"] = {{"initial", initial_energy}, {"final", system.compute_energy(final_state)}};
  nlohmann::json bodies = nlohmann::json::object();
  const auto kinematics = system.compute_kinematics(final_state);
  for (std::size_t i = 0; i < kinematics.size(); ++i) {
    const BodyKinematics& k = kinematics[i];
    const Vec3& p = k.X_WB.translation;
    bodies[system.model().bodies[i].name] = {
        {"position", to_json(p)},
        {"orientation", {k.q_WB.w(), k.q_WB.x(), k.q_WB.y(), k.q_WB.z()}},
        {"linear_velocity", to_json(k.v_WCom_W + k.w_WB_W.cross(p - k.p_WCom))},
        {"angular_velocity", to_json(k.w_WB_W)}};
  }
  nlohmann::json joints = nlohmann::json::object();
  const std::vector<JointCoordinate> coordinates = system.compute_joint_coordinates(final_state);
  for (std::size_t j = 0; j < coordinates.size(); ++j) {
    joints[system.model().joints[j].name] = {{"position", coordinates[j].position},
                                             {"velocity", coordinates[j].velocity}};
  }
  summary["final_state"] = {{"bodies", bodies}, {"joints", joints}};
  return summary;
}

}  // namespace hybridsim
