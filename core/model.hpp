// The Model: everything loaded from a scene, constant during a simulation (bodies, shapes,
// materials, contact materials, inputs, settings). Mutable data lives in the systems that use it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/contact_law.hpp"
#include "core/math.hpp"
#include "core/signal.hpp"

namespace hybridsim {

struct Material {
  std::string name = {};
  double density = 0.0;         // kg/m^3
  double youngs_modulus = 0.0;  // Pa
  double poisson_ratio = 0.0;   // -
  // Hunt-Crossley parameters of shapes of this material (NaN when not given).
  double hunt_crossley_stiffness = kNaN;    // N/m^n
  double hunt_crossley_dissipation = kNaN;  // s/m
};

// Contact parameters of an unordered pair of material names (design.md §5).
struct ContactMaterial {
  std::string material_a;
  std::string material_b;
  double restitution = 1.0;
  NormalLaw normal_law = NormalLaw::elastic;
  DampingModel damping_model = DampingModel::exact;
  double exponent = 1.0;  // Hunt-Crossley penetration exponent
  double kp = 0.0;        // linear law, N/m
  double kd = 0.0;        // linear law, N s/m
  bool observer = false;  // contact events, no force
  double v_small = 0.01;  // m/s
  bool clamp = true;
  FrictionParameters friction;
  double rolling_resistance = 0.0;
  double torsional_friction = 0.0;
  double w_small = 0.01;  // rad/s
  bool merged_rolling_torque = false;
  double exact_alpha = 0.0;  // exact_damping_alpha(restitution), computed at load
};

enum class ShapeType { sphere, box, halfspace };

struct Shape {
  std::string name;  // unique within its body; defaults to the shape's index in the body
  int body = -1;     // index into Model::bodies
  ShapeType type = ShapeType::sphere;
  double radius = 0.0;               // sphere, m
  Vec3 half_extents = Vec3::Zero();  // box, m (half of the full edge lengths)
  Vec3 normal_S = Vec3::UnitZ();     // halfspace: the solid is {x : normal . x <= offset}
  double offset = 0.0;               // halfspace, m
  Pose X_BS;                         // pose of the shape frame S in the body frame B
  int material = -1;                 // index into Model::materials (density, elasticity)
  int contact_material = -1;         // index into Model::materials used for contact pairs
  bool collision = true;
  double contact_sphere_radius = 0.0;  // m; +inf for a flat half-space
  bool flat = false;                   // flat shapes (box, half-space) use the curved partner's r
  double hunt_crossley_stiffness = kNaN;    // overrides the material's when given
  double hunt_crossley_dissipation = kNaN;  // overrides the material's when given
  Vec3 fdir1_B = Vec3::Zero();              // first friction direction, body frame; zero: none
};

struct Body {
  std::string name = {};
  bool fixed = false;
  double mass = 0.0;                          // kg
  Mat3 inertia_com_B = Mat3::Zero();          // about the centre of mass, body frame, kg m^2
  Mat3 inverse_inertia_com_B = Mat3::Zero();  // its inverse, set at load
  Vec3 p_BCom_B = Vec3::Zero();               // centre of mass in the body frame
  // Initial state: pose of the body frame in world, velocity of the body origin, world frame.
  Vec3 p_WB = Vec3::Zero();
  Quat q_WB = Quat::Identity();
  Vec3 v_WB_W = Vec3::Zero();
  Vec3 w_WB_W = Vec3::Zero();
  std::vector<int> shapes;  // indices into Model::shapes
  int state_offset = -1;    // first of the 13 states of a free body, -1 for a fixed body
};

struct Input {
  std::string name = {};
  int body = -1;  // target body, -1 for an input not applied to a body
  enum class Kind { force, torque } kind = Kind::force;
  bool body_frame = false;  // the value is given in the body frame
  Signal signal;
};

struct ContactSettings {
  double contact_eps = 1e-13;    // m, hysteresis of the z1/z2 scheme
  double mpr_tolerance = 1e-14;  // m (used by the libccd adapter of issue 3)
  double max_damping = 2000.0;   // s/m, d_max
  double stiffness_reduction = 1.0;
  double max_events_per_second = 100000.0;  // Zeno / chattering guard
};

struct SimulationSettings {
  double stop_time = 1.0;
  std::string integrator = "cvode-bdf";
  double rtol = 1e-6;
  std::optional<double> atol = std::nullopt;  // default: default_absolute_tolerance(rtol)
  double output_interval = 0.01;
  double max_step = kInfinity;
};

// atol when a scene gives none: 1e-2 * rtol (m, m/s, rad/s scale; see docs/scene-format.md).
inline double default_absolute_tolerance(double rtol) {
  return 1e-2 * rtol;
}

struct Model {
  std::string name = {};
  std::string description;
  std::string source;  // the scene file it came from
  Vec3 gravity_W{0.0, 0.0, -9.81};
  SimulationSettings simulation;
  ContactSettings contact;
  std::vector<Material> materials;
  std::vector<ContactMaterial> contact_materials;
  std::vector<Body> bodies;
  std::vector<Shape> shapes;
  std::vector<Input> inputs;
  int state_size = 0;  // 13 per free body

  // Index lookups; -1 when absent.
  int find_body(const std::string& name) const;
  int find_material(const std::string& name) const;
  // The contact material of an unordered pair of material indices, or -1.
  int find_contact_material(int material_a, int material_b) const;
  // "body/shape" as used in event logs and outputs.
  std::string shape_label(int shape) const;
};

// Assigns state offsets (13 per free body) and the state size. Called once after loading.
void assign_state_layout(Model& model);

}  // namespace hybridsim
