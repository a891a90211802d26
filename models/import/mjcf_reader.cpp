#include "models/import/mjcf_reader.hpp"

#include <cmath>
#include <filesystem>
#include <map>
#include <numbers>
#include <set>
#include <utility>

#include <fmt/format.h>

#include "core/errors.hpp"
#include "models/import/mjcf_elements.hpp"
#include "models/import/xml_document.hpp"
#include "models/palette.hpp"

namespace hybridsim {

namespace {

// MuJoCo's collision filter: geoms touch when (contype1 & conaffinity2) || (contype2 &
// conaffinity1).
struct CollisionBits {
  long contype = 1, conaffinity = 1;
  auto operator<=>(const CollisionBits&) const = default;
};

// A generated material: the density of the mass properties and the friction of the contact laws,
// which MuJoCo states per geom: its three coefficients (MuJoCo's defaults) and the contact's
// dimensionality condim (1 frictionless, 3 sliding, 4 and spin, 6 and rolling).
struct GeomMaterial {
  double density = 1000.0;
  double sliding_friction = 1.0;
  double torsional_friction = 0.005;  // m: spin torque torsional_friction * f_n
  double rolling_friction = 0.0001;   // m: rolling torque rolling_friction * f_n
  int condim = 3;
  auto operator<=>(const GeomMaterial&) const = default;
};

// Attributes that only draw or name things; documented as ignored in docs/import.md.
const std::set<std::string> kVisualAttributes = {"name",  "class", "rgba",      "material",
                                                 "group", "user",  "childclass"};

class MjcfReader {
 public:
  MjcfReader(const XmlDocument& document, ImportContext& context)
      : document_(document), context_(context) {
    const YAML::Node palette = YAML::Load(kMaterialPaletteYaml)["materials"];
    const YAML::Node base = palette[context.options().default_material];
    if (!base) {
      throw InputError(fmt::format("import option default_material '{}' is not a palette material",
                                   context.options().default_material));
    }
    youngs_modulus_ = base["youngs_modulus"].as<double>();
    poisson_ratio_ = base["poisson_ratio"].as<double>();
  }

  YAML::Node read() {
    const XmlElement& mujoco = document_.root();
    if (std::string(element_name(mujoco)) != "mujoco") {
      document_.fail(mujoco, "an MJCF file's root element is <mujoco>");
    }
    tree_["name"] = attribute(mujoco, "model").value_or("mujoco_model");
    tree_["description"] = "MuJoCo model imported from MJCF";
    tree_["gravity"] = vec3_node(Vec3(0.0, 0.0, -9.81));
    // Settings first: angles, defaults and meshes apply to the bodies wherever they stand.
    for (const char* tag : {"compiler", "option", "default", "asset"}) {
      for (const XmlElement* e = first_child(mujoco, tag); e; e = next_sibling(*e, tag)) {
        read_section(*e);
      }
    }
    for (const XmlElement* e = first_child(mujoco); e; e = next_sibling(*e)) {
      const std::string tag = element_name(*e);
      if (tag == "compiler" || tag == "option" || tag == "default" || tag == "asset") continue;
      if (tag == "worldbody") {
        read_world_body(*e);
      } else if (tag == "size" || tag == "visual" || tag == "statistic" || tag == "sensor" ||
                 tag == "custom" || tag == "extension") {
        warn(*e, "ignored: it does not change the dynamics");
      } else if (tag == "actuator") {
        warn(*e, "actuators are not imported: the joints move without them");
      } else {
        document_.fail(*e, "is outside the MJCF subset hybridsim reads (docs/import.md)");
      }
    }
    if (!tree_["bodies"]) document_.fail(mujoco, "the model has no <worldbody> with bodies");
    write_materials();
    return tree_;
  }

 private:
  // Once per element tag and message: the first element's line stands for the rest.
  void warn(const XmlElement& element, const std::string& message) {
    context_.warn_once(std::string(element_name(element)) + "|" + message,
                       fmt::format("{}: {}", document_.locate(element), message));
  }

  void read_section(const XmlElement& e) {
    const std::string tag = element_name(e);
    if (tag == "compiler") read_compiler(e);
    if (tag == "option") read_option(e);
    if (tag == "default") defaults_.read(document_, e);
    if (tag == "asset") read_assets(e);
  }

  void read_compiler(const XmlElement& e) {
    // Each <compiler> sets what it gives; the rest stays as earlier ones set it.
    const std::string angle =
        attribute(e, "angle").value_or(angles_.scale == 1.0 ? "radian" : "degree");
    if (angle != "degree" && angle != "radian") document_.fail(e, "angle: 'degree' or 'radian'");
    angles_.scale = angle == "degree" ? std::numbers::pi / 180.0 : 1.0;
    angles_.eulerseq = attribute(e, "eulerseq").value_or(angles_.eulerseq);
    if (angles_.eulerseq.size() != 3 ||
        angles_.eulerseq.find_first_not_of("xyzXYZ") != std::string::npos) {
      document_.fail(e, fmt::format("eulerseq '{}': three of x, y, z, X, Y, Z", angles_.eulerseq));
    }
    meshdir_ = attribute(e, "meshdir").value_or(meshdir_);
    if (const auto autolimits = attribute(e, "autolimits")) autolimits_ = *autolimits == "true";
    for (const std::string& name : attribute_names(e)) {
      if (name == "inertiafromgeom" && *attribute(e, "inertiafromgeom") == "true") {
        warn(e, "inertiafromgeom='true' is not honoured: an <inertial> gives the body's mass");
      } else if (name != "angle" && name != "eulerseq" && name != "meshdir" &&
                 name != "autolimits" && name != "inertiafromgeom") {
        warn(e, fmt::format("attribute '{}' ignored", name));
      }
    }
  }

  void read_option(const XmlElement& e) {
    if (attribute(e, "gravity")) {
      const auto g = fixed_numbers<3>(document_, e, "gravity", {});
      tree_["gravity"] = vec3_node(Vec3(g[0], g[1], g[2]));
    }
    const std::string cone = attribute(e, "cone").value_or("pyramidal");
    if (cone != "pyramidal" && cone != "elliptic") {
      document_.fail(e, "cone: 'pyramidal' or 'elliptic'");
    }
    elliptic_cone_ = cone == "elliptic";
    for (const std::string& name : attribute_names(e)) {
      if (name != "gravity" && name != "cone") {
        warn(e, fmt::format("attribute '{}' ignored: hybridsim's integrators choose their own "
                            "steps (simulation keys)",
                            name));
      }
    }
    for (const XmlElement* child = first_child(e); child; child = next_sibling(*child)) {
      warn(*child, "ignored");
    }
  }

  void read_assets(const XmlElement& e) {
    for (const XmlElement* child = first_child(e); child; child = next_sibling(*child)) {
      const std::string tag = element_name(*child);
      if (tag == "mesh") {
        const MjcfElement mesh = resolve(*child, "");
        const std::string file = mesh.text("file", "");
        if (file.empty()) document_.fail(*child, "a mesh needs a file");
        const std::string name = mesh.text("name", std::filesystem::path(file).stem().string());
        meshes_[name] = mesh;
      } else if (tag == "texture" || tag == "material") {
        warn(*child, "ignored: it only draws");
      } else {
        document_.fail(*child, "is outside the MJCF subset hybridsim reads (docs/import.md)");
      }
    }
  }

  MjcfElement resolve(const XmlElement& e, const std::string& childclass) {
    return defaults_.resolve(document_, e, childclass);
  }
  std::vector<double> values(const MjcfElement& r, const char* key, std::size_t count) {
    return mjcf_values(document_, r, key, count);
  }
  double value(const MjcfElement& r, const char* key, double fallback) {
    return mjcf_value(document_, r, key, fallback);
  }
  Vec3 vec3(const MjcfElement& r, const char* key, const Vec3& fallback) {
    return mjcf_vec3(document_, r, key, fallback);
  }
  ImportPose frame(const MjcfElement& r) { return mjcf_frame(document_, r, angles_); }

  void read_world_body(const XmlElement& world) {
    YAML::Node world_body;
    world_body["name"] = "world";
    world_body["fixed"] = true;
    for (const XmlElement* e = first_child(world); e; e = next_sibling(*e)) {
      const std::string tag = element_name(*e);
      if (tag == "geom") {
        const YAML::Node shape = geom_node(resolve(*e, ""), ImportPose{}, true);
        if (!shape.IsNull()) world_body["shapes"].push_back(shape);
      } else if (tag == "body") {
        continue;
      } else if (tag == "site" || tag == "camera" || tag == "light") {
        warn(*e, "ignored: it does not change the dynamics");
      } else {
        document_.fail(*e, "is outside the MJCF subset hybridsim reads (docs/import.md)");
      }
    }
    // Always there: bodies of the world body join it by their joints.
    tree_["bodies"].push_back(world_body);
    world_has_body_ = static_cast<bool>(world_body["shapes"]);
    body_names_.insert("world");
    for (const XmlElement* e = first_child(world, "body"); e; e = next_sibling(*e, "body")) {
      read_body(*e, "world", ImportPose{}, "", 1);
    }
  }

  void read_body(const XmlElement& e, const std::string& parent, const ImportPose& X_WP,
                 const std::string& inherited_class, int depth) {
    if (depth > 1000) document_.fail(e, "bodies nested more than 1000 deep");
    const MjcfElement body = resolve(e, inherited_class);
    const std::string childclass = attribute(e, "childclass").value_or(inherited_class);
    const std::string name =
        attribute(e, "name").value_or(fmt::format("body{}", ++unnamed_bodies_));
    if (!body_names_.insert(name).second) document_.fail(e, "a second body of this name");
    const ImportPose X_WB = compose(X_WP, frame(body));

    YAML::Node node;
    node["name"] = name;
    set_pose(node, X_WB);
    const XmlElement* joint = nullptr;
    for (const XmlElement* child = first_child(e); child; child = next_sibling(*child)) {
      const std::string tag = element_name(*child);
      if (tag == "joint" || tag == "freejoint") {
        if (joint != nullptr) {
          document_.fail(*child,
                         "a second joint in one body: hybridsim joins two bodies by one "
                         "joint (nest a body per joint)");
        }
        joint = child;
      } else if (tag == "geom") {
        const YAML::Node shape = geom_node(resolve(*child, childclass), ImportPose{}, false);
        if (!shape.IsNull()) node["shapes"].push_back(shape);
      } else if (tag == "inertial") {
        read_inertial(*child, node);
      } else if (tag == "body") {
        continue;
      } else if (tag == "site" || tag == "camera" || tag == "light") {
        warn(*child, "ignored: it does not change the dynamics");
      } else {
        document_.fail(*child, "is outside the MJCF subset hybridsim reads (docs/import.md)");
      }
    }
    const bool welded_to_world = joint == nullptr && parent == "world";
    if (!node["mass"] && !node["shapes"] && !welded_to_world) {
      document_.fail(e, "a moving body needs an <inertial> or geoms with mass");
    }
    for (const std::string& key : attribute_names(e)) {
      if (key == "mocap") document_.fail(e, "mocap bodies are outside the subset");
      if (key != "pos" && key != "quat" && key != "euler" && key != "axisangle" &&
          key != "xyaxes" && key != "zaxis" && !kVisualAttributes.count(key)) {
        warn(e, fmt::format("attribute '{}' ignored", key));
      }
    }
    const bool free = joint != nullptr && (std::string(element_name(*joint)) == "freejoint" ||
                                           resolve(*joint, childclass).text("type", "") == "free");
    if (free && parent != "world") {
      document_.fail(*joint, "a free joint belongs to a body of the world body");
    }
    if (welded_to_world) {
      node["fixed"] = true;
      node.remove("mass");
      node.remove("center_of_mass");
      node.remove("inertia");
    }
    tree_["bodies"].push_back(node);
    if (!free && !welded_to_world) {
      tree_["joints"].push_back(joint_node(joint, childclass, name, parent, X_WB));
    }
    for (const XmlElement* child = first_child(e, "body"); child;
         child = next_sibling(*child, "body")) {
      read_body(*child, name, X_WB, childclass, depth + 1);
    }
  }

  // <inertial pos quat mass diaginertia|fullinertia>: the body's mass properties, explicit.
  void read_inertial(const XmlElement& e, YAML::Node body) {
    const MjcfElement inertial = resolve(e, "");
    const double mass = value(inertial, "mass", 0.0);
    if (!(mass > 0.0)) document_.fail(e, "the mass must be positive");
    const ImportPose X_BC = frame(inertial);
    Mat3 I_C = Mat3::Zero();
    if (inertial.has("diaginertia") == inertial.has("fullinertia")) {
      document_.fail(e, "give one of diaginertia, fullinertia");
    }
    if (inertial.has("diaginertia")) {
      I_C.diagonal() = vec3(inertial, "diaginertia", Vec3::Zero());
    } else {
      const std::vector<double> I = values(inertial, "fullinertia", 6);
      I_C << I[0], I[3], I[4], I[3], I[1], I[5], I[4], I[5], I[2];
    }
    const std::string problem = inertia_problem(I_C);
    if (!problem.empty()) document_.fail(e, problem);
    const Mat3 R = X_BC.q.toRotationMatrix();
    body["mass"] = number_node(mass);
    body["center_of_mass"] = vec3_node(X_BC.p);
    body["inertia"] = inertia_node(is_identity(X_BC.q) ? I_C : Mat3(R * I_C * R.transpose()));
  }

  YAML::Node joint_node(const XmlElement* element, const std::string& childclass,
                        const std::string& child, const std::string& parent,
                        const ImportPose& X_WB) {
    YAML::Node node;
    if (element == nullptr) {  // no joint: welded to the parent
      node["name"] = child + "_weld";
      node["type"] = "fixed";
      node["parent"] = parent;
      node["child"] = child;
      node["anchor"] = vec3_node(X_WB.p);
      return node;
    }
    const MjcfElement joint = resolve(*element, childclass);
    node["name"] = joint.text("name", child + "_joint");
    const std::string type = joint.text("type", "hinge");
    if (type == "hinge" || type == "slide") {
      node["type"] = type == "hinge" ? "revolute" : "prismatic";
    } else if (type == "ball") {
      node["type"] = "spherical";
    } else {
      document_.fail(*element, fmt::format("joint type '{}': hinge, slide, ball or free", type));
    }
    node["parent"] = parent;
    node["child"] = child;
    const Vec3 p_BJ = vec3(joint, "pos", Vec3::Zero());
    node["anchor"] = vec3_node(compose(X_WB, ImportPose{p_BJ, Quat::Identity()}).p);
    if (type != "ball") {
      const Vec3 axis_B = vec3(joint, "axis", Vec3::UnitZ());
      node["axis"] = vec3_node(is_identity(X_WB.q) ? axis_B : Vec3(X_WB.q * axis_B));
    }
    // MuJoCo filters contacts of parent and child bodies except for the world body's children.
    if (parent == "world" && world_has_body_) node["can_collide"] = true;
    // A ball joint has no coordinate for a spring or a damper in hybridsim.
    const bool ball = type == "ball";
    if (value(joint, "damping", 0.0) != 0.0) {
      if (ball) warn(*element, "a ball joint's damping is not modelled");
      if (!ball) node["damping"] = number_node(value(joint, "damping", 0.0));
    }
    if (value(joint, "stiffness", 0.0) != 0.0) {
      if (ball) warn(*element, "a ball joint's stiffness is not modelled");
      if (!ball) {
        node["stiffness"] = number_node(value(joint, "stiffness", 0.0));
        // A hinge's spring reference is an angle, in the compiler's unit; MuJoCo's qpos is ref
        // at the model's pose, where hybridsim's q is 0.
        const double scale = type == "hinge" ? angles_.scale : 1.0;
        node["spring_reference"] =
            number_node((value(joint, "springref", 0.0) - value(joint, "ref", 0.0)) * scale);
      }
    }
    // frictionloss: MuJoCo's dry friction on the joint, as hybridsim's regularised joint friction.
    if (value(joint, "frictionloss", 0.0) != 0.0) {
      if (ball) warn(*element, "a ball joint's frictionloss is not modelled");
      if (!ball) node["friction"] = number_node(value(joint, "frictionloss", 0.0));
    }
    read_limit(joint, *element, type, node);
    for (const auto& [key, text] : joint.attributes) {
      if (key == "range" || key == "limited") {
        continue;  // read_limit
      } else if (key == "armature" || (key == "ref" && ball) || key == "solreflimit" ||
                 key == "solimplimit" || key == "margin") {
        warn(*element, fmt::format("attribute '{}' is not modelled", key));
      } else if (key != "type" && key != "pos" && key != "axis" && key != "damping" &&
                 key != "stiffness" && key != "springref" && key != "frictionloss" &&
                 !kVisualAttributes.count(key)) {
        warn(*element, fmt::format("attribute '{}' ignored", key));
      }
    }
    return node;
  }

  // `range` and `limited` of a hinge or slide as the joint's limit. MuJoCo's `limited` is
  // "auto" by default: limited where a range is given, under the compiler's autolimits (true
  // by default in current MuJoCo). A hinge's range is in the compiler's angle unit, and like
  // qpos it counts from `ref` (qpos at the model's pose).
  void read_limit(const MjcfElement& joint, const XmlElement& element, const std::string& type,
                  YAML::Node& node) {
    const std::string limited = joint.text("limited", "auto");
    if (limited != "auto" && limited != "true" && limited != "false") {
      document_.fail(element, fmt::format("limited '{}': true, false or auto", limited));
    }
    const bool has_range = joint.has("range");
    if (limited == "auto" && has_range && !autolimits_) {
      warn(element,
           "a range without limited='true' under autolimits='false' is not enforced "
           "(MuJoCo refuses such a model)");
    }
    const bool enforced = limited == "true" || (limited == "auto" && has_range && autolimits_);
    if (!enforced) return;
    if (type == "ball") {
      warn(element, "a ball joint's range (a cone about its reference) is not enforced");
      return;
    }
    // MuJoCo's default range is 0 0: lower = upper, which limit_node reports as not enforced.
    const std::vector<double> range =
        has_range ? values(joint, "range", 2) : std::vector<double>{0.0, 0.0};
    // MuJoCo's qpos is `ref` at the model's pose, where hybridsim's q is 0.
    const double scale = type == "hinge" ? angles_.scale : 1.0;
    const double ref = value(joint, "ref", 0.0);
    const std::string where = document_.locate(element);
    YAML::Node limit =
        limit_node((range[0] - ref) * scale, (range[1] - ref) * scale, kSdfLimitStiffness,
                   kSdfLimitDissipation, type == "hinge", where, context_);
    if (!limit.IsMap()) return;
    node["limit"] = limit;
    context_.warn_once(
        "joint_limit_stiffness",
        fmt::format("{}: the limit is a spring-damper of stiffness {:g} and damping {:g} "
                    "(SDFormat's defaults; MuJoCo's soft constraint of solreflimit and "
                    "solimplimit is not modelled); set joints.NAME.limit.stiffness to change it",
                    where, kSdfLimitStiffness, kSdfLimitDissipation));
  }

  // A geom as a shape of its body, with its generated material.
  YAML::Node geom_node(const MjcfElement& geom, const ImportPose& X_BF, bool world) {
    const XmlElement& e = *geom.element;
    YAML::Node shape;
    shape["name"] = geom.text("name", fmt::format("geom{}", ++unnamed_geoms_));
    const std::string type = geom.text("type", "sphere");
    ImportPose X_FG = frame(geom);
    double volume = 0.0;
    const auto size = [&](std::size_t count) {
      if (!geom.has("size")) document_.fail(e, fmt::format("a {} needs a size", type));
      std::vector<double> v =
          numbers_from_text(document_, e, "size", geom.attributes.at("size"), 0);
      if (v.size() < count)
        document_.fail(e, fmt::format("a {} needs {} size numbers", type, count));
      for (std::size_t i = 0; i < count; ++i) {
        if (!(v[i] > 0.0)) document_.fail(e, "sizes must be positive");
      }
      return v;
    };
    if (type == "sphere") {
      const double r = size(1)[0];
      shape["type"] = "sphere";
      shape["radius"] = number_node(r);
      volume = 4.0 / 3.0 * std::numbers::pi * r * r * r;
    } else if (type == "capsule" || type == "cylinder") {
      double r = 0.0, half_length = 0.0;
      if (geom.has("fromto")) {
        r = size(1)[0];
        const std::vector<double> v = values(geom, "fromto", 6);
        const Vec3 a(v[0], v[1], v[2]), b(v[3], v[4], v[5]);
        if (!((b - a).norm() > 0.0)) document_.fail(e, "fromto: the two points coincide");
        half_length = 0.5 * (b - a).norm();
        X_FG = ImportPose{0.5 * (a + b), Quat::FromTwoVectors(Vec3::UnitZ(), b - a)};
      } else {
        const std::vector<double> v = size(2);
        r = v[0];
        half_length = v[1];
      }
      shape["type"] = type;
      shape["radius"] = number_node(r);
      shape["length"] = number_node(2.0 * half_length);
      volume = std::numbers::pi * r * r * 2.0 * half_length +
               (type == "capsule" ? 4.0 / 3.0 * std::numbers::pi * r * r * r : 0.0);
    } else if (type == "box") {
      const std::vector<double> v = size(3);
      shape["type"] = "box";
      shape["size"] = vec3_node(2.0 * Vec3(v[0], v[1], v[2]));
      volume = 8.0 * v[0] * v[1] * v[2];
    } else if (type == "ellipsoid") {
      const std::vector<double> v = size(3);
      shape["type"] = "ellipsoid";
      shape["radii"] = vec3_node(Vec3(v[0], v[1], v[2]));
      volume = 4.0 / 3.0 * std::numbers::pi * v[0] * v[1] * v[2];
    } else if (type == "plane") {
      if (!world) document_.fail(e, "a plane belongs to the world body (it is a fixed halfspace)");
      shape["type"] = "halfspace";
    } else if (type == "mesh") {
      add_mesh(shape, geom, world);
    } else {
      document_.fail(e, fmt::format("geom type '{}' is outside the subset (sphere, capsule, box, "
                                    "cylinder, ellipsoid, plane, mesh)",
                                    type));
    }
    set_pose(shape, compose(X_BF, X_FG));
    if (geom.has("fromto") && type != "capsule" && type != "cylinder") {
      document_.fail(e, "fromto: hybridsim reads it for capsules and cylinders");
    }
    GeomMaterial material;
    material.density = value(geom, "density", 1000.0);
    if (geom.has("mass")) {
      if (volume == 0.0) {
        document_.fail(e, fmt::format("a {} geom's mass needs its volume: give its density or "
                                      "an <inertial>",
                                      type));
      }
      material.density = value(geom, "mass", 0.0) / volume;
    }
    // contype = conaffinity = 0: a geom that touches nothing; without density, one that only
    // draws (left out), else one that only carries mass.
    const bool collides =
        value(geom, "contype", 1.0) != 0.0 || value(geom, "conaffinity", 1.0) != 0.0;
    if (!collides && material.density == 0.0) return {};
    if (!collides) shape["collision"] = false;
    if (!(material.density > 0.0) && !world) document_.fail(e, "density must be positive");
    if (geom.has("friction")) {
      const std::vector<double> f = values(geom, "friction", 0);
      if (f.empty() || f.size() > 3 || !(f[0] >= 0.0)) {
        document_.fail(e, "friction: 'sliding torsional rolling', sliding >= 0");
      }
      material.sliding_friction = f[0];
      if (f.size() > 1) material.torsional_friction = f[1];
      if (f.size() > 2) material.rolling_friction = f[2];
      if (!(material.torsional_friction >= 0.0) || !(material.rolling_friction >= 0.0)) {
        document_.fail(e, "friction: 'sliding torsional rolling', each >= 0");
      }
    }
    if (geom.has("condim")) {
      const double condim = value(geom, "condim", 3.0);
      if (condim != 1.0 && condim != 3.0 && condim != 4.0 && condim != 6.0) {
        document_.fail(e, "condim: 1, 3, 4 or 6");
      }
      material.condim = static_cast<int>(condim);
    }
    shape["material"] = material_name(material);
    if (collides) read_contact_filter(geom, shape);
    for (const auto& [key, text] : geom.attributes) {
      if (key == "solref" || key == "solimp" || key == "margin" || key == "gap" ||
          key == "priority" || key == "solmix") {
        warn(e, fmt::format("attribute '{}' is not modelled: contacts follow hybridsim's elastic "
                            "law",
                            key));
      } else if (key != "type" && key != "size" && key != "pos" && key != "quat" &&
                 key != "euler" && key != "axisangle" && key != "xyaxes" && key != "zaxis" &&
                 key != "fromto" && key != "density" && key != "mass" && key != "friction" &&
                 key != "contype" && key != "conaffinity" && key != "mesh" && key != "condim" &&
                 !kVisualAttributes.count(key)) {
        warn(e, fmt::format("attribute '{}' ignored", key));
      }
    }
    return shape;
  }

  void add_mesh(YAML::Node shape, const MjcfElement& geom, bool world) {
    const XmlElement& e = *geom.element;
    const auto found = meshes_.find(geom.text("mesh", ""));
    if (found == meshes_.end()) {
      document_.fail(e, fmt::format("the mesh asset '{}' does not exist", geom.text("mesh", "")));
    }
    const MjcfElement& mesh = found->second;
    const std::string uri =
        (std::filesystem::path(meshdir_) / mesh.text("file", "")).lexically_normal().string();
    std::string searched;
    const std::string file = context_.find_file(uri, searched);
    if (file.empty()) {
      document_.fail(*mesh.element,
                     fmt::format("the mesh file '{}' is not found (searched: {})", uri, searched));
    }
    if (std::filesystem::path(file).extension() != ".obj") {
      document_.fail(*mesh.element,
                     fmt::format("the mesh file '{}': hybridsim reads OBJ meshes; convert it to "
                                 "OBJ",
                                 uri));
    }
    const Vec3 scale = vec3(mesh, "scale", Vec3::Ones());
    if (scale.x() != scale.y() || scale.x() != scale.z()) {
      document_.fail(*mesh.element, "a mesh's scale must be the same along x, y and z");
    }
    shape["type"] = world ? "mesh" : "convex";  // MuJoCo collides meshes as convex hulls
    shape["mesh"] = context_.scene_path(file);
    if (scale.x() != 1.0) shape["scale"] = number_node(scale.x());
  }

  void read_contact_filter(const MjcfElement& geom, YAML::Node shape) {
    const auto bit_set = [&](const char* key) {
      const double given = value(geom, key, 1.0);
      if (!(given >= 0.0 && given <= 4294967295.0 && given == std::floor(given))) {
        document_.fail(*geom.element, fmt::format("{}: a whole number in [0, 2^32 - 1]", key));
      }
      return static_cast<long>(given);
    };
    CollisionBits bits;
    bits.contype = bit_set("contype");
    bits.conaffinity = bit_set("conaffinity");
    collision_bits_.insert(bits);
    shape_bits_.emplace_back(shape, bits);
    if (!filter_line_) filter_line_ = geom.element;
  }

  // Materials and the contact law of every pair of them: the friction coefficients and condim by
  // MuJoCo's rule for geoms of equal priority (the larger of each), no rebound (MuJoCo's default
  // contact is critically damped, solref 0.02 1). Collision groups only when a geom sets contype
  // or conaffinity.
  void write_materials() {
    for (const auto& [material, name] : material_list_) {
      YAML::Node node;
      node["density"] = number_node(material.density > 0.0 ? material.density : 1000.0);
      node["youngs_modulus"] = number_node(youngs_modulus_);
      node["poisson_ratio"] = number_node(poisson_ratio_);
      tree_["materials"][name] = node;
    }
    const auto& ordered = material_list_;
    for (std::size_t i = 0; i < ordered.size(); ++i) {
      for (std::size_t j = i; j < ordered.size(); ++j) {
        YAML::Node pair;
        pair["pair"].push_back(ordered[i].second);
        pair["pair"].push_back(ordered[j].second);
        pair["pair"].SetStyle(YAML::EmitterStyle::Flow);
        pair["restitution"] = 0;
        write_friction(ordered[i].first, ordered[j].first, pair);
        tree_["contact_materials"].push_back(pair);
      }
    }
    const bool filtered =
        collision_bits_.size() > 1 ||
        (collision_bits_.size() == 1 && *collision_bits_.begin() != CollisionBits{});
    if (!filtered) return;
    for (auto& [shape, bits] : shape_bits_) {
      shape["group"] = bits.contype;
      shape["mask"] = bits.conaffinity;
    }
    // hybridsim needs both shapes to accept each other, MuJoCo either: the same when they agree.
    for (const CollisionBits& a : collision_bits_) {
      for (const CollisionBits& b : collision_bits_) {
        const bool either = (a.contype & b.conaffinity) != 0 || (b.contype & a.conaffinity) != 0;
        const bool both = (a.contype & b.conaffinity) != 0 && (b.contype & a.conaffinity) != 0;
        if (either != both) {
          warn(*filter_line_,
               fmt::format("contype/conaffinity {}/{} and {}/{} collide in MuJoCo (either way) "
                           "but not in hybridsim (both ways)",
                           a.contype, a.conaffinity, b.contype, b.conaffinity));
          return;
        }
      }
    }
  }

  // A pair's friction from MuJoCo's condim: sliding from 3 on, spin torque from 4, rolling torque
  // at 6, each coefficient the larger of the two geoms'. MuJoCo's spin and rolling coefficients
  // are lengths (torque = coefficient x normal force): the spin's is Gazebo's patch lever
  // (3 pi / 16) a with mu_tor = 1, the rolling's hybridsim's rolling_lever with mu_r = 1.
  void write_friction(const GeomMaterial& a, const GeomMaterial& b, YAML::Node& pair) const {
    const int condim = std::max(a.condim, b.condim);
    YAML::Node friction;
    friction["model"] = "regularized_coulomb";
    friction["mu_kinetic"] =
        number_node(condim == 1 ? 0.0 : std::max(a.sliding_friction, b.sliding_friction));
    friction["cone"] = elliptic_cone_;
    pair["friction"] = friction;
    const double spin = std::max(a.torsional_friction, b.torsional_friction);
    if (condim >= 4 && spin > 0.0) {
      pair["torsional_friction"] = 1;
      pair["torsional_patch_radius"] = number_node(16.0 * spin / (3.0 * std::numbers::pi));
    }
    const double rolling = std::max(a.rolling_friction, b.rolling_friction);
    if (condim == 6 && rolling > 0.0) {
      pair["rolling_resistance"] = 1;
      pair["rolling_lever"] = number_node(rolling);
    }
  }

  std::string material_name(const GeomMaterial& material) {
    const auto found = materials_.find(material);
    if (found != materials_.end()) return found->second;
    const std::string name = fmt::format("mjcf_material{}", materials_.size());
    materials_.emplace(material, name);
    material_list_.emplace_back(material, name);
    return name;
  }

  const XmlDocument& document_;
  ImportContext& context_;
  YAML::Node tree_;
  MjcfDefaults defaults_;
  std::map<std::string, MjcfElement> meshes_;
  std::map<GeomMaterial, std::string> materials_;
  std::vector<std::pair<GeomMaterial, std::string>> material_list_;  // in the order of first use
  std::set<CollisionBits> collision_bits_;
  std::vector<std::pair<YAML::Node, CollisionBits>> shape_bits_;
  const XmlElement* filter_line_ = nullptr;
  std::set<std::string> body_names_;
  MjcfAngles angles_;
  bool autolimits_ = true;  // <compiler autolimits>: `limited` follows `range`
  std::string meshdir_;
  double youngs_modulus_ = 0.0, poisson_ratio_ = 0.0;
  bool elliptic_cone_ = false;
  bool world_has_body_ = false;
  int unnamed_bodies_ = 0, unnamed_geoms_ = 0;
};

}  // namespace

YAML::Node read_mjcf(const std::string& text, ImportContext& context) {
  const XmlDocument document(text, context.source());
  return MjcfReader(document, context).read();
}

}  // namespace hybridsim
