#include "hybridsim/model_builder.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "core/errors.hpp"
#include "models/scene_loader.hpp"
#include "models/yaml_reader.hpp"

namespace hybridsim {

// The scene as a YAML tree, in the layout of spec/scene-format.md.
struct ModelBuilder::Scene {
  std::string name;
  YAML::Node root;

  YAML::Node find_body(const std::string& body) {
    for (YAML::Node node : root["bodies"]) {
      if (node["name"].as<std::string>() == body) return node;
    }
    throw InputError(
        fmt::format("ModelBuilder '{}': no body named '{}' (add the body first)", name, body));
  }
};

namespace {

YAML::Node vec3_node(const Vec3& v) {
  YAML::Node node(YAML::NodeType::Sequence);
  node.SetStyle(YAML::EmitterStyle::Flow);
  for (int i = 0; i < 3; ++i) node.push_back(v[i]);
  return node;
}

YAML::Node orientation_node(const Quat& q) {
  YAML::Node wxyz(YAML::NodeType::Sequence);
  wxyz.SetStyle(YAML::EmitterStyle::Flow);
  for (double c : {q.w(), q.x(), q.y(), q.z()}) wxyz.push_back(c);
  YAML::Node node;
  node["quaternion"] = wxyz;
  return node;
}

YAML::Node signal_node(const Signal& signal) {
  YAML::Node node;
  switch (signal.kind) {
    case Signal::Kind::constant:
      node["constant"] = vec3_node(signal.value);
      break;
    case Signal::Kind::step:
    case Signal::Kind::ramp: {
      YAML::Node step;
      step["time"] = signal.time;
      if (signal.kind == Signal::Kind::ramp) step["duration"] = signal.duration;
      step["before"] = vec3_node(signal.before);
      step["after"] = vec3_node(signal.after);
      node[signal.kind == Signal::Kind::ramp ? "ramp" : "step"] = step;
      break;
    }
    case Signal::Kind::sine: {
      YAML::Node sine;
      sine["amplitude"] = vec3_node(signal.amplitude);
      sine["frequency"] = signal.frequency;
      sine["phase"] = signal.phase;
      sine["offset"] = vec3_node(signal.offset);
      node["sine"] = sine;
      break;
    }
    case Signal::Kind::table: {
      YAML::Node points(YAML::NodeType::Sequence);
      for (std::size_t i = 0; i < signal.times.size() && i < signal.values.size(); ++i) {
        YAML::Node row(YAML::NodeType::Sequence);
        row.SetStyle(YAML::EmitterStyle::Flow);
        row.push_back(signal.times[i]);
        for (int k = 0; k < 3; ++k) row.push_back(signal.values[i][k]);
        points.push_back(row);
      }
      node["table"]["points"] = points;
      break;
    }
  }
  return node;
}

YAML::Node friction_node(const FrictionParameters& f) {
  YAML::Node node;
  node["model"] = std::string(to_string(f.model));
  node["mu_kinetic"] = f.mu_kinetic;
  node["mu_static"] = f.mu_static;
  if (f.mu2 >= 0.0) node["mu2"] = f.mu2;
  node["v_small"] = f.v_small;
  node["stiction_tolerance"] = f.stiction_tolerance;
  if (f.model == FrictionModel::slip_compliance) {
    YAML::Node compliance(YAML::NodeType::Sequence);
    compliance.SetStyle(YAML::EmitterStyle::Flow);
    compliance.push_back(f.slip_compliance[0]);
    compliance.push_back(f.slip_compliance[1]);
    node["slip_compliance"] = compliance;
    node["scale_by_contact_count"] = f.scale_by_contact_count;
  }
  node["cone"] = f.cone;
  if (f.model == FrictionModel::stick_slip) {
    node["torsional_stick"] = f.torsional_stick;
    node["rolling_stick"] = f.rolling_stick;
  }
  return node;
}

}  // namespace

ModelBuilder::ModelBuilder(std::string name, std::string description)
    : scene_(std::make_unique<Scene>()) {
  scene_->name = name;
  scene_->root["name"] = name;
  if (!description.empty()) scene_->root["description"] = description;
}

ModelBuilder::~ModelBuilder() = default;
ModelBuilder::ModelBuilder(ModelBuilder&&) noexcept = default;
ModelBuilder& ModelBuilder::operator=(ModelBuilder&&) noexcept = default;

// yaml-cpp nodes are handles: a copy must clone the tree.
ModelBuilder::ModelBuilder(const ModelBuilder& other)
    : scene_(std::make_unique<Scene>(Scene{other.scene_->name, YAML::Clone(other.scene_->root)})) {}

ModelBuilder& ModelBuilder::operator=(const ModelBuilder& other) {
  if (this != &other) {
    scene_ = std::make_unique<Scene>(Scene{other.scene_->name, YAML::Clone(other.scene_->root)});
  }
  return *this;
}

ModelBuilder& ModelBuilder::gravity(const Vec3& gravity_W) {
  scene_->root["gravity"] = vec3_node(gravity_W);
  return *this;
}

ModelBuilder& ModelBuilder::simulation(const SimulationSettings& settings) {
  YAML::Node node;
  node["stop_time"] = settings.stop_time;
  node["integrator"] = settings.integrator;
  node["rtol"] = settings.rtol;
  if (settings.atol) node["atol"] = *settings.atol;
  node["output_interval"] = settings.output_interval;
  if (std::isfinite(settings.max_step)) node["max_step"] = settings.max_step;
  if (!settings.table.empty()) node["table"] = settings.table;
  if (!settings.linear_solver.empty()) node["linear_solver"] = settings.linear_solver;
  if (settings.step_size > 0.0) node["step_size"] = settings.step_size;
  node["constraint_stabilization"] = settings.constraint_stabilization;
  node["constraint_tolerance"] = settings.constraint_tolerance;
  switch (settings.constraint_factorization) {
    case ConstraintFactorization::automatic:
      node["constraint_factorization"] = "auto";
      break;
    case ConstraintFactorization::dense:
      node["constraint_factorization"] = "dense";
      break;
    case ConstraintFactorization::sparse:
      node["constraint_factorization"] = "sparse";
      break;
  }
  scene_->root["simulation"] = node;
  return *this;
}

ModelBuilder& ModelBuilder::material(const Material& material) {
  YAML::Node node;
  node["density"] = material.density;
  node["youngs_modulus"] = material.youngs_modulus;
  node["poisson_ratio"] = material.poisson_ratio;
  if (!std::isnan(material.hunt_crossley_stiffness)) {
    node["hunt_crossley_stiffness"] = material.hunt_crossley_stiffness;
  }
  if (!std::isnan(material.hunt_crossley_dissipation)) {
    node["hunt_crossley_dissipation"] = material.hunt_crossley_dissipation;
  }
  scene_->root["materials"][material.name] = node;
  return *this;
}

ModelBuilder& ModelBuilder::contact_material(const ContactMaterial& pair) {
  YAML::Node node;
  YAML::Node names(YAML::NodeType::Sequence);
  names.SetStyle(YAML::EmitterStyle::Flow);
  names.push_back(pair.material_a);
  names.push_back(pair.material_b);
  node["pair"] = names;
  node["restitution"] = pair.restitution;
  node["normal_law"] = std::string(to_string(pair.normal_law));
  if (pair.normal_law == NormalLaw::hunt_crossley) node["exponent"] = pair.exponent;
  if (pair.normal_law == NormalLaw::linear) {
    node["kp"] = pair.kp;
    node["kd"] = pair.kd;
    if (pair.min_depth > 0.0) node["min_depth"] = pair.min_depth;
    if (pair.max_vel < kInfinity) {
      node["max_vel"] = pair.max_vel;
      node["max_vel_step"] = pair.max_vel_step;
    }
  }
  node["damping_model"] = std::string(to_string(pair.damping_model));
  node["observer"] = pair.observer;
  node["v_small"] = pair.v_small;
  node["clamp"] = pair.clamp;
  if (pair.friction.model != FrictionModel::none) node["friction"] = friction_node(pair.friction);
  node["rolling_resistance"] = pair.rolling_resistance;
  if (pair.rolling_lever > 0.0) node["rolling_lever"] = pair.rolling_lever;
  node["torsional_friction"] = pair.torsional_friction;
  if (pair.torsional_patch_radius > 0.0) {
    node["torsional_patch_radius"] = pair.torsional_patch_radius;
  }
  if (pair.torsional_surface_radius > 0.0) {
    node["torsional_surface_radius"] = pair.torsional_surface_radius;
  }
  node["w_small"] = pair.w_small;
  node["merged_rolling_torque"] = pair.merged_rolling_torque;
  scene_->root["contact_materials"].push_back(node);
  return *this;
}

ModelBuilder& ModelBuilder::body(const BodySpec& spec) {
  YAML::Node node;
  node["name"] = spec.name;
  if (spec.fixed) node["fixed"] = true;
  node["position"] = vec3_node(spec.position_W);
  if (!spec.orientation_WB.coeffs().isApprox(Quat::Identity().coeffs(), 0.0)) {
    node["orientation"] = orientation_node(spec.orientation_WB);
  }
  node["linear_velocity"] = vec3_node(spec.linear_velocity_W);
  node["angular_velocity"] = vec3_node(spec.angular_velocity_W);
  if (spec.mass) node["mass"] = *spec.mass;
  if (spec.center_of_mass_B) node["center_of_mass"] = vec3_node(*spec.center_of_mass_B);
  if (spec.inertia_com_B) {
    const Mat3& I = *spec.inertia_com_B;
    YAML::Node inertia(YAML::NodeType::Sequence);
    inertia.SetStyle(YAML::EmitterStyle::Flow);
    for (double c : {I(0, 0), I(1, 1), I(2, 2), I(0, 1), I(0, 2), I(1, 2)}) inertia.push_back(c);
    node["inertia"] = inertia;
  }
  node["shapes"] = YAML::Node(YAML::NodeType::Sequence);
  scene_->root["bodies"].push_back(node);
  return *this;
}

namespace {

YAML::Node shape_node(const std::string& shape, const char* type, const std::string& material,
                      const ShapePlacement& placement) {
  YAML::Node node;
  node["name"] = shape;
  node["type"] = type;
  node["material"] = material;
  if (!placement.contact_material.empty()) node["contact_material"] = placement.contact_material;
  if (!placement.collision) node["collision"] = false;
  if (placement.position_B != Vec3::Zero()) node["position"] = vec3_node(placement.position_B);
  if (!placement.orientation_BS.coeffs().isApprox(Quat::Identity().coeffs(), 0.0)) {
    node["orientation"] = orientation_node(placement.orientation_BS);
  }
  const ShapePlacement defaults;
  if (placement.collision_group != defaults.collision_group) {
    node["group"] = placement.collision_group;
  }
  if (placement.collision_mask != defaults.collision_mask) node["mask"] = placement.collision_mask;
  return node;
}

}  // namespace

ModelBuilder& ModelBuilder::sphere(const std::string& body, const std::string& shape, double radius,
                                   const std::string& material, const ShapePlacement& placement) {
  YAML::Node node = shape_node(shape, "sphere", material, placement);
  node["radius"] = radius;
  scene_->find_body(body)["shapes"].push_back(node);
  return *this;
}

ModelBuilder& ModelBuilder::box(const std::string& body, const std::string& shape, const Vec3& size,
                                const std::string& material, const ShapePlacement& placement) {
  YAML::Node node = shape_node(shape, "box", material, placement);
  node["size"] = vec3_node(size);
  scene_->find_body(body)["shapes"].push_back(node);
  return *this;
}

ModelBuilder& ModelBuilder::capsule(const std::string& body, const std::string& shape,
                                    double radius, double length, const std::string& material,
                                    const ShapePlacement& placement) {
  YAML::Node node = shape_node(shape, "capsule", material, placement);
  node["radius"] = radius;
  node["length"] = length;
  scene_->find_body(body)["shapes"].push_back(node);
  return *this;
}

ModelBuilder& ModelBuilder::halfspace(const std::string& body, const std::string& shape,
                                      const Vec3& normal_S, double offset,
                                      const std::string& material,
                                      const ShapePlacement& placement) {
  YAML::Node node = shape_node(shape, "halfspace", material, placement);
  node["normal"] = vec3_node(normal_S);
  node["offset"] = offset;
  scene_->find_body(body)["shapes"].push_back(node);
  return *this;
}

ModelBuilder& ModelBuilder::input(const std::string& name, const std::string& body,
                                  Input::Kind kind, const Signal& signal, bool body_frame) {
  YAML::Node node;
  node["name"] = name;
  node["target"]["body"] = body;
  node["target"]["kind"] = kind == Input::Kind::force ? "force" : "torque";
  node["target"]["frame"] = body_frame ? "body" : "world";
  node["signal"] = signal_node(signal);
  scene_->root["inputs"].push_back(node);
  return *this;
}

ModelBuilder& ModelBuilder::joint_input(const std::string& name, const Signal& signal) {
  YAML::Node node;
  node["name"] = name;
  node["signal"] = signal_node(signal);
  scene_->root["inputs"].push_back(node);
  return *this;
}

// Keys that do not apply to the joint type are written only when set, so that build() reports
// them as the loader reports them in a scene file.
ModelBuilder& ModelBuilder::joint(const JointSpec& spec) {
  YAML::Node node;
  node["name"] = spec.name;
  node["type"] = to_string(spec.type);
  node["parent"] = spec.parent;
  node["child"] = spec.child;
  if (spec.anchor_W) node["anchor"] = vec3_node(*spec.anchor_W);
  if (spec.axis_W) node["axis"] = vec3_node(*spec.axis_W);
  if (spec.can_collide) node["can_collide"] = true;
  if (spec.initial_position != 0.0 || spec.initial_velocity != 0.0) {
    node["initial"]["position"] = spec.initial_position;
    node["initial"]["velocity"] = spec.initial_velocity;
  }
  if (!spec.input.empty()) node["input"] = spec.input;
  if (spec.stiffness != 0.0) node["stiffness"] = spec.stiffness;
  if (spec.damping != 0.0) node["damping"] = spec.damping;
  if (spec.spring_reference != 0.0) node["spring_reference"] = spec.spring_reference;
  if (spec.servo_mode == JointServo::Mode::velocity) {
    node["servo"]["velocity"] = spec.servo_command;
    if (spec.servo_ideal) {
      node["servo"]["ideal"] = true;
    } else {
      node["servo"]["gain"] = spec.servo_gain;
    }
  } else if (spec.servo_mode == JointServo::Mode::position) {
    node["servo"]["position"] = spec.servo_command;
    node["servo"]["kp"] = spec.servo_kp;
    node["servo"]["kd"] = spec.servo_kd;
    if (spec.servo_ideal) node["servo"]["ideal"] = true;  // refused by the loader, with its key
  }
  if (spec.servo_max_effort > 0.0) node["servo"]["max_effort"] = spec.servo_max_effort;
  scene_->root["joints"].push_back(node);
  return *this;
}

ModelBuilder& ModelBuilder::wheel(const WheelSpec& spec) {
  YAML::Node node;
  node["name"] = spec.name;
  node["body"] = spec.body;
  node["axis"] = vec3_node(spec.axis_B);
  if (spec.radius > 0.0) node["radius"] = spec.radius;
  for (const std::string& shape : spec.shapes) node["shapes"].push_back(shape);
  if (spec.slip_compliance) {
    node["slip_compliance"]["lateral"] = (*spec.slip_compliance)[0];
    node["slip_compliance"]["longitudinal"] = (*spec.slip_compliance)[1];
    if (spec.normal_force > 0.0) {
      node["normal_force"] = spec.normal_force;
    } else {
      node["normal_force"] = "actual";
    }
  }
  if (spec.rolling_resistance != 0.0) node["rolling_resistance"] = spec.rolling_resistance;
  if (spec.plowing) {
    node["plowing"]["max_angle"] = spec.plowing->max_angle;
    node["plowing"]["deadband"] = spec.plowing->deadband;
    node["plowing"]["saturation"] = spec.plowing->saturation;
    if (spec.plowing->lateral) node["plowing"]["lateral"] = true;
  }
  scene_->root["wheels"].push_back(node);
  return *this;
}

ModelBuilder& ModelBuilder::set(const std::string& key, const std::string& yaml_value) {
  YamlSource source{scene_->name, {}};
  apply_yaml_override(scene_->root, key + "=" + yaml_value, source);
  return *this;
}

std::string ModelBuilder::to_yaml() const {
  YAML::Emitter out;
  out << scene_->root;
  return std::string(out.c_str()) + "\n";
}

Model ModelBuilder::build() const {
  return load_scene_text(to_yaml(), scene_->name);
}

}  // namespace hybridsim
