// The C API over the C++ Simulator. Every entry point catches everything: no exception crosses
// into C. Errors leave their message on the handle.
#include "hybridsim/hybridsim.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <exception>
#include <new>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "core/errors.hpp"
#include "core/friction_cone.hpp"
#include "hybridsim/hybridsim.hpp"
#include "models/scene_import.hpp"

// Forwards the library's warnings to the host's callback, as they are raised.
struct WarningForwarder final : hybridsim::SimulationObserver {
  hybridsim_warning_callback callback = nullptr;
  void* user_data = nullptr;
  void on_warning(const hybridsim::Warning& warning) override {
    if (callback != nullptr) {
      callback(warning.t, warning.kind.c_str(), warning.message.c_str(), user_data);
    }
  }
};

struct hybridsim_simulator {
  hybridsim::SimulatorConfig config;
  WarningForwarder warning_forwarder;
  std::vector<std::string> overrides;
  hybridsim::ImportOptions import_options;  // "resource_path", "urdf_root", "default_material"
  std::optional<hybridsim::Simulator> simulator;
  std::string error;
  // Labels handed out through hybridsim_contact, valid until the next change.
  std::vector<hybridsim::ContactResult> contacts;
  std::vector<std::string> contact_labels;
};

namespace {

using hybridsim::InputError;

// A failure with its status, thrown inside an entry point and turned into its return value.
struct CallError {
  hybridsim_status status;
  std::string message;
};

// Keeps a message on the handle; when even that fails (out of memory) the message is dropped, so
// that no exception leaves an entry point.
void set_error(hybridsim_simulator& sim, const char* message) noexcept {
  try {
    sim.error = message;
  } catch (...) {
    sim.error.clear();
  }
}

template <typename Function>
hybridsim_status guarded(const hybridsim_simulator* const_sim, Function&& body) {
  auto* sim = const_cast<hybridsim_simulator*>(const_sim);
  if (sim == nullptr) return HYBRIDSIM_ERROR_NULL;
  try {
    sim->error.clear();
    return body(*sim);
  } catch (const CallError& error) {
    set_error(*sim, error.message.c_str());
    return error.status;
  } catch (const InputError& error) {
    set_error(*sim, error.what());
    return HYBRIDSIM_ERROR_INPUT;
  } catch (const std::bad_alloc&) {
    set_error(*sim, "out of memory");
    return HYBRIDSIM_ERROR_INTERNAL;
  } catch (const std::exception& error) {
    set_error(*sim, error.what());
    return HYBRIDSIM_ERROR_INTERNAL;
  } catch (...) {
    set_error(*sim, "unknown exception");
    return HYBRIDSIM_ERROR_INTERNAL;
  }
}

void require(const void* pointer, const char* name) {
  if (pointer == nullptr) throw CallError{HYBRIDSIM_ERROR_NULL, fmt::format("{} is NULL", name)};
}

hybridsim::Simulator& loaded(hybridsim_simulator& sim) {
  if (!sim.simulator) throw CallError{HYBRIDSIM_ERROR_STATE, "no scene loaded"};
  return *sim.simulator;
}

// A contact id that is not in contact now is not found (stale after an event), not bad input.
template <typename Call>
auto contact_call(Call&& call) {
  try {
    return call();
  } catch (const InputError& error) {
    throw CallError{HYBRIDSIM_ERROR_NOT_FOUND, error.what()};
  }
}

// HYBRIDSIM_ERROR_NOT_FOUND for a name the scene does not have (index < 0 from Model::find_*).
void require_known(const hybridsim::Simulator& simulator, int index, const char* what,
                   const char* name) {
  if (index < 0) {
    throw CallError{HYBRIDSIM_ERROR_NOT_FOUND,
                    fmt::format("{}: no {} named '{}'", simulator.model().name, what, name)};
  }
}

// An index into a list the caller counted before (events, contacts, warnings): within it, or
// "not found" with the list's length.
void require_index(size_t index, size_t size, const char* what, const char* counted_by) {
  if (index >= size) {
    throw CallError{HYBRIDSIM_ERROR_NOT_FOUND,
                    fmt::format("{} {}: there are {} {}s{}", what, index, size, what, counted_by)};
  }
}

// A versioned struct (hybridsim.h): filled whole here, then copied into the caller's as far as
// its `size` reaches; the caller's size field is left as it set it.
template <typename Struct, typename Fill>
void fill_sized(Struct* out, const char* name, Fill&& fill) {
  require(out, name);
  static_assert(offsetof(Struct, size) == 0, "a versioned struct starts with its size");
  const size_t size = out->size;
  if (size <= sizeof(size_t)) {
    throw InputError(
        fmt::format("{}->size = {}: set it to sizeof the struct before the call "
                    "(hybridsim.h, Versioned structs)",
                    name, size));
  }
  Struct full{};
  full.size = sizeof(Struct);
  fill(full);
  const size_t copied = std::min(size, sizeof(Struct)) - sizeof(size_t);
  std::memcpy(reinterpret_cast<char*>(out) + sizeof(size_t),
              reinterpret_cast<const char*>(&full) + sizeof(size_t), copied);
}

void copy3(const hybridsim::Vec3& v, double out[3]) {
  for (int i = 0; i < 3; ++i) out[i] = v[i];
}

hybridsim_status advance_status(hybridsim_simulator& sim, const hybridsim::AdvanceResult& result,
                                double* t_reached) {
  if (t_reached != nullptr) *t_reached = result.t;
  sim.contacts.clear();
  if (result.stop == hybridsim::AdvanceStop::halted) {
    sim.error = fmt::format("simulation halted ({}) at t = {:.17g} s: {}", to_string(result.status),
                            result.t, sim.simulator->status_message());
    return HYBRIDSIM_ERROR_HALTED;
  }
  return HYBRIDSIM_OK;
}

void load(hybridsim_simulator& sim, hybridsim::Model model) {
  sim.simulator.reset();
  sim.contacts.clear();
  sim.simulator.emplace(std::move(model), sim.config);
  sim.simulator->add_observer(sim.warning_forwarder);
}

hybridsim_event_kind event_kind(hybridsim::EventRecord::Kind kind) {
  switch (kind) {
    case hybridsim::EventRecord::Kind::contact_start:
      return HYBRIDSIM_EVENT_CONTACT_START;
    case hybridsim::EventRecord::Kind::contact_end:
      return HYBRIDSIM_EVENT_CONTACT_END;
    case hybridsim::EventRecord::Kind::time_event:
      return HYBRIDSIM_EVENT_TIME_EVENT;
    case hybridsim::EventRecord::Kind::bilateral_on:
      return HYBRIDSIM_EVENT_BILATERAL_ON;
    case hybridsim::EventRecord::Kind::bilateral_off:
      return HYBRIDSIM_EVENT_BILATERAL_OFF;
    case hybridsim::EventRecord::Kind::stick:
      return HYBRIDSIM_EVENT_STICK;
    case hybridsim::EventRecord::Kind::slip:
      return HYBRIDSIM_EVENT_SLIP;
    case hybridsim::EventRecord::Kind::limit_on:
      return HYBRIDSIM_EVENT_LIMIT_ON;
    case hybridsim::EventRecord::Kind::limit_off:
      return HYBRIDSIM_EVENT_LIMIT_OFF;
    case hybridsim::EventRecord::Kind::guard_stop:
      break;
  }
  return HYBRIDSIM_EVENT_GUARD_STOP;
}

}  // namespace

extern "C" {

const char* hybridsim_version(void) {
  return hybridsim::version();
}

int hybridsim_version_number(void) {
  return HYBRIDSIM_VERSION_NUMBER;
}

const char* hybridsim_status_string(hybridsim_status status) {
  switch (status) {
    case HYBRIDSIM_OK:
      return "ok";
    case HYBRIDSIM_ERROR_INPUT:
      return "input error";
    case HYBRIDSIM_ERROR_NOT_FOUND:
      return "not found";
    case HYBRIDSIM_ERROR_NULL:
      return "null argument";
    case HYBRIDSIM_ERROR_STATE:
      return "not valid in this state";
    case HYBRIDSIM_ERROR_HALTED:
      return "simulation halted";
    case HYBRIDSIM_ERROR_BUFFER:
      return "buffer too small";
    case HYBRIDSIM_ERROR_INTERNAL:
      return "internal error";
    case HYBRIDSIM_STATUS_MAX_ENUM:
      break;
  }
  return "unknown status";
}

hybridsim_simulator* hybridsim_create(void) {
  return new (std::nothrow) hybridsim_simulator();
}

void hybridsim_free(hybridsim_simulator* sim) {
  delete sim;
}

const char* hybridsim_error_message(const hybridsim_simulator* sim) {
  if (sim == nullptr) return "the simulator handle is NULL";
  return sim->error.c_str();
}

hybridsim_status hybridsim_set_option(hybridsim_simulator* sim, const char* key,
                                      const char* value) {
  return guarded(sim, [&](hybridsim_simulator& s) {
    require(key, "key");
    require(value, "value");
    if (s.simulator) {
      throw CallError{HYBRIDSIM_ERROR_STATE,
                      fmt::format("option '{}': options are set before loading", key)};
    }
    const std::string name = key;
    if (name == "integrator") {
      hybridsim::make_integrator(value);  // InputError naming the unknown integrator
      s.config.integrator = value;
      return HYBRIDSIM_OK;
    }
    // Checked with the integrator when the scene is loaded.
    if (name == "table") {
      s.config.table = value;
      return HYBRIDSIM_OK;
    }
    if (name == "linear_solver") {
      s.config.linear_solver = value;
      return HYBRIDSIM_OK;
    }
    // How URDF and MJCF files are read (as the command line's --resource-path, ...).
    if (name == "resource_path") {
      s.import_options.resource_paths.emplace_back(value);
      return HYBRIDSIM_OK;
    }
    if (name == "urdf_root") {
      if (std::strcmp(value, "fixed") != 0 && std::strcmp(value, "floating") != 0) {
        throw InputError(fmt::format("option 'urdf_root' = '{}': 'fixed' or 'floating'", value));
      }
      s.import_options.urdf_root = value;
      return HYBRIDSIM_OK;
    }
    if (name == "default_material") {
      s.import_options.default_material = value;
      return HYBRIDSIM_OK;
    }
    std::optional<double>* target = name == "rtol"              ? &s.config.rtol
                                    : name == "atol"            ? &s.config.atol
                                    : name == "stop_time"       ? &s.config.stop_time
                                    : name == "output_interval" ? &s.config.output_interval
                                    : name == "max_step"        ? &s.config.max_step
                                    : name == "step_size"       ? &s.config.step_size
                                    : name == "time_limit"      ? &s.config.time_limit
                                    : name == "step_budget"     ? &s.config.step_budget
                                                                : nullptr;
    if (target == nullptr) {
      throw CallError{
          HYBRIDSIM_ERROR_NOT_FOUND,
          fmt::format("option '{}': unknown (integrator, table, linear_solver, rtol, "
                      "atol, stop_time, output_interval, max_step, step_size, time_limit, "
                      "step_budget, resource_path, urdf_root, default_material)",
                      name)};
    }
    // from_chars: the C locale's decimal point whatever the host's locale is.
    const char* end = value + std::strlen(value);
    double number = 0.0;
    const auto [stop, error] = std::from_chars(value, end, number);
    if (error != std::errc() || stop != end || !std::isfinite(number)) {
      throw InputError(fmt::format("option '{}' = '{}': not a finite number", name, value));
    }
    // As on the command line: outputs every so many seconds, a positive number.
    if (name == "output_interval" && !(number > 0.0)) {
      throw InputError(fmt::format("option 'output_interval' = '{}': must be positive, s", value));
    }
    *target = number;
    return HYBRIDSIM_OK;
  });
}

hybridsim_status hybridsim_add_override(hybridsim_simulator* sim, const char* assignment) {
  return guarded(sim, [&](hybridsim_simulator& s) {
    require(assignment, "assignment");
    if (std::strchr(assignment, '=') == nullptr) {
      throw InputError(fmt::format("override '{}': expected KEY=VALUE", assignment));
    }
    s.overrides.emplace_back(assignment);
    return HYBRIDSIM_OK;
  });
}

hybridsim_status hybridsim_load_file(hybridsim_simulator* sim, const char* path_or_name) {
  return guarded(sim, [&](hybridsim_simulator& s) {
    require(path_or_name, "path_or_name");
    load(s, hybridsim::load_scene_file(path_or_name, s.overrides, s.import_options));
    return HYBRIDSIM_OK;
  });
}

hybridsim_status hybridsim_convert_file(hybridsim_simulator* sim, const char* input_path,
                                        const char* output_yaml_path) {
  return guarded(sim, [&](hybridsim_simulator& s) {
    require(input_path, "input_path");
    require(output_yaml_path, "output_yaml_path");
    (void)hybridsim::convert_scene_file(input_path, s.import_options, output_yaml_path);
    return HYBRIDSIM_OK;
  });
}

hybridsim_status hybridsim_load_string(hybridsim_simulator* sim, const char* yaml_text,
                                       const char* source_name) {
  return guarded(sim, [&](hybridsim_simulator& s) {
    require(yaml_text, "yaml_text");
    load(s, hybridsim::load_scene_text(yaml_text, source_name != nullptr ? source_name : "<string>",
                                       s.overrides, s.import_options));
    return HYBRIDSIM_OK;
  });
}

hybridsim_status hybridsim_advance_to(hybridsim_simulator* sim, double t, int stop_at_events,
                                      double* t_reached) {
  return guarded(sim, [&](hybridsim_simulator& s) {
    hybridsim::Simulator& simulator = loaded(s);
    return advance_status(s, simulator.advance_to(t, stop_at_events != 0), t_reached);
  });
}

hybridsim_status hybridsim_step(hybridsim_simulator* sim, double* t_reached) {
  return guarded(sim, [&](hybridsim_simulator& s) {
    hybridsim::Simulator& simulator = loaded(s);
    return advance_status(s, simulator.step(), t_reached);
  });
}

hybridsim_status hybridsim_get_time(const hybridsim_simulator* sim, double* t) {
  return guarded(sim, [&](hybridsim_simulator& s) {
    require(t, "t");
    *t = loaded(s).time();
    return HYBRIDSIM_OK;
  });
}

hybridsim_status hybridsim_get_state_size(const hybridsim_simulator* sim, size_t* size) {
  return guarded(sim, [&](hybridsim_simulator& s) {
    require(size, "size");
    *size = static_cast<size_t>(loaded(s).state().size());
    return HYBRIDSIM_OK;
  });
}

hybridsim_status hybridsim_get_state(const hybridsim_simulator* sim, double* state,
                                     size_t capacity) {
  return guarded(sim, [&](hybridsim_simulator& s) {
    require(state, "state");
    const hybridsim::VectorX& x = loaded(s).state();
    if (capacity < static_cast<size_t>(x.size())) {
      throw CallError{HYBRIDSIM_ERROR_BUFFER,
                      fmt::format("state: capacity {} < state size {}", capacity, x.size())};
    }
    std::copy(x.data(), x.data() + x.size(), state);
    return HYBRIDSIM_OK;
  });
}

hybridsim_status hybridsim_get_body_state(const hybridsim_simulator* sim, const char* body,
                                          hybridsim_body_state* state) {
  return guarded(sim, [&](hybridsim_simulator& s) {
    require(body, "body");
    hybridsim::Simulator& simulator = loaded(s);
    require_known(simulator, simulator.model().find_body(body), "body", body);
    const hybridsim::BodyState b = simulator.body_state(body);
    fill_sized(state, "state", [&](hybridsim_body_state& out) {
      copy3(b.position_W, out.position);
      const hybridsim::Quat& q = b.orientation_WB;
      out.orientation[0] = q.w();
      out.orientation[1] = q.x();
      out.orientation[2] = q.y();
      out.orientation[3] = q.z();
      copy3(b.linear_velocity_W, out.linear_velocity);
      copy3(b.angular_velocity_W, out.angular_velocity);
    });
    return HYBRIDSIM_OK;
  });
}

hybridsim_status hybridsim_get_joint_state(const hybridsim_simulator* sim, const char* joint,
                                           double* position, double* velocity) {
  return guarded(sim, [&](hybridsim_simulator& s) {
    require(joint, "joint");
    require(position, "position");
    require(velocity, "velocity");
    hybridsim::Simulator& simulator = loaded(s);
    require_known(simulator, simulator.model().find_joint(joint), "joint", joint);
    const hybridsim::JointCoordinate q = simulator.joint_state(joint);
    *position = q.position;
    *velocity = q.velocity;
    return HYBRIDSIM_OK;
  });
}

hybridsim_status hybridsim_get_wheel_state(const hybridsim_simulator* sim, const char* wheel,
                                           hybridsim_wheel_state* state) {
  return guarded(sim, [&](hybridsim_simulator& s) {
    require(wheel, "wheel");
    hybridsim::Simulator& simulator = loaded(s);
    require_known(simulator, simulator.model().find_wheel(wheel), "wheel", wheel);
    const hybridsim::Simulator::WheelState w = simulator.wheel_state(wheel);
    fill_sized(state, "state", [&](hybridsim_wheel_state& out) {
      copy3(w.n_W, out.normal);
      copy3(w.t_lat_W, out.lateral);
      copy3(w.t_lon_W, out.longitudinal);
      out.v_lon = w.v_W_lon;
      out.v_lat = w.v_W_lat;
      out.slip_lon = w.v_t_lon;
      out.slip_lat = w.v_t_lat;
      out.omega = w.omega;
      out.radius = w.radius;
      out.r_omega = w.R_omega;
      out.s_a = w.s_a;
      out.s_b = w.s_b;
      out.S_a = w.S_a;
      out.alpha = w.alpha;
      out.normal_force = w.normal_force;
    });
    return HYBRIDSIM_OK;
  });
}

hybridsim_status hybridsim_get_energy(const hybridsim_simulator* sim, double* energy) {
  return guarded(sim, [&](hybridsim_simulator& s) {
    require(energy, "energy");
    *energy = loaded(s).energy();
    return HYBRIDSIM_OK;
  });
}

hybridsim_status hybridsim_get_statistics(const hybridsim_simulator* sim,
                                          hybridsim_statistics* statistics) {
  return guarded(sim, [&](hybridsim_simulator& s) {
    const hybridsim::Simulator& simulator = loaded(s);
    const hybridsim::SimulationResult r = simulator.statistics();
    fill_sized(statistics, "statistics", [&](hybridsim_statistics& out) {
      out.steps = r.stats.steps;
      out.rhs_evals = r.stats.rhs_evals;
      out.jac_evals = r.stats.jac_evals;
      out.root_evals = r.stats.root_evals;
      out.error_test_fails = r.stats.error_test_fails;
      out.nonlinear_iters = r.stats.nonlinear_iters;
      out.nonlinear_conv_fails = r.stats.nonlinear_conv_fails;
      out.state_events = r.state_events;
      out.time_events = r.time_events;
      out.contact_starts = r.contact_starts;
      out.contact_ends = r.contact_ends;
      out.restarts = r.restarts;
      out.t = simulator.time();
      out.simulation_status = static_cast<hybridsim_simulation_status>(simulator.status());
      out.bilateral_switches = r.bilateral_switches;
      out.stick_slip_switches = r.stick_slip_switches;
    });
    return HYBRIDSIM_OK;
  });
}

hybridsim_status hybridsim_get_event_count(const hybridsim_simulator* sim, size_t* count) {
  return guarded(sim, [&](hybridsim_simulator& s) {
    require(count, "count");
    *count = loaded(s).events().size();
    return HYBRIDSIM_OK;
  });
}

hybridsim_status hybridsim_get_event(hybridsim_simulator* sim, size_t index,
                                     hybridsim_event* event) {
  return guarded(sim, [&](hybridsim_simulator& s) {
    const std::vector<hybridsim::EventRecord>& events = loaded(s).events();
    require_index(index, events.size(), "event", "");
    const hybridsim::EventRecord& r = events[index];
    fill_sized(event, "event", [&](hybridsim_event& out) {
      out.t = r.t;
      out.kind = event_kind(r.kind);
      out.crossing = r.crossing.c_str();
      out.shape_a = r.pair_a.c_str();
      out.shape_b = r.pair_b.c_str();
      out.distance = r.distance;
      copy3(r.normal_W, out.normal);
      copy3(r.point_W, out.point);
      out.pre_impact_velocity = r.pre_impact_velocity;
      out.description = r.description.c_str();
    });
    return HYBRIDSIM_OK;
  });
}

hybridsim_status hybridsim_clear_events(hybridsim_simulator* sim) {
  return guarded(sim, [&](hybridsim_simulator& s) {
    loaded(s).clear_events();
    return HYBRIDSIM_OK;
  });
}

hybridsim_status hybridsim_get_contact_count(hybridsim_simulator* sim, size_t* count) {
  return guarded(sim, [&](hybridsim_simulator& s) {
    require(count, "count");
    hybridsim::Simulator& simulator = loaded(s);
    s.contacts = simulator.contact_results();
    s.contact_labels.clear();
    for (const hybridsim::ContactResult& c : s.contacts) {
      s.contact_labels.push_back(simulator.model().shape_label(c.shape_a));
      s.contact_labels.push_back(simulator.model().shape_label(c.shape_b));
    }
    *count = s.contacts.size();
    return HYBRIDSIM_OK;
  });
}

hybridsim_status hybridsim_get_contact(hybridsim_simulator* sim, size_t index,
                                       hybridsim_contact* contact) {
  return guarded(sim, [&](hybridsim_simulator& s) {
    loaded(s);
    require_index(index, s.contacts.size(), "contact",
                  " (as of the last hybridsim_get_contact_count)");
    const hybridsim::ContactResult& c = s.contacts[index];
    fill_sized(contact, "contact", [&](hybridsim_contact& out) {
      out.shape_a = s.contact_labels[2 * index].c_str();
      out.shape_b = s.contact_labels[2 * index + 1].c_str();
      out.penetration = c.penetration;
      out.penetration_rate = c.penetration_rate;
      out.normal_force = c.normal_force;
      copy3(c.slip_velocity_W, out.slip_velocity);
      copy3(c.friction_force_W, out.friction_force);
      copy3(c.point_W, out.point);
      copy3(c.normal_W, out.normal);
      copy3(c.force_on_B_W, out.force_on_b);
      copy3(c.torque_on_B_W, out.torque_on_b);
    });
    return HYBRIDSIM_OK;
  });
}

hybridsim_status hybridsim_get_velocity_size(const hybridsim_simulator* sim, size_t* size) {
  return guarded(sim, [&](hybridsim_simulator& s) {
    require(size, "size");
    *size = static_cast<size_t>(loaded(s).velocity_size());
    return HYBRIDSIM_OK;
  });
}

hybridsim_status hybridsim_get_velocity_column(const hybridsim_simulator* sim, const char* body,
                                               int64_t* column) {
  return guarded(sim, [&](hybridsim_simulator& s) {
    require(body, "body");
    require(column, "column");
    hybridsim::Simulator& simulator = loaded(s);
    require_known(simulator, simulator.model().find_body(body), "body", body);
    *column = simulator.velocity_column(body);
    return HYBRIDSIM_OK;
  });
}

hybridsim_status hybridsim_get_contact_frame(hybridsim_simulator* sim, size_t index,
                                             hybridsim_contact_frame* frame) {
  return guarded(sim, [&](hybridsim_simulator& s) {
    hybridsim::Simulator& simulator = loaded(s);
    require_index(index, s.contacts.size(), "contact",
                  " (as of the last hybridsim_get_contact_count)");
    const hybridsim::ContactResult& c = s.contacts[index];
    const hybridsim::Simulator::ContactFrame f =
        contact_call([&] { return simulator.contact_frame(c.pair, c.slot); });
    fill_sized(frame, "frame", [&](hybridsim_contact_frame& out) {
      out.pair = f.pair;
      out.slot = f.slot;
      copy3(f.witness_A_W, out.witness_a);
      copy3(f.witness_B_W, out.witness_b);
      copy3(f.normal_W, out.normal);
      copy3(f.tangent1_W, out.tangent1);
      copy3(f.tangent2_W, out.tangent2);
      out.mu = f.mu;
      out.mu2 = f.mu2;
      // Static literals (to_string's views end in NUL).
      out.normal_law = to_string(f.normal_law).data();
      out.friction_law = to_string(f.friction_law).data();
    });
    return HYBRIDSIM_OK;
  });
}

hybridsim_status hybridsim_get_contact_jacobian(const hybridsim_simulator* sim, uint64_t pair,
                                                int slot, double* jacobian, double* drift) {
  return guarded(sim, [&](hybridsim_simulator& s) {
    require(jacobian, "jacobian");
    hybridsim::Simulator& simulator = loaded(s);
    Eigen::Map<hybridsim::Simulator::RowMajorJacobian> J(jacobian, 6, simulator.velocity_size());
    hybridsim::Vec6 drift_value;
    contact_call([&] {
      simulator.contact_jacobian(pair, slot, J, drift_value);
      return 0;
    });
    if (drift != nullptr) {
      for (int i = 0; i < 6; ++i) drift[i] = drift_value[i];
    }
    return HYBRIDSIM_OK;
  });
}

hybridsim_status hybridsim_get_friction_cone(hybridsim_simulator* sim,
                                             const hybridsim_contact_frame* frame, int edges,
                                             int circumscribed, double* rows) {
  return guarded(sim, [&](hybridsim_simulator&) {
    require(frame, "frame");
    require(rows, "rows");
    const auto vec = [](const double v[3]) { return hybridsim::Vec3(v[0], v[1], v[2]); };
    hybridsim::compute_friction_cone(vec(frame->normal), vec(frame->tangent1), frame->mu, edges,
                                     circumscribed != 0
                                         ? hybridsim::ConeApproximation::circumscribed
                                         : hybridsim::ConeApproximation::inscribed,
                                     rows);
    return HYBRIDSIM_OK;
  });
}

namespace {

void require_bilateral(const hybridsim::Simulator& simulator, const char* name) {
  require_known(simulator, simulator.model().find_bilateral_contact(name), "bilateral contact",
                name);
}

void copy_wrench(const hybridsim::Simulator::ConstraintWrench& w, double force[3], double torque[3],
                 double point[3]) {
  copy3(w.force_W, force);
  copy3(w.torque_W, torque);
  copy3(w.point_W, point);
}

}  // namespace

hybridsim_status hybridsim_set_bilateral(hybridsim_simulator* sim, const char* name, int on) {
  return guarded(sim, [&](hybridsim_simulator& s) {
    require(name, "name");
    hybridsim::Simulator& simulator = loaded(s);
    require_bilateral(simulator, name);
    s.contacts.clear();  // an event: the snapshot is stale
    simulator.set_bilateral(name, on != 0);
    return HYBRIDSIM_OK;
  });
}

hybridsim_status hybridsim_get_bilateral(const hybridsim_simulator* sim, const char* name,
                                         int* on) {
  return guarded(sim, [&](hybridsim_simulator& s) {
    require(name, "name");
    require(on, "on");
    hybridsim::Simulator& simulator = loaded(s);
    require_bilateral(simulator, name);
    *on = simulator.bilateral_on(name) ? 1 : 0;
    return HYBRIDSIM_OK;
  });
}

hybridsim_status hybridsim_get_joint_wrench(const hybridsim_simulator* sim, const char* joint,
                                            double force[3], double torque[3], double point[3]) {
  return guarded(sim, [&](hybridsim_simulator& s) {
    require(joint, "joint");
    require(force, "force");
    require(torque, "torque");
    require(point, "point");
    hybridsim::Simulator& simulator = loaded(s);
    require_known(simulator, simulator.model().find_joint(joint), "joint", joint);
    copy_wrench(simulator.joint_wrench(joint), force, torque, point);
    return HYBRIDSIM_OK;
  });
}

hybridsim_status hybridsim_get_bilateral_wrench(const hybridsim_simulator* sim, const char* name,
                                                double force[3], double torque[3],
                                                double point[3]) {
  return guarded(sim, [&](hybridsim_simulator& s) {
    require(name, "name");
    require(force, "force");
    require(torque, "torque");
    require(point, "point");
    hybridsim::Simulator& simulator = loaded(s);
    require_bilateral(simulator, name);
    copy_wrench(simulator.bilateral_wrench(name), force, torque, point);
    return HYBRIDSIM_OK;
  });
}

namespace {

hybridsim_status input_call(hybridsim_simulator* sim, const char* input, const double* value,
                            double* out) {
  return guarded(sim, [&](hybridsim_simulator& s) {
    require(input, "input");
    hybridsim::Simulator& simulator = loaded(s);
    const auto& inputs = simulator.model().inputs;
    if (std::none_of(inputs.begin(), inputs.end(),
                     [&](const hybridsim::Input& i) { return i.name == input; })) {
      throw CallError{HYBRIDSIM_ERROR_NOT_FOUND,
                      fmt::format("{}: no input named '{}'", simulator.model().name, input)};
    }
    if (out != nullptr) {
      copy3(simulator.input_value(input), out);
      return HYBRIDSIM_OK;  // a read keeps the contact snapshot
    }
    if (value != nullptr) {
      simulator.set_input(input, hybridsim::Vec3(value[0], value[1], value[2]));
    } else {
      simulator.release_input(input);
    }
    s.contacts.clear();
    return HYBRIDSIM_OK;
  });
}

}  // namespace

hybridsim_status hybridsim_set_input(hybridsim_simulator* sim, const char* input,
                                     const double value[3]) {
  if (sim != nullptr && value == nullptr) {
    set_error(*sim, "value is NULL");
    return HYBRIDSIM_ERROR_NULL;
  }
  return input_call(sim, input, value, nullptr);
}

hybridsim_status hybridsim_get_input(const hybridsim_simulator* sim, const char* input,
                                     double value[3]) {
  if (sim != nullptr && value == nullptr) {
    set_error(*const_cast<hybridsim_simulator*>(sim), "value is NULL");
    return HYBRIDSIM_ERROR_NULL;
  }
  return input_call(const_cast<hybridsim_simulator*>(sim), input, nullptr, value);
}

hybridsim_status hybridsim_release_input(hybridsim_simulator* sim, const char* input) {
  return input_call(sim, input, nullptr, nullptr);
}

}  // extern "C"

hybridsim_status hybridsim_set_warning_callback(hybridsim_simulator* sim,
                                                hybridsim_warning_callback callback,
                                                void* user_data) {
  return guarded(sim, [&](hybridsim_simulator& s) {
    s.warning_forwarder.callback = callback;
    s.warning_forwarder.user_data = user_data;
    return HYBRIDSIM_OK;
  });
}

hybridsim_status hybridsim_get_warning_count(const hybridsim_simulator* sim, size_t* count) {
  return guarded(sim, [&](hybridsim_simulator& s) {
    require(count, "count");
    *count = loaded(s).warnings().size();
    return HYBRIDSIM_OK;
  });
}

hybridsim_status hybridsim_get_warning(const hybridsim_simulator* sim, size_t index, double* t,
                                       const char** kind, const char** message) {
  return guarded(sim, [&](hybridsim_simulator& s) {
    const std::vector<hybridsim::Warning>& warnings = loaded(s).warnings();
    require_index(index, warnings.size(), "warning", "");
    if (t != nullptr) *t = warnings[index].t;
    if (kind != nullptr) *kind = warnings[index].kind.c_str();
    if (message != nullptr) *message = warnings[index].message.c_str();
    return HYBRIDSIM_OK;
  });
}
