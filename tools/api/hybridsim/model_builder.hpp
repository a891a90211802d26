// ModelBuilder: a scene built in code. It writes the scene YAML of spec/scene-format.md and
// builds the Model through the same loader as a scene file, so a built scene and the same scene
// loaded from a file are the same Model, checked by the same rules, with the same error messages
// (which name the key path, e.g. `bodies[1].shapes[0].radius`).
//
// Frames: W is the world frame, B a body frame, S a shape frame. Units: SI (m, kg, s, N, rad).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "core/joint.hpp"
#include "core/math.hpp"
#include "core/model.hpp"
#include "core/signal.hpp"

namespace hybridsim {

// Pose and naming of one shape in its body.
struct ShapePlacement {
  Vec3 position_B = Vec3::Zero();          // origin of S in B, m
  Quat orientation_BS = Quat::Identity();  // rotation of S relative to B
  // The material whose contact pairs apply to this shape; empty: the shape's own material.
  std::string contact_material = {};
  bool collision = true;  // false: a visual / mass-only shape
  // Collision filtering: two shapes may touch when each one's group shares a bit with the other's
  // mask (spec/scene-format.md `group` / `mask`).
  std::uint32_t collision_group = 1;
  std::uint32_t collision_mask = 0xffffffffu;
};

// Initial state and mass properties of one body.
struct BodySpec {
  std::string name = {};           // unique in the model
  bool fixed = false;              // a fixed body does not move and has no states (ground, walls)
  Vec3 position_W = Vec3::Zero();  // p_WB, origin of B in W, m
  Quat orientation_WB = Quat::Identity();  // rotation of B relative to W
  Vec3 linear_velocity_W = Vec3::Zero();   // velocity of B's origin in W, m/s
  Vec3 angular_velocity_W = Vec3::Zero();  // angular velocity of B in W, rad/s
  // Mass properties; when not given they follow from the shapes' volumes and densities.
  std::optional<double> mass = std::nullopt;            // kg
  std::optional<Vec3> center_of_mass_B = std::nullopt;  // m, in B
  std::optional<Mat3> inertia_com_B = std::nullopt;     // about the centre of mass, B axes, kg m^2
};

// A joint between two bodies (spec/scene-format.md `joints`). Anchor and axis are in W at the
// bodies' poses as given to body(), which are the zero configuration of the joint coordinate.
struct JointSpec {
  std::string name = {};  // unique among the joints
  JointType type = JointType::revolute;
  std::string parent = {};  // body names, different, not both fixed
  std::string child = {};
  std::optional<Vec3> anchor_W = std::nullopt;  // m; default: the child's origin
  std::optional<Vec3> axis_W = std::nullopt;    // revolute and prismatic only (required), nonzero
  bool can_collide = false;                     // shapes of parent and child may touch
  // Revolute and prismatic only: the joint coordinate and rate at t = 0 (rad, rad/s or m, m/s).
  double initial_position = 0.0;
  double initial_velocity = 0.0;
  // Revolute and prismatic only: the joint input (joint_input()) driving the effort (N m or N);
  // empty: none.
  std::string input = {};
  // Revolute and prismatic only: effort = -stiffness (q - spring_reference) - damping q'.
  double stiffness = 0.0;         // N m/rad or N/m
  double damping = 0.0;           // N m s/rad or N s/m
  double spring_reference = 0.0;  // rad or m
  // Revolute and prismatic only: a servo (scene key `servo`) with a constant command, which a host
  // may set later through the input "<joint>.servo". mode none: no servo.
  JointServo::Mode servo_mode = JointServo::Mode::none;
  double servo_command = 0.0;  // q'_cmd (rad/s, m/s) or q_cmd (rad, m)
  double servo_gain = 0.0;     // velocity servo; unused when ideal
  bool servo_ideal = false;    // velocity servo as a constraint row
  double servo_kp = 0.0;       // position servo
  double servo_kd = 0.0;
  double servo_max_effort = 0.0;  // N m or N, a gain servo's bound; 0: none
};

// A wheel (scene key `wheels`, docs/physics.md "Wheels"): a view on the contacts of a body's
// shapes. Zero or empty fields take the scene format's defaults.
struct WheelSpec {
  std::string name = {};
  std::string body = {};                 // a free body, added before build()
  Vec3 axis_B = Vec3::UnitY();           // spin axis, body frame
  double radius = 0.0;                   // m; 0: from the sphere or cylinder shape
  std::vector<std::string> shapes = {};  // the touching shapes; empty: all
  std::optional<Eigen::Vector2d> slip_compliance =
      std::nullopt;                 // unitless (lateral, longitudinal)
  double normal_force = 0.0;        // N_est, N (with slip_compliance); 0: `actual`
  double rolling_resistance = 0.0;  // C_rr
  std::optional<WheelPlowing> plowing = std::nullopt;
};

// Builds a scene step by step; every call returns the builder for chaining. Shapes name their
// body, which must have been added before. Nothing is checked until build().
class ModelBuilder {
 public:
  // `name` becomes Model::name and stands for the file in error messages.
  explicit ModelBuilder(std::string name, std::string description = "");
  ~ModelBuilder();
  ModelBuilder(const ModelBuilder& other);
  ModelBuilder& operator=(const ModelBuilder& other);
  ModelBuilder(ModelBuilder&&) noexcept;
  ModelBuilder& operator=(ModelBuilder&&) noexcept;

  // Gravity in W, m/s^2 (default (0, 0, -9.81)).
  ModelBuilder& gravity(const Vec3& gravity_W);
  // The scene's simulation settings: stop time (s), integrator name, rtol, atol when given,
  // output interval (s), max step (s) when finite, and the joints' constraint stabilisation
  // rate (1/s), projection tolerance and factorisation (auto, dense or sparse).
  ModelBuilder& simulation(const SimulationSettings& settings);
  // A solid material (density kg/m^3, Young's modulus Pa, Poisson ratio); one named like a palette
  // material replaces it.
  ModelBuilder& material(const Material& material);
  // The contact law of an unordered pair of materials. Every field that applies to the chosen laws
  // is written (exponent for hunt_crossley, kp and kd for linear, friction unless its model is
  // none); exact_alpha is derived at build().
  ModelBuilder& contact_material(const ContactMaterial& pair);

  // A body; its shapes follow with the shape calls naming it.
  ModelBuilder& body(const BodySpec& spec);
  // A sphere of radius r (m) on body `body`, centred at the shape origin.
  ModelBuilder& sphere(const std::string& body, const std::string& shape, double radius,
                       const std::string& material, const ShapePlacement& placement = {});
  // A box with full edge lengths `size` (m) along the S axes, centred at the shape origin.
  ModelBuilder& box(const std::string& body, const std::string& shape, const Vec3& size,
                    const std::string& material, const ShapePlacement& placement = {});
  // A capsule: the segment of `length` (m) along the S z axis, centred at the shape origin, swept
  // by a sphere of `radius` (m).
  ModelBuilder& capsule(const std::string& body, const std::string& shape, double radius,
                        double length, const std::string& material,
                        const ShapePlacement& placement = {});
  // The half-space {x_S : normal_S . x_S <= offset} (offset in m) on a fixed body; normal_S need
  // not be unit length (it is normalised).
  ModelBuilder& halfspace(const std::string& body, const std::string& shape, const Vec3& normal_S,
                          double offset, const std::string& material,
                          const ShapePlacement& placement = {});

  // An input: a force (N, at the centre of mass) or torque (N m) on `body`, in W or, with
  // body_frame, in B, following `signal` until a host sets it (Simulator::set_input).
  ModelBuilder& input(const std::string& name, const std::string& body, Input::Kind kind,
                      const Signal& signal, bool body_frame = false);

  // A joint effort input (no body target): the first component of `signal` is the effort, N m
  // about the axis or N along it, of the joint whose JointSpec::input names it.
  ModelBuilder& joint_input(const std::string& name, const Signal& signal);
  // A joint; its bodies (and its input) must be added before build().
  ModelBuilder& joint(const JointSpec& spec);

  // A wheel; its body and shapes must be added before build().
  ModelBuilder& wheel(const WheelSpec& spec);

  // Any scene key, as `hybridsim run --set KEY=VALUE`: a dotted path whose list elements are
  // chosen by name or index (`bodies.ball.shapes.sphere.fdir1`), the value as YAML text.
  ModelBuilder& set(const std::string& key, const std::string& yaml_value);

  // The scene as YAML text (a scene file for `hybridsim run`).
  std::string to_yaml() const;
  // The Model; throws InputError naming the key path and value when the scene is invalid.
  Model build() const;

 private:
  struct Scene;
  std::unique_ptr<Scene> scene_;
};

}  // namespace hybridsim
