#include "models/joint_reader.hpp"

#include <cmath>
#include <deque>
#include <numbers>

#include <fmt/format.h>

#include "core/constraint_solver.hpp"
#include "core/errors.hpp"
#include "core/joint_constraints.hpp"
#include "core/rigid_body.hpp"
#include "models/signal_reader.hpp"

namespace hybridsim {
namespace {

// Largest constraint error (m or rad) at which a loop counts as closed at the initial poses; the
// start projects the rest away.
constexpr double kLoopClosureTolerance = 1e-6;

// A unit vector perpendicular to the unit vector a: a x (the world axis least aligned with a).
Vec3 perpendicular(const Vec3& a) {
  Eigen::Index least = 0;
  a.cwiseAbs().minCoeff(&least);
  return a.cross(Vec3::Unit(least)).normalized();
}

// Kinematics of a body at its current initial pose and velocity (as stored in the Model).
BodyKinematics initial_kinematics(const Body& body) {
  double x[kFreeBodyStateSize] = {};
  Body at_origin = body;
  at_origin.state_offset = 0;
  write_initial_body_state(at_origin, x);
  BodyKinematics kinematics;
  compute_body_kinematics(at_origin, x, kinematics);
  return kinematics;
}

// The zero configuration: the anchor and axes in both body frames at the scene poses.
void set_zero_configuration(Joint& joint, const Body& parent, const Body& child,
                            const Vec3& anchor_W, const Vec3& axis_W) {
  const Mat3 R_WP = parent.q_WB.toRotationMatrix();
  const Mat3 R_WC = child.q_WB.toRotationMatrix();
  joint.p_PJ_P = R_WP.transpose() * (anchor_W - parent.p_WB);
  joint.p_CJ_C = R_WC.transpose() * (anchor_W - child.p_WB);
  const Vec3 u_W = perpendicular(axis_W);
  const Vec3 w_W = axis_W.cross(u_W);
  joint.axis_P = R_WP.transpose() * axis_W;
  joint.u_P = R_WP.transpose() * u_W;
  joint.w_P = R_WP.transpose() * w_W;
  joint.axis_C = R_WC.transpose() * axis_W;
  joint.u_C = R_WC.transpose() * u_W;
  joint.q_PC0 = (parent.q_WB.conjugate() * child.q_WB).normalized();
}

// `servo`: exactly one of velocity and position, each a number or a signal map, with its gains;
// the command becomes the input "<joint>.servo" (Input::Kind::joint_command).
void read_servo(MapReader& joint_reader, Joint& joint, Model& model) {
  MapReader reader(joint_reader.get("servo"), joint_reader.path_of("servo"), joint_reader.source());
  JointServo& servo = joint.servo;
  if (reader.has("velocity") == reader.has("position")) {
    reader.fail("velocity", "give exactly one of velocity and position");
  }
  const bool velocity = reader.has("velocity");
  servo.mode = velocity ? JointServo::Mode::velocity : JointServo::Mode::position;
  Input command;
  command.name = joint.name + ".servo";
  if (model.find_input(command.name) >= 0) reader.fail("velocity", "an input has this name");
  command.kind = Input::Kind::joint_command;
  command.joint = static_cast<int>(model.joints.size());
  command.signal = read_signal_or_number(reader, velocity ? "velocity" : "position");
  servo.ideal = reader.boolean("ideal", false);
  if (velocity) {
    if (servo.ideal) {
      if (reader.has("gain")) reader.fail("gain", "an ideal servo is a constraint, without gain");
    } else {
      servo.gain = reader.required_positive("gain");
    }
    for (const char* key : {"kp", "kd"}) {
      if (reader.has(key)) reader.fail(key, "applies to a position servo");
    }
  } else {
    if (servo.ideal) reader.fail("ideal", "an ideal servo holds a velocity (use velocity)");
    servo.kp = reader.required_positive("kp");
    servo.kd = reader.non_negative("kd", 0.0);
    if (reader.has("gain")) reader.fail("gain", "applies to a velocity servo (use kp, kd)");
  }
  servo.max_effort = reader.positive("max_effort", kInfinity);
  if (servo.ideal && reader.has("max_effort")) {
    reader.fail("max_effort", "an ideal servo's effort is not bounded");
  }
  reader.reject_unknown_keys();
  servo.command = static_cast<int>(model.inputs.size());
  model.inputs.push_back(command);
}

// `limit: {lower, upper, stiffness, damping}` of a revolute or prismatic joint (core/joint.hpp).
void read_limit(MapReader& reader, Joint& joint) {
  MapReader limit(reader.get("limit"), reader.path_of("limit"), reader.source());
  JointLimit& result = joint.limit;
  result.enabled = true;
  result.lower = limit.number("lower", -kInfinity);
  result.upper = limit.number("upper", kInfinity);
  if (!limit.has("lower") && !limit.has("upper")) limit.fail("upper", "give lower, upper or both");
  if (!(result.lower < result.upper)) {
    limit.fail("upper", fmt::format("must be above lower ({})", result.lower));
  }
  // A revolute coordinate lives in (-pi, pi]: a bound at or past pi would never be reached
  // from inside, and the coordinate's wrap at pi would cross the other bound. With one bound
  // only, the joint could turn through the wrap and meet that bound from the wrong side, deep
  // in: a revolute limit has both.
  if (joint.type == JointType::revolute) {
    for (const char* key : {"lower", "upper"}) {
      if (!limit.has(key)) {
        limit.fail(key,
                   "is required on a revolute joint: its angle wraps at +-pi, so a single "
                   "bound would be met from the far side after a turn");
      }
    }
    for (const auto& [key, bound] :
         {std::pair{"lower", result.lower}, std::pair{"upper", result.upper}}) {
      if (std::isfinite(bound) && !(std::abs(bound) < std::numbers::pi)) {
        limit.fail(key,
                   fmt::format("{} rad: a revolute joint's bound lies inside (-pi, pi)", bound));
      }
    }
  }
  result.stiffness = limit.required_positive("stiffness");
  result.damping = limit.non_negative("damping", 0.0);
  limit.reject_unknown_keys();
}

Joint read_joint(MapReader& reader, Model& model) {
  Joint joint;
  joint.name = reader.required_string("name");
  if (model.find_joint(joint.name) >= 0) reader.fail("name", "duplicate joint name");
  const std::string type =
      reader.choice("type", "", {"revolute", "prismatic", "spherical", "fixed"});
  if (type.empty()) reader.fail("type", "is required: revolute, prismatic, spherical or fixed");
  joint.type = type == "revolute"    ? JointType::revolute
               : type == "prismatic" ? JointType::prismatic
               : type == "spherical" ? JointType::spherical
                                     : JointType::fixed;
  auto read_body = [&](const char* key) {
    const int body = model.find_body(reader.required_string(key));
    if (body < 0) reader.fail(key, "unknown body");
    return body;
  };
  joint.parent = read_body("parent");
  joint.child = read_body("child");
  if (joint.parent == joint.child) reader.fail("child", "a body cannot be jointed to itself");
  const Body& parent = model.bodies[joint.parent];
  const Body& child = model.bodies[joint.child];
  if (parent.fixed && child.fixed) reader.fail("child", "both bodies are fixed");
  for (const char* key : {"parent", "child"}) {
    if (model.bodies[key == std::string_view("parent") ? joint.parent : joint.child].prescribed) {
      reader.fail(key, "a prescribed body cannot be jointed (its motion is given)");
    }
  }

  const Vec3 anchor_W = reader.vec3("anchor", child.p_WB);
  const bool has_axis = joint.type == JointType::revolute || joint.type == JointType::prismatic;
  Vec3 axis_W = Vec3::UnitZ();
  if (has_axis) {
    axis_W = reader.required_vec3("axis");
    if (axis_W.norm() < 1e-12) reader.fail("axis", "must not be zero");
    axis_W.normalize();
  } else if (reader.has("axis")) {
    reader.fail("axis", fmt::format("a {} joint has no axis", type));
  }
  set_zero_configuration(joint, parent, child, anchor_W, axis_W);
  joint.can_collide = reader.boolean("can_collide", false);

  // Coordinates, efforts and springs exist for the one-degree-of-freedom joints only.
  for (const char* key : {"initial", "input", "stiffness", "damping", "spring_reference", "servo",
                          "limit", "friction", "friction_speed"}) {
    if (!has_axis && reader.has(key)) {
      reader.fail(key, fmt::format("a {} joint has no joint coordinate", type));
    }
  }
  if (reader.has("initial")) {
    MapReader initial(reader.get("initial"), reader.path_of("initial"), reader.source());
    joint.initial_position = initial.number("position", 0.0);
    joint.initial_velocity = initial.number("velocity", 0.0);
    initial.reject_unknown_keys();
  }
  if (reader.has("input")) {
    const std::string name = reader.required_string("input");
    for (std::size_t i = 0; i < model.inputs.size(); ++i) {
      if (model.inputs[i].name != name) continue;
      Input& input = model.inputs[i];
      if (input.body >= 0) reader.fail("input", "this input already drives a body");
      if (input.joint >= 0) reader.fail("input", "this input already drives another joint");
      input.joint = static_cast<int>(model.joints.size());
      joint.input = static_cast<int>(i);
    }
    if (joint.input < 0) reader.fail("input", "unknown input");
  }
  joint.stiffness = reader.non_negative("stiffness", 0.0);
  joint.damping = reader.non_negative("damping", 0.0);
  joint.spring_reference = reader.number("spring_reference", 0.0);
  joint.friction = reader.non_negative("friction", 0.0);
  joint.friction_speed = reader.positive("friction_speed", joint.friction_speed);
  if (reader.has("servo")) read_servo(reader, joint, model);
  if (reader.has("limit")) read_limit(reader, joint);
  // An ideal servo is a constraint on the rate whatever the effort: the limit could not stop it.
  if (joint.servo.ideal && joint.limit.enabled) {
    reader.fail("limit",
                "an ideal velocity servo holds the joint's rate against any effort, so "
                "the limit could not stop it (give the servo a gain)");
  }
  reader.reject_unknown_keys();
  return joint;
}

// Moves `body` rigidly: rotation `turn` about the world point `pivot`, then translation `shift`;
// velocities are carried along by the same rotation.
void move_body(Body& body, const Quat& turn, const Vec3& pivot, const Vec3& shift) {
  const Mat3 R = turn.toRotationMatrix();
  body.p_WB = pivot + R * (body.p_WB - pivot) + shift;
  body.q_WB = (turn * body.q_WB).normalized();
  body.v_WB_W = R * body.v_WB_W;
  body.w_WB_W = R * body.w_WB_W;
}

// The spanning forest of the joint graph: fixed bodies first as roots, then every body not yet
// reached. Joints not in the forest close loops.
struct JointForest {
  std::vector<int> order;          // tree joints, parents before children
  std::vector<char> in_tree;       // per joint
  std::vector<int> tree_parent;    // per body: the body it was reached from, -1 for a root
  std::vector<char> child_is_far;  // per tree joint: the traversal went parent -> child
};

JointForest build_forest(const Model& model) {
  const std::size_t n = model.bodies.size();
  std::vector<std::vector<int>> joints_of(n);
  for (std::size_t j = 0; j < model.joints.size(); ++j) {
    joints_of[model.joints[j].parent].push_back(static_cast<int>(j));
    joints_of[model.joints[j].child].push_back(static_cast<int>(j));
  }
  JointForest forest;
  forest.in_tree.assign(model.joints.size(), 0);
  forest.child_is_far.assign(model.joints.size(), 0);
  forest.tree_parent.assign(n, -1);
  std::vector<char> reached(n, 0);
  auto visit_from = [&](int root) {
    if (reached[root] != 0) return;
    reached[root] = 1;
    std::deque<int> queue{root};
    while (!queue.empty()) {
      const int body = queue.front();
      queue.pop_front();
      for (int j : joints_of[body]) {
        const Joint& joint = model.joints[j];
        const int other = joint.parent == body ? joint.child : joint.parent;
        if (reached[other] != 0) continue;
        reached[other] = 1;
        forest.in_tree[j] = 1;
        forest.child_is_far[j] = other == joint.child ? 1 : 0;
        forest.tree_parent[other] = body;
        forest.order.push_back(j);
        queue.push_back(other);
      }
    }
  };
  for (std::size_t b = 0; b < n; ++b) {
    if (model.bodies[b].fixed) visit_from(static_cast<int>(b));
  }
  for (std::size_t b = 0; b < n; ++b) visit_from(static_cast<int>(b));
  return forest;
}

// Whether body b lies in the subtree below `top` (top included).
bool in_subtree(const JointForest& forest, int b, int top) {
  for (int body = b; body >= 0; body = forest.tree_parent[body]) {
    if (body == top) return true;
  }
  return false;
}

void apply_initial_coordinates(const YAML::Node& list, const YamlSource& source, Model& model) {
  const JointForest forest = build_forest(model);
  for (std::size_t j = 0; j < model.joints.size(); ++j) {
    const Joint& joint = model.joints[j];
    const bool moves = joint.initial_position != 0.0 || joint.initial_velocity != 0.0;
    if (!moves) continue;
    const std::string path = fmt::format("joints[{}].initial", j);
    if (forest.in_tree[j] == 0) {
      throw_yaml_error(source, list[j]["initial"], path,
                       "this joint closes a loop: its coordinate follows from the other joints "
                       "(give the loop's initial state through the tree joints or body poses)");
    }
    if (forest.child_is_far[j] == 0) {
      throw_yaml_error(source, list[j]["initial"], path,
                       "the child must be the body farther from the fixed bodies for an initial "
                       "joint position (swap parent and child)");
    }
  }
  for (int j : forest.order) {
    const Joint& joint = model.joints[j];
    if (joint.initial_position == 0.0 && joint.initial_velocity == 0.0) continue;
    const BodyKinematics parent = initial_kinematics(model.bodies[joint.parent]);
    const Vec3 anchor_W = parent_anchor_W(joint, parent);
    const Vec3 axis_W = parent.X_WB.rotation * joint.axis_P;
    const bool revolute = joint.type == JointType::revolute;
    const Quat turn =
        revolute ? Quat(Eigen::AngleAxisd(joint.initial_position, axis_W)) : Quat::Identity();
    const Vec3 shift = revolute ? Vec3::Zero() : Vec3(joint.initial_position * axis_W);
    for (std::size_t b = 0; b < model.bodies.size(); ++b) {
      if (!in_subtree(forest, static_cast<int>(b), joint.child)) continue;
      Body& body = model.bodies[b];
      move_body(body, turn, anchor_W, shift);
      // The joint rate: relative to the parent, about (or along) the axis through the anchor.
      if (revolute) {
        body.w_WB_W += joint.initial_velocity * axis_W;
        body.v_WB_W += joint.initial_velocity * axis_W.cross(body.p_WB - anchor_W);
      } else {
        body.v_WB_W += joint.initial_velocity * axis_W;
      }
    }
  }
  // Loops must close at the initial poses (tree joints hold by construction).
  for (std::size_t j = 0; j < model.joints.size(); ++j) {
    if (forest.in_tree[j] != 0) continue;
    const Joint& joint = model.joints[j];
    ConstraintRow rows[6];
    evaluate_joint_constraints(joint, initial_kinematics(model.bodies[joint.parent]),
                               initial_kinematics(model.bodies[joint.child]), rows);
    double error = 0.0;
    for (int k = 0; k < joint_constraint_count(joint.type); ++k) {
      error = std::max(error, std::abs(rows[k].position_error));
    }
    if (error > kLoopClosureTolerance) {
      throw_yaml_error(source, list[j], fmt::format("joints[{}]", j),
                       fmt::format("joint '{}' closes a loop that is open by {:.3g} (m or rad) at "
                                   "the initial configuration; loops are supported when they "
                                   "close at the initial body poses and joint positions",
                                   joint.name, error));
    }
  }
}

}  // namespace

void read_joints(MapReader& root, Model& model) {
  const YAML::Node list = root.sequence("joints");
  for (std::size_t i = 0; i < list.size(); ++i) {
    MapReader reader(list[i], fmt::format("joints[{}]", i), root.source());
    model.joints.push_back(read_joint(reader, model));
  }
  for (const Input& input : model.inputs) {
    if (input.body < 0 && input.joint < 0) {
      throw InputError(
          fmt::format("{}: input '{}' has no target and no joint names it as its input",
                      root.source().file, input.name));
    }
  }
  int rows = 0;
  for (const Joint& joint : model.joints) rows += joint_row_count(joint);
  if (model.simulation.constraint_factorization == ConstraintFactorization::dense &&
      rows > kMaxDenseConstraintRows) {
    throw InputError(fmt::format(
        "{}: key 'simulation.constraint_factorization' = dense: the joints have {} constraint "
        "rows, more than the dense factorisation takes ({}); use sparse or auto",
        root.source().file, rows, kMaxDenseConstraintRows));
  }
  apply_initial_coordinates(list, root.source(), model);
  index_joints(model);
}

}  // namespace hybridsim
