// The Model: everything loaded from a scene, constant during a simulation (bodies, shapes,
// materials, contact materials, inputs, settings). Mutable data lives in the systems that use it.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/bilateral_contact.hpp"
#include "core/contact_law.hpp"
#include "core/joint.hpp"
#include "core/math.hpp"
#include "core/signal.hpp"
#include "core/wheel.hpp"

namespace hybridsim {

// A solid material (from the palette or the scene): density for the mass properties, elasticity
// and Hunt-Crossley values for the contact laws.
struct Material {
  std::string name = {};        // unique among Model::materials; named by shapes and pairs
  double density = 0.0;         // kg/m^3
  double youngs_modulus = 0.0;  // Pa
  double poisson_ratio = 0.0;   // -
  // Hunt-Crossley parameters of shapes of this material (NaN when not given).
  double hunt_crossley_stiffness = kNaN;    // N/m^n
  double hunt_crossley_dissipation = kNaN;  // s/m
};

// Contact parameters of an unordered pair of material names (design.md §5).
struct ContactMaterial {
  std::string material_a;    // Material::name of one side
  std::string material_b;    // Material::name of the other side (the order does not matter)
  double restitution = 1.0;  // coefficient of restitution e, dimensionless, in [0, 1]
  NormalLaw normal_law = NormalLaw::elastic;
  DampingModel damping_model = DampingModel::exact;  // elastic law: how d follows from e and v-
  double exponent = 1.0;  // Hunt-Crossley penetration exponent n, dimensionless
  double kp = 0.0;        // linear law, N/m
  double kd = 0.0;        // linear law, N s/m
  // Linear law, ODE's penetration correction: the spring acts on the depth beyond min_depth (m;
  // Gazebo's //contact/ode/min_depth), and the force never exceeds the damper
  // D (max_vel + delta_dot), D = kd + max_vel_step kp, which lets surfaces pressed together
  // separate at max_vel (m/s; ODE's contact_max_correcting_vel) at most. max_vel_step (s) is
  // ODE's time step: its implicit step makes the damper D (docs/physics.md). Infinite max_vel:
  // no cap.
  double min_depth = 0.0;
  double max_vel = kInfinity;
  double max_vel_step = 0.0;
  bool observer = false;        // contact events, no force
  double v_small = 0.01;        // m/s; below this pre-impact speed e is taken as 0 (elastic law)
  bool clamp = true;            // clamp the normal force at f_n >= 0 (no pull); false: unclamped
  FrictionParameters friction;  // tangential friction law and its coefficients
  double rolling_resistance = 0.0;  // mu_r, dimensionless (torque = mu_r * r_geo * f_n, N m)
  // m: the rolling torque's lever instead of r_geo, mu_r * rolling_lever * f_n (MuJoCo's rolling
  // friction, a length: mu_r = 1 and the lever its value); 0 keeps r_geo.
  double rolling_lever = 0.0;
  double torsional_friction = 0.0;  // mu_tor, dimensionless (torque = mu_tor * r_geo * f_n, N m)
  // Gazebo's torsional friction (Gazebo's ODE contact): torque (3 pi / 16) a mu_tor f_n over a
  // contact patch of radius a, given (patch_radius) or Hertz's sqrt(R delta) of a surface radius
  // R (surface_radius); 0 keeps the lever r_geo.
  double torsional_patch_radius = 0.0;    // m
  double torsional_surface_radius = 0.0;  // m
  double w_small = 0.01;  // rad/s; rolling and spin torques are regularised below this speed
  // Modia3D's form: one torque mu_r lever f_n (lever r_geo or rolling_lever) opposing the whole
  // relative rotation w_B - w_A (torsional_friction unused); false: separate rolling and spin
  // torques.
  bool merged_rolling_torque = false;
  double exact_alpha = 0.0;  // exact_damping_alpha(restitution), dimensionless, computed at load
  // Where the entry came from, for `hybridsim check`: the file that gave it (a scene or the
  // built-in palette), or the fallback rule that combined two self pairs.
  std::string origin = {};
};

// Geometry of a shape: a sphere (radius), a box (half_extents), a half-space (normal_S, offset;
// fixed bodies only), a capsule (radius, length: a cylinder along S's z axis with hemispherical
// caps), a cylinder, a cone or frustum, an ellipsoid, or a convex polyhedron (hull).
// mesh and heightmap: triangle surfaces (terrain; a mesh also on a moving body),
// collision/triangle_surface.hpp.
enum class ShapeType {
  sphere,
  box,
  halfspace,
  capsule,
  cylinder,
  cone,
  ellipsoid,
  convex,
  mesh,
  heightmap
};

// The type's name as in scene files ("sphere", "box", ...).
const char* to_string(ShapeType type);

struct TriangleSurface;  // collision/triangle_surface.hpp

// A convex polyhedron, the hull of a point set (collision/convex_hull.hpp builds it), in the
// shape frame S with its centroid (of volume) at S's origin; a mesh's hull on a free body (its
// contact with a half-space) stays in the mesh's frame instead. Constant once built; shapes share
// it.
struct ConvexHull {
  std::vector<Vec3> vertices_S;  // the hull's vertices (corners only), m
  // Its boundary as triangles of indices into vertices_S, counter-clockwise seen from outside.
  std::vector<std::array<int, 3>> triangles;
  std::vector<Vec3> face_normals_S;  // unit outward normals of the distinct flat faces
  // Those faces as loops of vertex indices, counter-clockwise seen from outside: face f is
  // face_loop_vertices[face_loop_start[f] .. face_loop_start[f + 1]) (contact manifolds clip them).
  std::vector<int> face_loop_start;  // face count + 1 entries
  std::vector<int> face_loop_vertices;
  std::vector<Vec3> edge_directions_S;  // unit directions of the distinct edges (up to sign)
  // Every edge with the outward normals of its two faces: its arc on the Gauss map, which tells
  // which edge pairs of two hulls can meet (collision/signed_distance.cpp).
  struct Edge {
    Vec3 direction_S;  // unit, from one end to the other
    Vec3 normal_1_S;   // unit outward normal of one adjacent face
    Vec3 normal_2_S;   // unit outward normal of the other
  };
  std::vector<Edge> edges;
  double thickness = 0.0;        // m, the smallest width (over face normals and edge-edge axes)
  double bounding_radius = 0.0;  // m, the largest distance of a vertex from S's origin
};

// A shape rigidly attached to a body, with its own frame S (pose X_BS). It gives the body mass
// (from Shape::material) and, when `collision` is set, takes part in contacts.
struct Shape {
  std::string name;  // unique within its body; defaults to the shape's index in the body
  int body = -1;     // index into Model::bodies
  ShapeType type = ShapeType::sphere;
  double radius = 0.0;  // sphere, capsule, cylinder; cone: radius of the base (at z = -length/2), m
  // capsule: length of the cylinder part along S's z axis, m (the caps are hemispheres of
  // `radius` centred at z = +-length/2); cylinder and cone: height along z, centred on S's origin
  double length = 0.0;
  double top_radius = 0.0;           // cone: radius of the top face at z = +length/2 (0: a cone), m
  Vec3 radii = Vec3::Zero();         // ellipsoid: semi-axes along S's x, y, z, m
  Vec3 half_extents = Vec3::Zero();  // box, m (half of the full edge lengths), along S's axes
  // halfspace: outward unit normal in S; the solid is {x_S : normal_S . x_S <= offset}
  Vec3 normal_S = Vec3::UnitZ();
  double offset = 0.0;  // halfspace, m, along normal_S
  Pose X_BS;            // pose of the shape frame S in the body frame B
  int material = -1;    // index into Model::materials for the density (mass)
  // Index into Model::materials for contacts: elasticity, Hunt-Crossley values and the lookup
  // of the ContactMaterial pair; defaults to `material`.
  int contact_material = -1;
  bool collision = true;  // takes part in contacts; false: adds mass and inertia only
  // Collision filtering: shapes A and B may touch only if (group_A & mask_B) and (group_B &
  // mask_A) are both nonzero. Bit sets of up to 32 categories; by default every shape is in
  // category 1 and touches every category.
  std::uint32_t collision_group = 1;
  std::uint32_t collision_mask = 0xffffffffu;
  // m, the radius r that r_geo combines; default: a sphere's or capsule's radius, a box's
  // smallest half extent, +inf for a flat half-space.
  double contact_sphere_radius = 0.0;
  bool flat = false;  // flat shapes (box, half-space) use the curved partner's r
  // Hunt-Crossley K (N/m^n) and d (s/m) of this shape; override those of its contact material
  // when given (NaN: not given).
  double hunt_crossley_stiffness = kNaN;    // N/m^n
  double hunt_crossley_dissipation = kNaN;  // s/m
  Vec3 fdir1_B = Vec3::Zero();  // unit first friction direction, body frame B; zero: none
  // Box, cylinder, cone: edges and corners rounded with this radius (m), 0 for sharp. The shape
  // is its inward offset by the radius grown back by a ball of that radius (the same faces, the
  // edges rounded); mass properties stay those of the sharp shape.
  double smoothing_radius = 0.0;
  // convex: the polyhedron, shared by copies of the shape (copying the pointer allocates nothing).
  std::shared_ptr<const ConvexHull> hull;
  // mesh, heightmap: the triangles, shared like the hull.
  std::shared_ptr<const TriangleSurface> surface;
  bool plowable = false;  // deformable terrain: wheels with plowing tilt their normal on it
  // m: libccd MPR's tolerance on the general convex path (the scene's contact.mpr_tolerance when
  // it gives one); NaN: 1e-4 of the smaller shape's bounding radius (MPR only starts the
  // refinement, whose accuracy does not depend on it).
  double mpr_tolerance = kNaN;
};

// A rigid body with frame B. A free body has 13 states (core/rigid_body.hpp); a fixed body stays
// at its initial pose and has no states.
struct Body {
  std::string name = {};                      // unique among Model::bodies
  bool fixed = false;                         // true: never moves (no states)
  double mass = 0.0;                          // kg
  Mat3 inertia_com_B = Mat3::Zero();          // about the centre of mass, body frame, kg m^2
  Mat3 inverse_inertia_com_B = Mat3::Zero();  // its inverse, 1/(kg m^2), set at load
  Vec3 p_BCom_B = Vec3::Zero();               // centre of mass from B's origin, body frame, m
  // Initial state (the pose of a fixed body):
  Vec3 p_WB = Vec3::Zero();      // position of B's origin in W, m
  Quat q_WB = Quat::Identity();  // orientation of B in W (unit quaternion, body to world)
  Vec3 v_WB_W = Vec3::Zero();    // velocity of B's origin, world frame, m/s
  Vec3 w_WB_W = Vec3::Zero();    // angular velocity of B in W, world frame, rad/s
  std::vector<int> shapes;       // indices into Model::shapes
  int state_offset = -1;         // first of the 13 states of a free body, -1 for a fixed body
  // A prescribed (kinematic) body: its velocities follow two inputs (Input::Kind::
  // linear_velocity of the origin and angular_velocity, world frame), its pose their integral.
  // It has states but no dynamics: forces on it do not move it, and it adds no energy.
  bool prescribed = false;
  int linear_velocity_input = -1;   // index into Model::inputs
  int angular_velocity_input = -1;  // index into Model::inputs
};

// An external force or torque on one body, or the effort of one joint, its value given by a signal
// over time.
struct Input {
  std::string name = {};  // names the input in time-event records and for host overrides
  int body = -1;          // target body, index into Model::bodies; -1 for a joint input
  // Target joint, index into Model::joints (-1 for a body input): the signal's first component is
  // the joint's effort, N m about the axis (revolute) or N along it (prismatic), on the child and
  // its reaction on the parent.
  int joint = -1;
  // force: N, applied at the body's centre of mass. torque: N m, a pure torque.
  // linear_velocity (m/s, of the origin) and angular_velocity (rad/s): a prescribed body's motion,
  // world frame. joint_command: a servo's command (joint set; rad, m, rad/s or m/s).
  enum class Kind { force, torque, linear_velocity, angular_velocity, joint_command };
  Kind kind = Kind::force;
  bool body_frame = false;  // the value is given in the body frame B; false: world frame W
  Signal signal;            // the value over time (N or N m), in the frame above
};

// Contact detection and contact-law settings shared by all pairs (scene key `contact`).
// How many contact points a pair of shapes has (design.md §4b).
enum class ContactPoints {
  manifold,  // a face on a face gives its corners (boxes, convex hulls, half-spaces)
  single,    // one point per pair, seed 002's rule, for every pair
};

// How the fallback rule combines two self pairs' friction coefficients (scene key
// contact.friction_combination).
enum class FrictionCombination {
  geometric,  // sqrt(mu1 mu2), as every other coefficient
  harmonic,   // 2 mu1 mu2 / (mu1 + mu2), Drake's rule (0 when both are 0)
};

struct ContactSettings {
  double contact_eps = 1e-13;                      // m, hysteresis of the z1/z2 scheme
  ContactPoints points = ContactPoints::manifold;  // scene key contact.points
  FrictionCombination friction_combination = FrictionCombination::geometric;
  // m, Drake's penetration allowance (scene key contact.penetration_allowance; NaN: none): the
  // Hunt-Crossley stiffness and dissipation of materials that give none, estimated so that the
  // heaviest body resting on a contact sinks this far, critically damped.
  double penetration_allowance = kNaN;
  // m: the distance accuracy of the general convex path (shapes without a closed form against
  // their partner: cylinders, cones, ellipsoids, convex hulls). Given by the scene, it is the
  // tolerance libccd's MPR runs at (Shape::mpr_tolerance). Otherwise it is that path's tested
  // accuracy, kGeneralPathAccuracy times the smallest such shape's bounding radius (1e-14 m in a
  // scene without one), and MPR only starts the refinement at 1e-4 of the size. The default
  // contact_eps is max(1e-13, 10 * mpr_tolerance): seed 002's rule, eps at least ten times the
  // distance error. With terrain it is at least kTerrainGrazeHysteresis times the smallest
  // shape on a moving body.
  double mpr_tolerance = 1e-14;
  bool mpr_tolerance_given = false;
  bool contact_eps_given = false;
  double max_damping = 2000.0;              // s/m, d_max
  double stiffness_reduction = 1.0;         // k_red, dimensionless factor on c_res (elastic law)
  double max_events_per_second = 100000.0;  // 1/s, Zeno / chattering guard (SimulationOptions)
};

// Distance error of the general convex path relative to the smaller shape's bounding radius, as
// tests/collision/convex_distance_test.cpp bounds it (measured: 1.1e-10 at worst).
inline constexpr double kGeneralPathAccuracy = 1e-9;

// Default contact_eps of a scene with terrain (mesh, heightmap), relative to the smallest shape
// on a moving body: a ball rolling along a terrain valley grazes the face beside it at a distance
// the integration makes vibrate, and a hysteresis below that vibration starts and ends a contact
// at each one until the Zeno guard stops the run. Measured on the catalog's heightmap_hills
// (balls of 0.1 m), the smallest eps that runs through: 1e-13 m at rtol 1e-7, 1e-11 at 1e-6,
// 3e-9 at 1e-4; 1e-7 of the radius (1e-8 m) runs every rtol from 1e-2 to 1e-9. It applies to
// every pair: a contact starts 3 eps deep and the law counts penetration from -eps, so a resting
// body sits eps (1e-7 of the smallest radius) deeper.
inline constexpr double kTerrainGrazeHysteresis = 1e-7;

// Run settings of a scene (scene key `simulation`); a host or the CLI may override them.
// How the joints' constraint solver factorises G M^-1 G^T: automatic chooses dense up to
// kSparseConstraintRows (core/constraint_solver.hpp) rows and sparse above.
enum class ConstraintFactorization { automatic, dense, sparse };

// Outputs a run may ask for (stop time over output interval): 1e8 rows of a trajectory are
// gigabytes; more is a typo, refused before the run starts.
inline constexpr double kMaxOutputCount = 1e8;

struct SimulationSettings {
  double stop_time = 1.0;                // s, simulated time at which the run ends
  std::string integrator = "cvode-bdf";  // integrator registry name (list_integrators())
  double rtol = 1e-6;                    // relative tolerance, dimensionless
  // Absolute tolerance in the unit of each state (m, -, m/s, rad/s); default (nullopt):
  // default_absolute_tolerance(rtol).
  std::optional<double> atol = std::nullopt;
  double output_interval = 0.01;  // s, between communication points
  double max_step = kInfinity;    // s, bound on the integrator's step; +inf: none
  // Method options (IntegratorSettings): Butcher table, Newton linear solver (empty: the
  // integrator's default) and the step of fixed-step methods (s; 0: none given).
  std::string table = {};
  std::string linear_solver = {};
  double step_size = 0.0;
  // Joints: rate omega of the Baumgarte stabilisation g'' + 2 omega g' + omega^2 g = 0, 1/s, and
  // the position error (m or rad) to which restarts project the state.
  double constraint_stabilization = 50.0;
  double constraint_tolerance = 1e-12;
  ConstraintFactorization constraint_factorization = ConstraintFactorization::automatic;
};

// atol when a scene gives none: 1e-2 * rtol (m, m/s, rad/s scale; see docs/scene-format.md).
inline double default_absolute_tolerance(double rtol) {
  return 1e-2 * rtol;
}

// A loaded scene.
struct Model {
  std::string name = {};               // the scene's `name`; default: the file name, no extension
  std::string description;             // free text from the scene; may be empty
  std::string reference;               // what the scene is checked against, one line; may be empty
  std::string source;                  // the scene file it came from
  std::vector<std::string> overrides;  // the KEY=VALUE overrides applied at loading
  // What the loader accepted but a user should know, each with its kind ("degenerate_mesh":
  // triangles of zero area skipped), reported as run warnings at the start.
  struct LoadWarning {
    std::string kind;
    std::string message;
  };
  std::vector<LoadWarning> warnings;
  Vec3 gravity_W{0.0, 0.0, -9.81};  // gravitational acceleration, world frame, m/s^2
  SimulationSettings simulation;
  ContactSettings contact;
  std::vector<Material> materials;
  std::vector<ContactMaterial> contact_materials;
  std::vector<Body> bodies;
  std::vector<Shape> shapes;
  std::vector<Joint> joints;
  // (lower, higher) body indices of every joint without can_collide, sorted (index_joints).
  std::vector<std::pair<int, int>> non_colliding_joints;
  std::vector<Input> inputs;
  std::vector<Wheel> wheels;
  std::vector<BilateralContact> bilateral_contacts;
  int state_size = 0;  // 13 per free body

  // Index lookups; -1 when absent.
  int find_body(const std::string& name) const;
  int find_joint(const std::string& name) const;
  int find_input(const std::string& name) const;
  int find_wheel(const std::string& name) const;
  int find_bilateral_contact(const std::string& name) const;
  int find_material(const std::string& name) const;
  // The contact material of an unordered pair of material indices, or -1.
  int find_contact_material(int material_a, int material_b) const;
  // Whether shapes a and b (indices into shapes) may ever touch: both take part in contacts, on
  // different bodies that are not both fixed or prescribed, not joined by a joint without
  // can_collide, and their groups and masks let them.
  bool may_collide(int shape_a, int shape_b) const;
  // "body/shape" as used in event logs and outputs.
  std::string shape_label(int shape) const;
};

// Assigns state offsets (13 per free body) and the state size. Called once after loading.
void assign_state_layout(Model& model);
// Fills Model::non_colliding_joints from Model::joints. Called once after loading the joints.
void index_joints(Model& model);

}  // namespace hybridsim
