// hybridsim._hybridsim: the Python bindings of the C++ API (pybind11, NumPy). The package's
// __init__.py builds the user-facing names on these; docs/python.md documents them.
//
// Conventions: arrays are NumPy float64; names are the scene's; every InputError of the library
// becomes hybridsim.SceneError (a ValueError) with the library's message (file, key, value), every
// other failure a RuntimeError; no call can crash the interpreter.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <thread>

#include <fmt/format.h>

#include "core/errors.hpp"
#include "hybridsim/model_builder.hpp"
#include "hybridsim/simulator.hpp"
#include "hybridsim/version.h"
#include "models/scene_import.hpp"
#include "models/scene_loader.hpp"
#include "tools/output_writers.hpp"

namespace py = pybind11;

namespace hybridsim {
namespace {

py::array_t<double> to_numpy(const Vec3& v) {
  py::array_t<double> a(3);
  for (int k = 0; k < 3; ++k) a.mutable_at(k) = v[k];
  return a;
}

Vec3 to_vec3(const std::vector<double>& value, const char* what) {
  if (value.size() != 3) {
    throw InputError(fmt::format("{}: 3 numbers expected, got {}", what, value.size()));
  }
  return {value[0], value[1], value[2]};
}

// The model as plain Python data: bodies with their shapes, joints, materials.
py::dict describe_model(const Model& model) {
  py::list bodies;
  for (const Body& body : model.bodies) {
    py::list shapes;
    for (const int s : body.shapes) {
      const Shape& shape = model.shapes[static_cast<std::size_t>(s)];
      py::dict entry;
      entry["name"] = shape.name;
      entry["type"] = to_string(shape.type);
      entry["material"] = shape.material >= 0
                              ? model.materials[static_cast<std::size_t>(shape.material)].name
                              : std::string();
      entry["position"] = to_numpy(shape.X_BS.translation);
      entry["collision"] = shape.collision;
      shapes.append(entry);
    }
    py::dict entry;
    entry["name"] = body.name;
    entry["fixed"] = body.fixed;
    entry["prescribed"] = body.prescribed;
    entry["mass"] = body.mass;
    entry["com"] = to_numpy(body.p_BCom_B);
    py::array_t<double> inertia({3, 3});
    for (int i = 0; i < 3; ++i) {
      for (int j = 0; j < 3; ++j) inertia.mutable_at(i, j) = body.inertia_com_B(i, j);
    }
    entry["inertia"] = inertia;
    entry["position"] = to_numpy(body.p_WB);
    entry["orientation"] =
        py::make_tuple(body.q_WB.w(), body.q_WB.x(), body.q_WB.y(), body.q_WB.z());
    entry["shapes"] = shapes;
    bodies.append(entry);
  }
  py::list joints;
  for (const Joint& joint : model.joints) {
    py::dict entry;
    entry["name"] = joint.name;
    entry["parent"] = model.bodies[static_cast<std::size_t>(joint.parent)].name;
    entry["child"] = model.bodies[static_cast<std::size_t>(joint.child)].name;
    joints.append(entry);
  }
  py::list materials;
  for (const Material& material : model.materials) materials.append(material.name);
  py::dict out;
  out["name"] = model.name;
  out["bodies"] = bodies;
  out["joints"] = joints;
  out["materials"] = materials;
  return out;
}

// The trajectory in memory, with the CLI's choice of columns and instants
// (tools/trajectory_columns.hpp): the same rows and numbers as its trajectory file.
class TrajectoryRecorder final : public SimulationObserver {
 public:
  TrajectoryRecorder(const Simulator& simulator, const TrajectorySelection& selection)
      : simulator_(simulator),
        selection_(selection),
        columns_(select_trajectory_columns(simulator.trajectory_columns(),
                                           selection.column_patterns, "trajectory_columns")) {}
  void on_output(double t, const VectorX& x) override { record(t, x); }
  void on_event(const EventInstant& instant, const VectorX& x) override {
    for (const EventRecord& record : instant.outcome.records) {
      events_.push_back(event_record_json(record).dump());
    }
    // A row at each event after the initialisation, as RunWriter writes them.
    if (instant.kind == EventInstantKind::initialization ||
        !keeps_event_row(selection_, instant.t, last_event_row_time_)) {
      return;
    }
    record(instant.t, x);
    last_event_row_time_ = instant.t;
  }
  // t, then the selected columns.
  std::vector<std::string> column_names() const {
    const std::vector<std::string> all = simulator_.trajectory_columns();
    std::vector<std::string> names = {"t"};
    for (const std::size_t c : columns_) names.push_back(all[c]);
    return names;
  }
  const TrajectorySelection& selection() const { return selection_; }
  std::vector<double> values;  // row after row: t, then the selected columns
  std::size_t rows = 0;
  std::vector<std::string> events_;

 private:
  void record(double t, const VectorX& x) {
    simulator_.trajectory_row(x, row_);
    values.push_back(t);
    for (const std::size_t c : columns_) values.push_back(row_[c]);
    ++rows;
  }
  const Simulator& simulator_;
  TrajectorySelection selection_;
  std::vector<std::size_t> columns_;
  double last_event_row_time_ = -kInfinity;
  std::vector<double> row_;
};

// The options the CLI also refuses: more outputs than a run can hold, a fixed step too small to
// make progress in any reasonable time.
const SimulatorConfig& checked_config(const Model& model, const SimulatorConfig& config) {
  const SimulationOptions options = make_simulation_options(model, config);
  if (options.output_interval > 0.0 &&
      (options.stop_time - options.start_time) / options.output_interval > kMaxOutputCount) {
    throw InputError(fmt::format(
        "output_interval = {} s with stop time {} s: more than {:.0e} outputs (raise the "
        "interval)",
        options.output_interval, options.stop_time, kMaxOutputCount));
  }
  if (config.step_size && !(*config.step_size >= 1e-12 && std::isfinite(*config.step_size))) {
    throw InputError(fmt::format("step_size = {}: at least 1e-12 s and finite", *config.step_size));
  }
  return config;
}

// A unit quaternion from four numbers of any magnitude (scaled first, so that 1e300 does not
// overflow); InputError for zero or non-finite ones.
Quat unit_quaternion(double w, double x, double y, double z, const std::string& what) {
  const double scale = std::max({std::abs(w), std::abs(x), std::abs(y), std::abs(z)});
  if (!(scale > 0.0) || !std::isfinite(scale)) {
    throw InputError(fmt::format("{}: the quaternion must be finite and not zero", what));
  }
  return Quat(w / scale, x / scale, y / scale, z / scale).normalized();
}

// The C++ object behind `self`, an instance of a class bound here. An instance made with
// __new__ and never initialised has no constructed object: an error, not a crash.
template <typename T>
T& initialised(py::handle self) {
  if (!py::isinstance<T>(self)) throw py::type_error("not an object of this class");
  auto* instance = reinterpret_cast<py::detail::instance*>(self.ptr());
  py::detail::value_and_holder holder =
      instance->get_value_and_holder(py::detail::get_type_info(typeid(T)));
  if (!holder || !holder.holder_constructed()) {
    throw std::runtime_error("this object was never initialised (create it by calling its class)");
  }
  return *holder.template value_ptr<T>();
}

// The Python Simulator: a scene's simulator with its recorder, closable.
class PySimulator {
 public:
  PySimulator(Model model, const SimulatorConfig& config, const TrajectorySelection& selection)
      : config_(checked_config(model, config)),
        simulator_(std::make_shared<Simulator>(std::move(model), config)),
        recorder_(std::make_unique<TrajectoryRecorder>(*simulator_, selection)) {
    simulator_->add_observer(*recorder_);
  }

  // A new run of the same scene and options from state x at the scene's start time: every free
  // body starts where x puts it (13 numbers each, the state's layout); the trajectory and the
  // events start over. ValueError (SceneError) for a state of the wrong size or not finite.
  void reset(const std::vector<double>& x) {
    Model model = get().model();
    if (static_cast<int>(x.size()) != model.state_size) {
      throw InputError(
          fmt::format("reset: a state of {} numbers, got {}", model.state_size, x.size()));
    }
    for (const double value : x) {
      if (!std::isfinite(value)) throw InputError("reset: the state must be finite");
    }
    for (Body& body : model.bodies) {
      if (body.state_offset < 0) continue;
      const double* b = x.data() + body.state_offset;
      const Quat q = Quat(b[3], b[4], b[5], b[6]);
      if (!(q.norm() > 0.0))
        throw InputError(fmt::format("reset: body {}: zero quaternion", body.name));
      body.p_WB = Vec3(b[0], b[1], b[2]);
      body.q_WB = q.normalized();
      body.v_WB_W = Vec3(b[7], b[8], b[9]);
      body.w_WB_W = body.q_WB * Vec3(b[10], b[11], b[12]);  // the state's is in B
    }
    auto simulator = std::make_shared<Simulator>(std::move(model), config_);
    auto recorder = std::make_unique<TrajectoryRecorder>(*simulator, recorder_->selection());
    simulator->add_observer(*recorder);
    simulator_ = std::move(simulator);
    recorder_ = std::move(recorder);
  }

  Simulator& get() const {
    if (!simulator_) throw std::runtime_error("this simulator is closed");
    return *simulator_;
  }
  TrajectoryRecorder& recorder() const {
    get();
    return *recorder_;
  }
  // A simulator kept alive by a state view after close() is never advanced again, so its
  // observer (the recorder, freed here) is never called.
  void close() {
    simulator_.reset();
    recorder_.reset();
  }
  // The simulator, shared with the state views handed out: a view keeps its buffer alive after
  // close().
  std::shared_ptr<Simulator> shared() const {
    get();
    return simulator_;
  }

 private:
  SimulatorConfig config_;
  std::shared_ptr<Simulator> simulator_;
  std::unique_ptr<TrajectoryRecorder> recorder_;
};

std::string to_string(AdvanceStop stop) {
  switch (stop) {
    case AdvanceStop::target_reached:
      return "target_reached";
    case AdvanceStop::event:
      return "event";
    case AdvanceStop::step_taken:
      return "step_taken";
    case AdvanceStop::halted:
      return "halted";
  }
  return "unknown";
}

Vec3 vec3_argument(const std::vector<double>& value, const char* what) {
  const Vec3 v = to_vec3(value, what);
  if (!v.allFinite()) throw InputError(fmt::format("{}: not finite", what));
  return v;
}

JointType joint_type(const std::string& name) {
  if (name == "revolute") return JointType::revolute;
  if (name == "prismatic") return JointType::prismatic;
  if (name == "spherical") return JointType::spherical;
  if (name == "fixed") return JointType::fixed;
  throw InputError(fmt::format("joint type '{}': revolute, prismatic, spherical or fixed", name));
}

ShapePlacement placement(const std::vector<double>& position, bool collision) {
  ShapePlacement p;
  p.position_B = vec3_argument(position, "position");
  p.collision = collision;
  return p;
}

Signal constant_signal(const Vec3& value) {
  Signal signal;
  signal.kind = Signal::Kind::constant;
  signal.value = value;
  return signal;
}

void bind_model_builder(py::module_& m) {
  using V = std::vector<double>;
  // Each call returns the builder itself, for chaining.
  const auto chain = py::return_value_policy::reference_internal;
  py::class_<ModelBuilder>(m, "ModelBuilder")
      .def(py::init<std::string, std::string>(), py::arg("name"), py::arg("description") = "")
      .def(
          "gravity",
          [](py::handle self, const V& g) -> ModelBuilder& {
            return initialised<ModelBuilder>(self).gravity(vec3_argument(g, "gravity"));
          },
          py::arg("gravity"), chain)
      .def(
          "material",
          [](py::handle self, const std::string& name, double density, double youngs_modulus,
             double poisson_ratio) -> ModelBuilder& {
            Material material;
            material.name = name;
            material.density = density;
            material.youngs_modulus = youngs_modulus;
            material.poisson_ratio = poisson_ratio;
            return initialised<ModelBuilder>(self).material(material);
          },
          py::arg("name"), py::arg("density"), py::arg("youngs_modulus"), py::arg("poisson_ratio"),
          chain)
      .def(
          "body",
          [](py::handle self, const std::string& name, bool fixed, const V& position,
             const V& orientation, const V& velocity, const V& angular_velocity,
             std::optional<double> mass) -> ModelBuilder& {
            BodySpec spec;
            spec.name = name;
            spec.fixed = fixed;
            spec.position_W = vec3_argument(position, "position");
            if (orientation.size() != 4) throw InputError("orientation: 4 numbers (w, x, y, z)");
            spec.orientation_WB = unit_quaternion(orientation[0], orientation[1], orientation[2],
                                                  orientation[3], "body " + name + " orientation");
            spec.linear_velocity_W = vec3_argument(velocity, "velocity");
            spec.angular_velocity_W = vec3_argument(angular_velocity, "angular_velocity");
            spec.mass = mass;
            return initialised<ModelBuilder>(self).body(spec);
          },
          py::arg("name"), py::arg("fixed") = false, py::arg("position") = V{0, 0, 0},
          py::arg("orientation") = V{1, 0, 0, 0}, py::arg("velocity") = V{0, 0, 0},
          py::arg("angular_velocity") = V{0, 0, 0}, py::arg("mass") = py::none(), chain)
      .def(
          "sphere",
          [](py::handle self, const std::string& body, const std::string& shape, double radius,
             const std::string& material, const V& position, bool collision) -> ModelBuilder& {
            return initialised<ModelBuilder>(self).sphere(body, shape, radius, material,
                                                          placement(position, collision));
          },
          py::arg("body"), py::arg("shape"), py::arg("radius"), py::arg("material"),
          py::arg("position") = V{0, 0, 0}, py::arg("collision") = true, chain)
      .def(
          "box",
          [](py::handle self, const std::string& body, const std::string& shape, const V& size,
             const std::string& material, const V& position, bool collision) -> ModelBuilder& {
            return initialised<ModelBuilder>(self).box(body, shape, vec3_argument(size, "size"),
                                                       material, placement(position, collision));
          },
          py::arg("body"), py::arg("shape"), py::arg("size"), py::arg("material"),
          py::arg("position") = V{0, 0, 0}, py::arg("collision") = true, chain)
      .def(
          "capsule",
          [](py::handle self, const std::string& body, const std::string& shape, double radius,
             double length, const std::string& material, const V& position,
             bool collision) -> ModelBuilder& {
            return initialised<ModelBuilder>(self).capsule(body, shape, radius, length, material,
                                                           placement(position, collision));
          },
          py::arg("body"), py::arg("shape"), py::arg("radius"), py::arg("length"),
          py::arg("material"), py::arg("position") = V{0, 0, 0}, py::arg("collision") = true, chain)
      .def(
          "halfspace",
          [](py::handle self, const std::string& body, const std::string& shape, const V& normal,
             double offset, const std::string& material) -> ModelBuilder& {
            return initialised<ModelBuilder>(self).halfspace(
                body, shape, vec3_argument(normal, "normal"), offset, material);
          },
          py::arg("body"), py::arg("shape"), py::arg("normal"), py::arg("offset"),
          py::arg("material"), chain)
      .def(
          "force_input",
          [](py::handle self, const std::string& name, const std::string& body, const V& value,
             bool torque, bool body_frame) -> ModelBuilder& {
            return initialised<ModelBuilder>(self).input(
                name, body, torque ? Input::Kind::torque : Input::Kind::force,
                constant_signal(vec3_argument(value, "value")), body_frame);
          },
          py::arg("name"), py::arg("body"), py::arg("value") = V{0, 0, 0},
          py::arg("torque") = false, py::arg("body_frame") = false, chain)
      .def(
          "joint_input",
          [](py::handle self, const std::string& name, double effort) -> ModelBuilder& {
            return initialised<ModelBuilder>(self).joint_input(name,
                                                               constant_signal(Vec3(effort, 0, 0)));
          },
          py::arg("name"), py::arg("effort") = 0.0, chain)
      .def(
          "joint",
          [](py::handle self, const std::string& name, const std::string& type,
             const std::string& parent, const std::string& child, std::optional<V> anchor,
             std::optional<V> axis, const std::string& input, double initial_position,
             double initial_velocity, double stiffness, double damping) -> ModelBuilder& {
            JointSpec spec;
            spec.name = name;
            spec.type = joint_type(type);
            spec.parent = parent;
            spec.child = child;
            if (anchor) spec.anchor_W = vec3_argument(*anchor, "anchor");
            if (axis) spec.axis_W = vec3_argument(*axis, "axis");
            spec.input = input;
            spec.initial_position = initial_position;
            spec.initial_velocity = initial_velocity;
            spec.stiffness = stiffness;
            spec.damping = damping;
            return initialised<ModelBuilder>(self).joint(spec);
          },
          py::arg("name"), py::arg("type"), py::arg("parent"), py::arg("child"),
          py::arg("anchor") = py::none(), py::arg("axis") = py::none(), py::arg("input") = "",
          py::arg("initial_position") = 0.0, py::arg("initial_velocity") = 0.0,
          py::arg("stiffness") = 0.0, py::arg("damping") = 0.0, chain)
      .def(
          "set",
          [](py::handle self, const std::string& key, const std::string& yaml_value)
              -> ModelBuilder& { return initialised<ModelBuilder>(self).set(key, yaml_value); },
          py::arg("key"), py::arg("yaml_value"), chain)
      .def("to_yaml", [](py::handle self) { return initialised<ModelBuilder>(self).to_yaml(); })
      .def("build", [](py::handle self) { return initialised<ModelBuilder>(self).build(); });
}

// advance_to(t) in pieces of about a tenth of a second of wall time, with the GIL released, and
// Python's signals checked between them, so that Ctrl-C stops a long advance
// (KeyboardInterrupt) where the run stands. Steps are never cut at an advance target, so the
// pieces take the same steps and events as one call.
AdvanceStop advance_interruptibly(Simulator& simulator, double t, bool stop_at_events) {
  double piece = 1e-3;  // s of simulated time, adapted to the wall time a piece takes
  while (true) {
    const double from = simulator.time();
    const double target = t - from > piece ? from + piece : t;
    const auto started = std::chrono::steady_clock::now();
    AdvanceResult result;
    {
      const py::gil_scoped_release no_gil;
      result = simulator.advance_to(target, stop_at_events);
    }
    if (result.stop != AdvanceStop::target_reached || target >= t) return result.stop;
    if (PyErr_CheckSignals() != 0) throw py::error_already_set();
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    piece *= std::clamp(0.1 / std::max(wall, 1e-6), 0.5, 10.0);
  }
}

double finite_time(double t, const char* what) {
  if (!std::isfinite(t)) throw InputError(fmt::format("{} = {}: must be a finite time", what, t));
  return t;
}

// Parses rows [first_row, ...) of a numeric CSV body from `p` to `end` into `out` (row-major,
// `columns` per row). Empty fields are NaN. InputError names the file, line and column.
void parse_csv_rows(const char* p, const char* end, std::size_t first_row, std::size_t columns,
                    const std::vector<std::string>& names, const std::string& path, double* out) {
  std::size_t row = first_row;
  while (p < end) {
    for (std::size_t column = 0; column < columns; ++column) {
      double value = std::nan("");
      if (p < end && *p != ',' && *p != '\n' && *p != '\r') {
        const auto [next, error] = std::from_chars(p, end, value);
        if (error != std::errc()) {
          throw InputError(
              fmt::format("{}:{}: column {} is not a number", path, row + 2, names[column]));
        }
        p = next;
      }
      out[row * columns + column] = value;
      if (p < end && *p == '\r') ++p;
      const char expected = column + 1 < columns ? ',' : '\n';
      if (p < end && *p != expected) {
        throw InputError(fmt::format("{}:{}: {} fields expected", path, row + 2, columns));
      }
      if (p < end) ++p;
    }
    ++row;
  }
}

// A CSV file of numbers with a header row, as one 2-D array (rows x columns) and its names,
// parsed by two threads straight into the array (a million rows of 28 columns in well under a
// second).
py::tuple read_numeric_csv(const std::string& path) {
  // Regular files only: a FIFO would block, a directory or /proc file has no size.
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error)) {
    throw InputError(fmt::format("{}: not a regular file", path));
  }
  std::ifstream file(path, std::ios::binary);
  if (!file) throw InputError(fmt::format("{}: cannot open", path));
  // One read of the whole file (an istreambuf_iterator copy would take a second per 100 MB).
  file.seekg(0, std::ios::end);
  std::string text(static_cast<std::size_t>(file.tellg()), '\0');
  file.seekg(0, std::ios::beg);
  file.read(text.data(), static_cast<std::streamsize>(text.size()));
  if (!file) throw InputError(fmt::format("{}: cannot read", path));
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  if (text.empty()) throw InputError(fmt::format("{}: empty file", path));
  if (text.rfind("\xEF\xBB\xBF", 0) == 0) text.erase(0, 3);  // a UTF-8 byte-order mark
  text += '\n';
  const std::size_t header_end = text.find('\n');
  std::vector<std::string> names;
  for (std::size_t start = 0; start <= header_end;) {
    std::size_t comma = text.find(',', start);
    if (comma == std::string::npos || comma > header_end) comma = header_end;
    std::string name = text.substr(start, comma - start);
    if (!name.empty() && name.back() == '\r') name.pop_back();
    if (std::find(names.begin(), names.end(), name) != names.end()) {
      throw InputError(fmt::format("{}: column '{}' appears twice", path, name));
    }
    names.push_back(name);
    start = comma + 1;
  }
  // The rows' starts: the body split in two at a line start near its middle.
  const char* const body = text.data() + header_end + 1;
  const char* const end = text.data() + text.size();
  std::size_t rows = 0;
  for (const char* p = body; p < end; ++rows) {
    p = static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(end - p))) + 1;
  }
  const char* middle = body;
  for (std::size_t r = 0; r < rows / 2; ++r) {
    middle = static_cast<const char*>(
                 std::memchr(middle, '\n', static_cast<std::size_t>(end - middle))) +
             1;
  }
  py::array_t<double> table({rows, names.size()});
  double* out = table.mutable_data();
  {
    const py::gil_scoped_release no_gil;
    std::exception_ptr second_error;
    std::thread second([&] {
      try {
        parse_csv_rows(middle, end, rows / 2, names.size(), names, path, out);
      } catch (...) {
        second_error = std::current_exception();
      }
    });
    std::exception_ptr first_error;
    try {
      parse_csv_rows(body, middle, 0, names.size(), names, path, out);
    } catch (...) {
      first_error = std::current_exception();
    }
    second.join();
    if (first_error) std::rethrow_exception(first_error);
    if (second_error) std::rethrow_exception(second_error);
  }
  return py::make_tuple(names, table);
}

}  // namespace
}  // namespace hybridsim

PYBIND11_MODULE(_hybridsim, m) {
  using namespace hybridsim;
  m.doc() = "hybridsim's C++ API for Python (see the hybridsim package)";
  m.attr("__version__") = HYBRIDSIM_VERSION_STRING;
  static py::exception<InputError> scene_error(m, "SceneError", PyExc_ValueError);
  py::register_exception_translator([](std::exception_ptr error) {
    try {
      if (error) std::rethrow_exception(error);
    } catch (const InputError& e) {
      // Any bytes of a file name or value that are not UTF-8 are shown as U+FFFD, not lost.
      const std::string message = e.what();
      py::object text = py::reinterpret_steal<py::object>(
          PyUnicode_DecodeUTF8(message.data(), static_cast<Py_ssize_t>(message.size()), "replace"));
      PyErr_SetObject(scene_error.ptr(), text.ptr());
    }
  });

  bind_model_builder(m);
  py::class_<Model>(m, "Model")
      .def_property_readonly("name", [](py::handle self) { return initialised<Model>(self).name; })
      .def("describe", [](py::handle self) { return describe_model(initialised<Model>(self)); });

  // URDF and MJCF files: the import options of the command line (docs/import.md).
  const auto import_options = [](const std::vector<std::string>& resource_paths,
                                 const std::string& urdf_root,
                                 const std::string& default_material) {
    ImportOptions options;
    options.resource_paths = resource_paths;
    options.urdf_root = urdf_root;
    options.default_material = default_material;
    return options;
  };
  m.def(
      "load_scene",
      [import_options](const std::string& scene, const std::vector<std::string>& overrides,
                       const std::vector<std::string>& resource_paths, const std::string& urdf_root,
                       const std::string& default_material) {
        return load_scene_file(scene, overrides,
                               import_options(resource_paths, urdf_root, default_material));
      },
      py::arg("scene"), py::arg("overrides") = std::vector<std::string>{},
      py::arg("resource_paths") = std::vector<std::string>{}, py::arg("urdf_root") = "fixed",
      py::arg("default_material") = "Steel");
  m.def(
      "convert_scene",
      [import_options](const std::string& path, const std::string& output,
                       const std::vector<std::string>& resource_paths, const std::string& urdf_root,
                       const std::string& default_material) {
        const ConvertedScene converted = convert_scene_file(
            path, import_options(resource_paths, urdf_root, default_material), output);
        return py::make_tuple(converted.yaml, converted.warnings);
      },
      py::arg("path"), py::arg("output") = "",
      py::arg("resource_paths") = std::vector<std::string>{}, py::arg("urdf_root") = "fixed",
      py::arg("default_material") = "Steel");
  m.def("catalog", [] {
    py::list entries;
    for (const CatalogEntry& entry : list_catalog()) {
      entries.append(py::dict(py::arg("name") = entry.name,
                              py::arg("description") = entry.description,
                              py::arg("reference") = entry.reference));
    }
    return entries;
  });
  m.def("read_csv", &read_numeric_csv, py::arg("path"));

  py::class_<PySimulator>(m, "Simulator")
      .def(py::init([](const Model& model, std::optional<std::string> integrator,
                       std::optional<double> rtol, std::optional<double> atol,
                       std::optional<double> stop_time, std::optional<double> output_interval,
                       std::optional<double> step_size, std::optional<double> max_step,
                       const std::vector<std::string>& trajectory_columns,
                       const std::string& trajectory_instants, double trajectory_max_rate) {
             TrajectorySelection selection;
             selection.column_patterns = trajectory_columns;
             selection.event_rows =
                 trajectory_event_rows(trajectory_instants, "trajectory_instants");
             check_trajectory_max_rate(trajectory_max_rate, "trajectory_max_rate =");
             selection.max_event_rate = trajectory_max_rate;
             SimulatorConfig config;
             config.integrator = integrator.value_or("");
             config.rtol = rtol;
             config.atol = atol;
             config.stop_time = stop_time;
             config.output_interval = output_interval;
             config.step_size = step_size;
             config.max_step = max_step;
             return std::make_unique<PySimulator>(model, config, selection);
           }),
           py::arg("model"), py::arg("integrator") = py::none(), py::arg("rtol") = py::none(),
           py::arg("atol") = py::none(), py::arg("stop_time") = py::none(),
           py::arg("output_interval") = py::none(), py::arg("step_size") = py::none(),
           py::arg("max_step") = py::none(),
           py::arg("trajectory_columns") = std::vector<std::string>{},
           py::arg("trajectory_instants") = "all",
           py::arg("trajectory_max_rate") = std::numeric_limits<double>::infinity())
      .def("close", [](py::handle self) { initialised<PySimulator>(self).close(); })
      .def(
          "reset",
          [](py::handle self, const std::vector<double>& x) {
            initialised<PySimulator>(self).reset(x);
          },
          py::arg("state"))
      .def(
          "advance",
          [](py::handle self, double t, bool stop_at_events) {
            return to_string(advance_interruptibly(initialised<PySimulator>(self).get(),
                                                   finite_time(t, "advance t"), stop_at_events));
          },
          py::arg("t"), py::arg("stop_at_events") = false)
      .def("step",
           [](py::handle self) {
             return to_string(initialised<PySimulator>(self).get().step().stop);
           })
      .def_property_readonly(
          "time", [](py::handle self) { return initialised<PySimulator>(self).get().time(); })
      .def_property_readonly(
          "stop_time",
          [](py::handle self) { return initialised<PySimulator>(self).get().options().stop_time; })
      .def_property_readonly(
          "output_interval",
          [](py::handle self) {
            return initialised<PySimulator>(self).get().options().output_interval;
          })
      .def_property_readonly(
          "status",
          [](py::handle self) {
            return std::string(to_string(initialised<PySimulator>(self).get().status()));
          })
      .def_property_readonly(
          "status_message",
          [](py::handle self) { return initialised<PySimulator>(self).get().status_message(); })
      .def_property_readonly(
          "integrator",
          [](py::handle self) { return initialised<PySimulator>(self).get().integrator_name(); })
      .def_property_readonly(
          "state",
          [](py::handle self) {
            // A read-only view of the state vector; its base owns a share of the simulator, so
            // that the buffer outlives close() and reset() (it then holds the last values).
            auto owner = std::make_unique<std::shared_ptr<Simulator>>(
                initialised<PySimulator>(self).shared());
            const VectorX& x = (*owner)->state();
            py::capsule base(owner.get(),
                             [](void* p) { delete static_cast<std::shared_ptr<Simulator>*>(p); });
            owner.release();
            py::array_t<double> view({x.size()}, {sizeof(double)}, x.data(), base);
            view.attr("setflags")(py::arg("write") = false);
            return view;
          })
      .def("statistics_json",
           [](py::handle self) {
             return make_stats(initialised<PySimulator>(self).get().statistics()).dump();
           })
      .def("events_json",
           [](py::handle self) { return initialised<PySimulator>(self).recorder().events_; })
      .def("trajectory_columns",
           [](py::handle self) { return initialised<PySimulator>(self).recorder().column_names(); })
      .def("trajectory_table",
           [](py::handle self) {
             const TrajectoryRecorder& recorder = initialised<PySimulator>(self).recorder();
             const std::size_t columns = recorder.rows ? recorder.values.size() / recorder.rows : 1;
             py::array_t<double> table({recorder.rows, columns});
             std::copy(recorder.values.begin(), recorder.values.end(), table.mutable_data());
             return table;
           })
      .def(
          "body_state",
          [](py::handle self, const std::string& body) {
            const BodyState s = initialised<PySimulator>(self).get().body_state(body);
            return py::dict(
                py::arg("position") = to_numpy(s.position_W),
                py::arg("orientation") = py::make_tuple(s.orientation_WB.w(), s.orientation_WB.x(),
                                                        s.orientation_WB.y(), s.orientation_WB.z()),
                py::arg("velocity") = to_numpy(s.linear_velocity_W),
                py::arg("angular_velocity") = to_numpy(s.angular_velocity_W),
                py::arg("com_position") = to_numpy(s.com_position_W),
                py::arg("com_velocity") = to_numpy(s.com_velocity_W));
          },
          py::arg("body"))
      .def(
          "joint_state",
          [](py::handle self, const std::string& joint) {
            const JointCoordinate q = initialised<PySimulator>(self).get().joint_state(joint);
            return py::make_tuple(q.position, q.velocity);
          },
          py::arg("joint"))
      .def("energy", [](py::handle self) { return initialised<PySimulator>(self).get().energy(); })
      .def("contact_table",
           [](py::handle self) {
             // Per contact point: pair, slot, normal force, point (3), normal (3), friction (3).
             const auto contacts = initialised<PySimulator>(self).get().contact_results();
             py::array_t<double> table({contacts.size(), std::size_t{12}});
             for (std::size_t i = 0; i < contacts.size(); ++i) {
               const ContactResult& c = contacts[i];
               const double row[12] = {static_cast<double>(c.pair),
                                       static_cast<double>(c.slot),
                                       c.normal_force,
                                       c.point_W.x(),
                                       c.point_W.y(),
                                       c.point_W.z(),
                                       c.normal_W.x(),
                                       c.normal_W.y(),
                                       c.normal_W.z(),
                                       c.friction_force_W.x(),
                                       c.friction_force_W.y(),
                                       c.friction_force_W.z()};
               std::copy(row, row + 12, table.mutable_data(static_cast<py::ssize_t>(i)));
             }
             py::list pairs;
             for (const ContactResult& c : contacts) pairs.append(py::make_tuple(c.pair, c.slot));
             return py::make_tuple(pairs, table);
           })
      .def(
          "set_input",
          [](py::handle self, const std::string& input, const std::vector<double>& value) {
            const Vec3 v = to_vec3(value, "set_input value");
            if (!v.allFinite()) throw InputError(fmt::format("set_input {}: not finite", input));
            initialised<PySimulator>(self).get().set_input(input, v);
          },
          py::arg("input"), py::arg("value"))
      .def(
          "release_input",
          [](py::handle self, const std::string& input) {
            initialised<PySimulator>(self).get().release_input(input);
          },
          py::arg("input"))
      .def(
          "input_value",
          [](py::handle self, const std::string& input) {
            return to_numpy(initialised<PySimulator>(self).get().input_value(input));
          },
          py::arg("input"))
      .def("velocity_size",
           [](py::handle self) { return initialised<PySimulator>(self).get().velocity_size(); })
      .def(
          "contact_jacobian",
          [](py::handle self, std::uint64_t pair, int slot) {
            const Simulator& simulator = initialised<PySimulator>(self).get();
            Eigen::MatrixXd jacobian(6, simulator.velocity_size());
            Vec6 drift;
            simulator.contact_jacobian(pair, slot, jacobian, drift);
            py::array_t<double> j({std::size_t{6}, static_cast<std::size_t>(jacobian.cols())});
            for (int r = 0; r < 6; ++r) {
              for (int c = 0; c < jacobian.cols(); ++c) j.mutable_at(r, c) = jacobian(r, c);
            }
            py::array_t<double> d(6);
            for (int r = 0; r < 6; ++r) d.mutable_at(r) = drift[r];
            return py::make_tuple(j, d);
          },
          py::arg("pair"), py::arg("slot"))
      .def(
          "friction_cone",
          [](py::handle self, std::uint64_t pair, int slot, int edges, bool inscribed) {
            const auto frame = initialised<PySimulator>(self).get().contact_frame(pair, slot);
            if (edges < 3 || edges > 4096) {
              throw InputError(fmt::format("edges = {}: from 3 to 4096", edges));
            }
            const Eigen::MatrixX3d cone = Simulator::friction_cone(
                frame, edges,
                inscribed ? ConeApproximation::inscribed : ConeApproximation::circumscribed);
            py::array_t<double> out({static_cast<std::size_t>(cone.rows()), std::size_t{3}});
            for (int r = 0; r < cone.rows(); ++r) {
              for (int c = 0; c < 3; ++c) out.mutable_at(r, c) = cone(r, c);
            }
            return out;
          },
          py::arg("pair"), py::arg("slot"), py::arg("edges") = 6, py::arg("inscribed") = true)
      .def(
          "set_bilateral",
          [](py::handle self, const std::string& name, bool on) {
            initialised<PySimulator>(self).get().set_bilateral(name, on);
          },
          py::arg("name"), py::arg("on"));
}
