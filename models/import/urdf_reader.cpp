#include "models/import/urdf_reader.hpp"

#include <filesystem>
#include <map>
#include <mutex>
#include <set>

#include <console_bridge/console.h>
#include <fmt/format.h>
#include <urdf_parser/urdf_parser.h>

#include "core/errors.hpp"
#include "models/import/xml_document.hpp"

namespace hybridsim {
namespace {

// The elements of the file by name, for messages with lines.
struct UrdfIndex {
  std::map<std::string, const XmlElement*> links, joints;
};

Mat3 inertia_matrix(double ixx, double iyy, double izz, double ixy, double ixz, double iyz) {
  Mat3 inertia;
  inertia << ixx, ixy, ixz, ixy, iyy, iyz, ixz, iyz, izz;
  return inertia;
}

// The numbers urdfdom reads (wiki.ros.org/urdf/XML), checked here with their line, so that
// urdfdom, which reports without one (and leaks what it had built when it fails), only ever reads
// well-formed numbers.
struct UrdfNumber {
  const char* tag;
  const char* attribute;
  std::size_t count;
};
constexpr UrdfNumber kUrdfNumbers[] = {{"origin", "xyz", 3},
                                       {"origin", "rpy", 3},
                                       {"box", "size", 3},
                                       {"sphere", "radius", 1},
                                       {"cylinder", "radius", 1},
                                       {"cylinder", "length", 1},
                                       {"mesh", "scale", 3},
                                       {"axis", "xyz", 3},
                                       {"mass", "value", 1},
                                       {"inertia", "ixx", 1},
                                       {"inertia", "iyy", 1},
                                       {"inertia", "izz", 1},
                                       {"inertia", "ixy", 1},
                                       {"inertia", "ixz", 1},
                                       {"inertia", "iyz", 1},
                                       {"limit", "lower", 1},
                                       {"limit", "upper", 1},
                                       {"limit", "effort", 1},
                                       {"limit", "velocity", 1},
                                       {"dynamics", "damping", 1},
                                       {"dynamics", "friction", 1},
                                       {"color", "rgba", 4},
                                       {"calibration", "rising", 1},
                                       {"calibration", "falling", 1},
                                       {"mimic", "multiplier", 1},
                                       {"mimic", "offset", 1},
                                       {"safety_controller", "k_velocity", 1},
                                       {"safety_controller", "k_position", 1},
                                       {"safety_controller", "soft_lower_limit", 1},
                                       {"safety_controller", "soft_upper_limit", 1}};

// Every element below `element`: its numbers, and the attributes and children urdfdom requires.
void check_urdf_element(const XmlDocument& document, const XmlElement& element, int depth) {
  if (depth > 100) document.fail(element, "elements nested more than 100 deep");
  const std::string tag = element_name(element);
  for (const UrdfNumber& number : kUrdfNumbers) {
    if (tag == number.tag && attribute(element, number.attribute)) {
      (void)numbers(document, element, number.attribute, number.count);
    }
  }
  const auto require = [&](const char* name) {
    if (!attribute(element, name)) document.fail(element, fmt::format("needs '{}'", name));
  };
  if (tag == "sphere") require("radius");
  if (tag == "cylinder") {
    require("radius");
    require("length");
  }
  if (tag == "box") require("size");
  if (tag == "mesh") require("filename");
  if (tag == "mass") require("value");
  if (tag == "limit") {
    require("effort");
    require("velocity");
  }
  if (tag == "geometry") {
    const XmlElement* shape = first_child(element);
    const std::string kind = shape ? element_name(*shape) : "";
    if (kind != "box" && kind != "sphere" && kind != "cylinder" && kind != "mesh") {
      document.fail(element, "needs one of <box>, <sphere>, <cylinder>, <mesh>");
    }
  }
  if ((tag == "collision" || tag == "visual") && !first_child(element, "geometry")) {
    document.fail(element, "needs a <geometry>");
  }
  for (const XmlElement* child = first_child(element); child; child = next_sibling(*child)) {
    check_urdf_element(document, *child, depth + 1);
  }
}

// The checks urdfdom makes without a line, and the index of names to elements.
UrdfIndex check_urdf(const XmlDocument& document) {
  const XmlElement& robot = document.root();
  if (std::string(element_name(robot)) != "robot") {
    document.fail(robot, "a URDF file's root element is <robot>");
  }
  check_urdf_element(document, robot, 0);
  UrdfIndex index;
  for (const XmlElement* link = first_child(robot, "link"); link;
       link = next_sibling(*link, "link")) {
    const auto name = attribute(*link, "name");
    if (!name || name->empty()) document.fail(*link, "a link needs a name");
    if (!index.links.emplace(*name, link).second)
      document.fail(*link, "a second link of this name");
    const XmlElement* inertial = first_child(*link, "inertial");
    if (inertial == nullptr) continue;
    const XmlElement* mass = first_child(*inertial, "mass");
    if (mass == nullptr) document.fail(*inertial, "needs a <mass value='...'>");
    // A massless link (mass 0) is allowed where it needs no mass, on a fixed joint or as the
    // fixed root; a moving link without mass is refused when its body is made.
    const double mass_value = number(document, *mass, "value", 0.0);
    if (mass_value < 0.0) {
      document.fail(*mass, fmt::format("the mass must be positive (link '{}')", *name));
    }
    if (mass_value == 0.0) continue;
    const XmlElement* moments = first_child(*inertial, "inertia");
    if (moments == nullptr) document.fail(*inertial, "needs an <inertia ixx='...' ...>");
    const auto get = [&](const char* key) { return number(document, *moments, key, 0.0); };
    const std::string problem = inertia_problem(
        inertia_matrix(get("ixx"), get("iyy"), get("izz"), get("ixy"), get("ixz"), get("iyz")));
    if (!problem.empty()) document.fail(*moments, problem);
  }
  for (const XmlElement* joint = first_child(robot, "joint"); joint;
       joint = next_sibling(*joint, "joint")) {
    const auto name = attribute(*joint, "name");
    if (!name || name->empty()) document.fail(*joint, "a joint needs a name");
    if (!index.joints.emplace(*name, joint).second)
      document.fail(*joint, "a second joint of this name");
    const std::string type = attribute(*joint, "type").value_or("");
    if (type != "revolute" && type != "continuous" && type != "prismatic" && type != "fixed" &&
        type != "floating" && type != "planar") {
      document.fail(*joint, fmt::format("type '{}': revolute, continuous, prismatic, fixed, "
                                        "floating or planar",
                                        type));
    }
    if ((type == "revolute" || type == "prismatic") && !first_child(*joint, "limit")) {
      document.fail(*joint, "a revolute or prismatic joint needs a <limit>");
    }
    for (const char* end : {"parent", "child"}) {
      const XmlElement* element = first_child(*joint, end);
      const auto link = element ? attribute(*element, "link") : std::nullopt;
      if (!link) document.fail(*joint, fmt::format("needs <{} link='...'>", end));
      if (!index.links.count(*link)) {
        document.fail(*element, fmt::format("the {} link '{}' does not exist", end, *link));
      }
    }
  }
  if (index.links.empty()) document.fail(robot, "a robot needs at least one link");
  // A tree: each link the child of one joint at most, and one link the child of none.
  std::map<std::string, const XmlElement*> parent_joint_of;
  for (const auto& [name, joint] : index.joints) {
    const std::string child = *attribute(*first_child(*joint, "child"), "link");
    if (!parent_joint_of.emplace(child, joint).second) {
      document.fail(*joint, fmt::format("the link '{}' is already the child of <joint name='{}'>",
                                        child, *attribute(*parent_joint_of[child], "name")));
    }
  }
  if (parent_joint_of.size() + 1 != index.links.size()) {
    document.fail(robot, fmt::format("{} links and {} joints: a robot is a tree of links with one "
                                     "root (a link that is no joint's child)",
                                     index.links.size(), index.joints.size()));
  }
  for (const XmlElement* material = first_child(robot, "material"); material;
       material = next_sibling(*material, "material")) {
    if (!attribute(*material, "name")) document.fail(*material, "a material needs a name");
  }
  return index;
}

urdf::ModelInterfaceSharedPtr parse_with_urdfdom(const std::string& text,
                                                 const XmlDocument& document) {
  CapturedConsole log;
  urdf::ModelInterfaceSharedPtr model;
  try {
    model = urdf::parseURDF(text);
  } catch (const std::exception& error) {
    log.error = error.what();
  }
  if (!model) {
    document.fail(document.root(), fmt::format("urdfdom cannot read the robot: {}",
                                               log.error.empty() ? "no reason given" : log.error));
  }
  return model;
}

ImportPose pose_of(const urdf::Pose& pose) {
  double w = 0, x = 0, y = 0, z = 0;
  pose.rotation.getQuaternion(x, y, z, w);
  ImportPose result;
  result.p = Vec3(pose.position.x, pose.position.y, pose.position.z);
  result.q = Quat(w, x, y, z);
  return result;
}

// What becomes of each link: its own body, or part of its parent's body through a fixed joint
// (a massless link such as a sensor mount).
struct LinkPlacement {
  std::string body;
  ImportPose X_BL;  // the link frame in its body's frame
  ImportPose X_WL;  // the link frame in world
  bool fixed = false;
};

class UrdfReader {
 public:
  UrdfReader(const XmlDocument& document, const UrdfIndex& index, const urdf::ModelInterface& model,
             ImportContext& context)
      : document_(document), index_(index), model_(model), context_(context) {}

  YAML::Node read() {
    const std::string& root_option = context_.options().urdf_root;
    if (root_option != "fixed" && root_option != "floating") {
      throw InputError(fmt::format("urdf_root '{}': 'fixed' or 'floating'", root_option));
    }
    const urdf::LinkConstSharedPtr root = model_.getRoot();
    LinkPlacement& placement = placements_[root->name];
    placement.body = root->name;
    placement.fixed = root_option == "fixed" || root->name == "world";
    place_children(*root);

    YAML::Node tree;
    tree["name"] = model_.getName();
    tree["description"] = fmt::format("robot '{}' imported from URDF", model_.getName());
    tree["gravity"] = vec3_node(Vec3(0.0, 0.0, -9.81));
    // Bodies in the file's order of links, so that shape pairs keep the file's order.
    for (const XmlElement* link = first_child(document_.root(), "link"); link;
         link = next_sibling(*link, "link")) {
      const std::string name = *attribute(*link, "name");
      const auto found = placements_.find(name);
      if (found == placements_.end()) {
        document_.fail(*link, "is not connected to the root link '" + root->name + "' by joints");
      }
      if (found->second.body == name) tree["bodies"].push_back(body_node(name));
    }
    for (const XmlElement* joint = first_child(document_.root(), "joint"); joint;
         joint = next_sibling(*joint, "joint")) {
      const YAML::Node node = joint_node(*model_.getJoint(*attribute(*joint, "name")), *joint);
      if (!node.IsNull()) tree["joints"].push_back(node);
    }
    return tree;
  }

 private:
  static bool has_mass(const urdf::Link& link) {
    return link.inertial && link.inertial->mass > 0.0;
  }

  // World poses of the links below `parent`, composing the joints' origins at zero position.
  void place_children(const urdf::Link& parent, int depth = 0) {
    if (depth > 1000) {
      document_.fail(*index_.links.at(parent.name), "a chain of more than 1000 joints");
    }
    const LinkPlacement parent_placement = placements_.at(parent.name);
    for (const urdf::JointSharedPtr& joint : parent.child_joints) {
      const urdf::LinkConstSharedPtr child = model_.getLink(joint->child_link_name);
      const ImportPose X_PJ = pose_of(joint->parent_to_joint_origin_transform);
      LinkPlacement placement;
      placement.X_WL = compose(parent_placement.X_WL, X_PJ);
      const bool merged = joint->type == urdf::Joint::FIXED && !has_mass(*child);
      if (merged) {
        placement.body = parent_placement.body;
        placement.X_BL = compose(parent_placement.X_BL, X_PJ);
        placement.fixed = parent_placement.fixed;
      } else {
        placement.body = child->name;
      }
      placements_[child->name] = placement;
      place_children(*child, depth + 1);
    }
  }

  YAML::Node body_node(const std::string& body) {
    const urdf::LinkConstSharedPtr link = model_.getLink(body);
    const LinkPlacement& placement = placements_.at(body);
    YAML::Node node;
    node["name"] = body;
    if (placement.fixed) node["fixed"] = true;
    set_pose(node, placement.X_WL);
    if (!placement.fixed) {
      if (!has_mass(*link)) {
        document_.fail(*index_.links.at(body),
                       "a moving link needs an <inertial> with a positive mass");
      }
      const urdf::Inertial& inertial = *link->inertial;
      const ImportPose X_LC = pose_of(inertial.origin);
      const Mat3 R = X_LC.q.toRotationMatrix();
      const Mat3 I_C = inertia_matrix(inertial.ixx, inertial.iyy, inertial.izz, inertial.ixy,
                                      inertial.ixz, inertial.iyz);
      node["mass"] = number_node(inertial.mass);
      node["center_of_mass"] = vec3_node(X_LC.p);
      node["inertia"] = inertia_node(is_identity(X_LC.q) ? I_C : Mat3(R * I_C * R.transpose()));
    }
    // The body's shapes: the collisions of its link and of the links merged into it, in the
    // file's order.
    std::set<std::string> shape_names;
    for (const XmlElement* element = first_child(document_.root(), "link"); element;
         element = next_sibling(*element, "link")) {
      const std::string name = *attribute(*element, "name");
      const auto found = placements_.find(name);
      if (found != placements_.end() && found->second.body == body) {
        add_shapes(node, *model_.getLink(name), found->second, shape_names);
      }
    }
    return node;
  }

  void add_shapes(YAML::Node body, const urdf::Link& link, const LinkPlacement& placement,
                  std::set<std::string>& names) {
    const XmlElement* collision_element = first_child(*index_.links.at(link.name), "collision");
    int index = 0;
    for (const urdf::CollisionSharedPtr& collision : link.collision_array) {
      const XmlElement& element = *collision_element;
      collision_element = next_sibling(*collision_element, "collision");
      YAML::Node shape;
      // URDF does not ask collision names to be unique; a body's shapes must be.
      const std::string given = collision->name.empty()
                                    ? fmt::format("{}_collision{}", link.name, index)
                                    : collision->name;
      std::string name = given;
      for (int copy = 2; !names.insert(name).second; ++copy)
        name = fmt::format("{}_{}", given, copy);
      shape["name"] = name;
      ++index;
      add_geometry(shape, *collision->geometry, element, placement.fixed);
      set_pose(shape, compose(placement.X_BL, pose_of(collision->origin)));
      shape["material"] = context_.options().default_material;
      body["shapes"].push_back(shape);
    }
    if (!link.collision_array.empty()) {
      context_.warn_once("material",
                         fmt::format("{}: URDF states no contact law: the shapes use the material "
                                     "'{}' (change it with the import option default_material)",
                                     document_.locate(*index_.links.at(link.name)),
                                     context_.options().default_material));
    }
  }

  void add_geometry(YAML::Node shape, const urdf::Geometry& geometry, const XmlElement& collision,
                    bool fixed) {
    switch (geometry.type) {
      case urdf::Geometry::SPHERE:
        shape["type"] = "sphere";
        shape["radius"] = number_node(static_cast<const urdf::Sphere&>(geometry).radius);
        return;
      case urdf::Geometry::BOX: {
        const urdf::Vector3& d = static_cast<const urdf::Box&>(geometry).dim;
        shape["type"] = "box";
        shape["size"] = vec3_node(Vec3(d.x, d.y, d.z));
        return;
      }
      case urdf::Geometry::CYLINDER: {
        const auto& cylinder = static_cast<const urdf::Cylinder&>(geometry);
        shape["type"] = "cylinder";
        shape["radius"] = number_node(cylinder.radius);
        shape["length"] = number_node(cylinder.length);
        return;
      }
      case urdf::Geometry::MESH:
        add_mesh(shape, static_cast<const urdf::Mesh&>(geometry), collision, fixed);
        return;
    }
    document_.fail(collision, "an unknown geometry");
  }

  // A mesh collides as its convex hull on a moving link, as its triangles on a fixed one.
  void add_mesh(YAML::Node shape, const urdf::Mesh& mesh, const XmlElement& collision, bool fixed) {
    const XmlElement* geometry = first_child(collision, "geometry");
    const XmlElement& element = *first_child(*geometry, "mesh");
    std::string searched;
    const std::string file = context_.find_file(mesh.filename, searched);
    if (file.empty()) {
      document_.fail(element, fmt::format("the mesh '{}' is not found (searched: {})",
                                          mesh.filename, searched));
    }
    if (std::filesystem::path(file).extension() != ".obj") {
      document_.fail(element, fmt::format("the mesh '{}': hybridsim reads OBJ meshes; convert it "
                                          "to OBJ (e.g. with meshlab or assimp export)",
                                          mesh.filename));
    }
    if (mesh.scale.x != mesh.scale.y || mesh.scale.x != mesh.scale.z) {
      document_.fail(element, "a mesh's scale must be the same along x, y and z");
    }
    shape["type"] = fixed ? "mesh" : "convex";
    shape["mesh"] = context_.scene_path(file);
    if (mesh.scale.x != 1.0) shape["scale"] = number_node(mesh.scale.x);
  }

  YAML::Node joint_node(const urdf::Joint& joint, const XmlElement& element) {
    const LinkPlacement& child = placements_.at(joint.child_link_name);
    if (child.body != joint.child_link_name) return {};  // merged into its parent's body
    YAML::Node node;
    node["name"] = joint.name;
    switch (joint.type) {
      case urdf::Joint::REVOLUTE:
      case urdf::Joint::CONTINUOUS:
        node["type"] = "revolute";
        break;
      case urdf::Joint::PRISMATIC:
        node["type"] = "prismatic";
        break;
      case urdf::Joint::FIXED:
        node["type"] = "fixed";
        break;
      case urdf::Joint::FLOATING:
        return {};  // the child is a free body
      default:
        document_.fail(element,
                       "planar joints are not supported (revolute, continuous, "
                       "prismatic, fixed or floating)");
    }
    node["parent"] = placements_.at(joint.parent_link_name).body;
    node["child"] = joint.child_link_name;
    // The joint frame is the child link's frame: the anchor is its origin, the axis is given in it.
    node["anchor"] = vec3_node(child.X_WL.p);
    if (joint.type != urdf::Joint::FIXED) {
      const Vec3 axis_J(joint.axis.x, joint.axis.y, joint.axis.z);
      node["axis"] = vec3_node(is_identity(child.X_WL.q) ? axis_J : Vec3(child.X_WL.q * axis_J));
    }
    if (joint.dynamics && joint.dynamics->damping != 0.0 && joint.type != urdf::Joint::FIXED) {
      node["damping"] = number_node(joint.dynamics->damping);
    }
    // Dry friction, regularised below friction_speed (Gazebo's ODE holds it exactly).
    if (joint.dynamics && joint.dynamics->friction != 0.0 && joint.type != urdf::Joint::FIXED) {
      node["friction"] = number_node(joint.dynamics->friction);
    }
    if (joint.mimic) {
      context_.warn_once("mimic", fmt::format("{}: <mimic> is not modelled: the joint moves on its "
                                              "own",
                                              document_.locate(element)));
    }
    // A continuous joint has no position limits; URDF states no stiffness for a limit: SDFormat's
    // defaults, as Gazebo reads the file.
    if ((joint.type == urdf::Joint::REVOLUTE || joint.type == urdf::Joint::PRISMATIC) &&
        joint.limits) {
      const std::string where = document_.locate(element);
      YAML::Node limit =
          limit_node(joint.limits->lower, joint.limits->upper, kSdfLimitStiffness,
                     kSdfLimitDissipation, joint.type == urdf::Joint::REVOLUTE, where, context_);
      if (limit.IsMap()) {
        node["limit"] = limit;
        context_.warn_once(
            "joint_limit_stiffness",
            fmt::format(
                "{}: the limit is a spring-damper of stiffness {:g} and damping {:g} (SDFormat's "
                "defaults: URDF gives none); set joints.NAME.limit.stiffness to change it",
                where, kSdfLimitStiffness, kSdfLimitDissipation));
      }
    }
    return node;
  }

  const XmlDocument& document_;
  const UrdfIndex& index_;
  const urdf::ModelInterface& model_;
  ImportContext& context_;
  std::map<std::string, LinkPlacement> placements_;
};

}  // namespace

namespace {
std::mutex& console_mutex() {
  static std::mutex mutex;
  return mutex;
}
}  // namespace

CapturedConsole::CapturedConsole() : lock_(console_mutex()) {
  console_bridge::useOutputHandler(this);
}

CapturedConsole::~CapturedConsole() {
  console_bridge::restorePreviousOutputHandler();
}

void CapturedConsole::log(const std::string& text, console_bridge::LogLevel level, const char*,
                          int) {
  if (level >= console_bridge::CONSOLE_BRIDGE_LOG_ERROR && error.empty()) error = text;
}

YAML::Node read_urdf(const std::string& text, ImportContext& context) {
  const XmlDocument document(text, context.source());
  const UrdfIndex index = check_urdf(document);
  const urdf::ModelInterfaceSharedPtr model = parse_with_urdfdom(text, document);
  return UrdfReader(document, index, *model, context).read();
}

}  // namespace hybridsim
