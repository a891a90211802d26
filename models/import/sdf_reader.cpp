#include "models/import/sdf_reader.hpp"

#include <algorithm>
#include <filesystem>
#include <functional>
#include <initializer_list>
#include <map>
#include <mutex>
#include <set>

#include <fmt/format.h>
#include <sdf/Box.hh>
#include <sdf/Capsule.hh>
#include <sdf/Collision.hh>
#include <sdf/Console.hh>
#include <sdf/Cylinder.hh>
#include <sdf/Ellipsoid.hh>
#include <sdf/Error.hh>
#include <sdf/Geometry.hh>
#include <sdf/Heightmap.hh>
#include <sdf/Joint.hh>
#include <sdf/JointAxis.hh>
#include <sdf/Link.hh>
#include <sdf/Mesh.hh>
#include <sdf/Model.hh>
#include <sdf/ParserConfig.hh>
#include <sdf/Physics.hh>
#include <sdf/Plane.hh>
#include <sdf/Root.hh>
#include <sdf/Sphere.hh>
#include <sdf/World.hh>

#include "core/errors.hpp"
#include "models/heightmap_reader.hpp"
#include "models/import/sdf_plugins.hpp"
#include "models/import/sdf_state.hpp"
#include "models/import/sdf_surface.hpp"
#include "models/import/urdf_reader.hpp"
#include "models/multibody_system.hpp"
#include "models/palette.hpp"

namespace hybridsim {
namespace {

Vec3 vec3_of(const ignition::math::Vector3d& v) {
  return {v.X(), v.Y(), v.Z()};
}

ImportPose pose_of(const ignition::math::Pose3d& pose) {
  return {vec3_of(pose.Pos()),
          Quat(pose.Rot().W(), pose.Rot().X(), pose.Rot().Y(), pose.Rot().Z())};
}

// "file:line: message" of libsdformat's errors (the line when it knows one).
[[noreturn]] void fail_with(const sdf::Errors& errors, const std::string& source) {
  const sdf::Error& error = errors.front();
  // Text loaded from a string has no file (libsdformat says "data-string", or "<data-string>" for
  // a missing attribute): the source stands in.
  std::string file = error.FilePath().value_or(source);
  if (file.empty() || file == "data-string" || file == "<data-string>") file = source;
  throw InputError(error.LineNumber()
                       ? fmt::format("{}:{}: {}", file, *error.LineNumber(), error.Message())
                       : fmt::format("{}: {}", file, error.Message()));
}

class SdfReader {
 public:
  explicit SdfReader(ImportContext& context) : context_(context) {
    const YAML::Node palette = YAML::Load(kMaterialPaletteYaml)["materials"];
    const YAML::Node base = palette[context.options().default_material];
    if (!base) {
      throw InputError(fmt::format("import option default_material '{}' is not a palette material",
                                   context.options().default_material));
    }
    density_ = base["density"].as<double>();
    youngs_modulus_ = base["youngs_modulus"].as<double>();
    poisson_ratio_ = base["poisson_ratio"].as<double>();
  }

  // `text`: the SDFormat libsdformat read `root` from (for the <state> velocities).
  YAML::Node read(const sdf::Root& root, const std::string& text) {
    tree_["gravity"] = vec3_node(Vec3(0.0, 0.0, -9.8));
    if (root.WorldCount() > 0) {
      const sdf::World& world = *root.WorldByIndex(0);
      tree_["name"] = world.Name();
      tree_["gravity"] = vec3_node(vec3_of(world.Gravity()));
      read_friction_model(world);
      for (uint64_t i = 0; i < world.ModelCount(); ++i) {
        read_model(*world.ModelByIndex(i), "", ImportPose{});
      }
      apply_state(read_sdf_state(text, context_.source(), context_));
    } else if (root.Model() != nullptr) {
      tree_["name"] = root.Model()->Name();
      read_model(*root.Model(), "", ImportPose{});
    } else {
      throw InputError(fmt::format("{}: no <world> and no <model>", context_.source()));
    }
    tree_["description"] = "SDFormat world imported by hybridsim";
    write_materials();
    write_filters();
    return tree_;
  }

 private:
  void read_friction_model(const sdf::World& world) {
    const sdf::Physics* physics = world.PhysicsDefault();
    if (physics == nullptr || physics->Element() == nullptr) return;
    if (physics->EngineType() != "ode") {
      // Gazebo's other engines combine surfaces their own way; the ODE rules are the documented
      // ones.
      context_.warn_once("sdf-physics-type",
                         fmt::format("{}: physics type '{}': surfaces are read by Gazebo's rules "
                                     "for ODE, the default engine",
                                     locate_sdf_element(physics->Element(), context_.source()),
                                     physics->EngineType()));
      return;
    }
    const sdf::ElementPtr ode = physics->Element()->FindElement("ode");
    const sdf::ElementPtr solver = ode ? ode->FindElement("solver") : nullptr;
    const sdf::ElementPtr model = solver ? solver->FindElement("friction_model") : nullptr;
    if (!model) return;
    const std::string name = model->Get<std::string>();
    if (name == "cone_model") {
      friction_model_ = OdeFrictionModel::cone;
    } else if (name != "pyramid_model") {
      context_.warn_once("sdf-friction-model",
                         fmt::format("{}: friction_model '{}' is read as pyramid_model",
                                     locate_sdf_element(model, context_.source()), name));
    }
  }

  // The world's <state>, as gazebo-classic's Model::SetState applies it: a model's pose moves the
  // model with its links and nested models, a link's pose then places that link, and each link
  // takes its velocity. hybridsim's joints start at the poses of the model file (their angles are
  // zero there), so a joint keeps the rigid motion its two links share: where a state turns a
  // joint (its links moved apart), the links it joins start at the file's poses, with a warning.
  void apply_state(const SdfWorldState& state) {
    // The rigid motion of each body: its state pose = motion * its file pose.
    std::map<std::string, ImportPose> model_motion;  // by scope "outer::inner::"
    for (const SdfModelPose& model : state.models) {
      const auto file = model_poses_.find(model.model);
      if (file == model_poses_.end()) {
        throw InputError(fmt::format("{}: the world has no model {}", model.where,
                                     model.model.substr(0, model.model.size() - 2)));
      }
      model_motion[model.model] = compose(model.X_WM, inverse(file->second));
    }
    std::map<std::string, ImportPose> body_motion;  // by body name
    for (const auto& [link, X_WL] : link_poses_) {
      // The innermost model around the link that the state moves.
      ImportPose motion;
      for (std::size_t end = link.rfind("::"); end != std::string::npos && end > 0;
           end = link.rfind("::", end - 1)) {
        const auto moved = model_motion.find(link.substr(0, end + 2));
        if (moved != model_motion.end()) {
          motion = moved->second;
          break;
        }
        if (end < 2) break;
      }
      body_motion[body_names_.at(link)] = motion;
    }
    for (const SdfLinkState& link : state.links) {
      const auto body_name = body_names_.find(link.link);
      if (body_name == body_names_.end()) {
        throw InputError(fmt::format("{}: the world has no link {}", link.where, link.link));
      }
      if (link.X_WL) {
        body_motion[body_name->second] = compose(*link.X_WL, inverse(link_poses_.at(link.link)));
      }
    }
    keep_joints(state, body_motion);
    for (std::size_t i = 0; i < tree_["bodies"].size(); ++i) {
      YAML::Node body = tree_["bodies"][i];
      const auto moved = body_motion.find(body["name"].as<std::string>());
      if (moved == body_motion.end() || is_rest(moved->second)) continue;
      const ImportPose X_WB =
          compose(moved->second, body_poses_.at(body["name"].as<std::string>()));
      body.remove("position");
      body.remove("orientation");
      set_pose(body, X_WB);
    }
    for (const SdfLinkState& link : state.links) {
      if (link.velocity_given && !held_bodies_.contains(body_names_.at(link.link))) {
        set_velocity(link);
      }
    }
  }

  // Joints whose two links the state moves alike move with them; the links of a joint the state
  // turns (and every link joined to them) stay at the file's poses.
  void keep_joints(const SdfWorldState& state, std::map<std::string, ImportPose>& body_motion) {
    const YAML::Node joints = tree_["joints"];
    if (!joints) return;
    const auto motion_of = [&](const std::string& body) {
      const auto found = body_motion.find(body);
      return found != body_motion.end() ? found->second : ImportPose{};
    };
    // How far a link's file pose is from the origin (m), which scales its motion's rounding.
    const auto reach = [&](const std::string& body) {
      const auto found = body_poses_.find(body);
      return found != body_poses_.end() ? found->second.p.norm() : 0.0;
    };
    // The links joined to one another, as sets; "world" is one of them, and a set holding it
    // does not move.
    std::map<std::string, std::string> root;
    const std::function<std::string(const std::string&)> find = [&](const std::string& body) {
      const auto up = root.find(body);
      return up == root.end() || up->second == body ? body : find(up->second);
    };
    for (std::size_t j = 0; j < joints.size(); ++j) {
      root[find(joints[j]["child"].as<std::string>())] =
          find(joints[j]["parent"].as<std::string>());
    }
    const auto set_motion = [&](const std::string& set) {
      return set == find("world") ? ImportPose{} : motion_of(set);
    };
    std::set<std::string> held;  // the sets a state turns a joint of
    const auto hold = [&](const std::string& body, const std::string& what) {
      held.insert(find(body));
      const auto link = std::find_if(state.links.begin(), state.links.end(), [&](const auto& l) {
        return l.X_WL && body_names_.at(l.link) == body;
      });
      context_.warn_once(
          "sdf-state-joint|" + what,
          fmt::format("{}: the state turns {} (hybridsim's joints start at the "
                      "model file's poses, their angles zero there): its links "
                      "start at the file's poses, at rest",
                      link != state.links.end() ? link->where : context_.source(), what));
    };
    for (std::size_t j = 0; j < joints.size(); ++j) {
      const std::string parent = joints[j]["parent"].as<std::string>();
      const std::string child = joints[j]["child"].as<std::string>();
      if (!same_motion(motion_of(parent), motion_of(child),
                       1.0 + std::max(reach(parent), reach(child)))) {
        hold(child, "joint " + joints[j]["name"].as<std::string>());
      }
    }
    // A set moves as one, by its root's motion, so that its joints stay exact; each of its links
    // must lie within the rounding of that motion (along a chain the joints' tolerances would
    // add up).
    for (const auto& [body, motion] : body_motion) {
      const std::string set = find(body);
      if (!held.contains(set) && !same_motion(motion, set_motion(set), 1.0 + reach(body))) {
        hold(body, "the joints of " + body);
      }
    }
    for (auto& [body, motion] : body_motion) {
      const std::string set = find(body);
      if (held.contains(set)) {
        motion = ImportPose{};
        held_bodies_.insert(body);
      } else {
        motion = set_motion(set);
      }
    }
    for (std::size_t j = 0; j < joints.size(); ++j) {
      YAML::Node joint = joints[j];
      const ImportPose motion = motion_of(joint["child"].as<std::string>());
      if (is_rest(motion)) continue;
      if (joint["anchor"]) {
        joint["anchor"] = vec3_node(motion.p + motion.q * vec3_from(joint["anchor"]));
      }
      if (joint["axis"]) joint["axis"] = vec3_node(motion.q * vec3_from(joint["axis"]));
    }
  }

  static ImportPose inverse(const ImportPose& X) {
    const Quat q = X.q.conjugate();
    return {-(q * X.p), q};
  }
  static bool is_rest(const ImportPose& X) { return X.p.isZero(0.0) && is_identity(X.q); }
  // Alike to the rounding of a saved state: Gazebo writes poses to 6 decimals (ign-math's
  // output precision), each link's on its own, and a rounded angle turns the motion of a link
  // 10 m from the origin by 5e-6 m: 1e-5 rad, and 1e-5 m times `scale` (1 + the links' distance
  // from the origin, m).
  static bool same_motion(const ImportPose& a, const ImportPose& b, double scale) {
    return (a.p - b.p).norm() <= 1e-5 * scale && a.q.angularDistance(b.q) <= 1e-5;
  }
  static Vec3 vec3_from(const YAML::Node& node) {
    return Vec3(node[0].as<double>(), node[1].as<double>(), node[2].as<double>());
  }

  void set_velocity(const SdfLinkState& state) {
    const std::string& body_name = body_names_.at(state.link);
    for (std::size_t i = 0; i < tree_["bodies"].size(); ++i) {
      YAML::Node body = tree_["bodies"][i];
      const YAML::Node& read_only = body;  // reading a missing key must not add it
      if (read_only["name"].as<std::string>() != body_name) continue;
      if (read_only["fixed"] && read_only["fixed"].as<bool>()) {
        // Gazebo saves a velocity, zero, for static links too; a static link does not move.
        if (!state.linear_W.isZero(0.0) || !state.angular_W.isZero(0.0)) {
          context_.warn_once("sdf-state-static|" + state.link,
                             fmt::format("{}: the link {} is static: its velocity is not applied",
                                         state.where, state.link));
        }
        return;
      }
      body["linear_velocity"] = vec3_node(state.linear_W);
      body["angular_velocity"] = vec3_node(state.angular_W);
    }
  }

  // A link's pose in its model (`parent` "__model__") or a collision's in its link (""): the pose
  // as written when it has no relative_to, as libsdformat's frame graph resolves it otherwise
  // (which goes through the model's frame and rounds: 0.1 becomes 0.10000000000000002).
  template <typename Element>
  ignition::math::Pose3d pose_in_parent(const Element& element, const std::string& parent) {
    if (element.PoseRelativeTo().empty()) return element.RawPose();
    ignition::math::Pose3d pose;
    const sdf::Errors errors = element.SemanticPose().Resolve(pose, parent);
    if (!errors.empty()) fail_with(errors, context_.source());
    return pose;
  }

  // X_WP: the parent's frame (the world, or the enclosing model) in world.
  void read_model(const sdf::Model& model, const std::string& scope, const ImportPose& X_WP) {
    const std::string prefix = scope + model.Name() + "::";
    ignition::math::Pose3d X_PM;
    const sdf::Errors errors = model.SemanticPose().Resolve(X_PM);
    if (!errors.empty()) fail_with(errors, context_.source());
    const ImportPose X_WM = compose(X_WP, pose_of(X_PM));
    model_poses_[prefix] = X_WM;
    warn_unread(model.Element(), {"self_collide", "enable_wind", "allow_auto_disable"});
    // A model of one link is one body named after the model (a ball, a box, the ground).
    const bool single = model.LinkCount() == 1 && model.ModelCount() == 0;
    for (uint64_t i = 0; i < model.LinkCount(); ++i) {
      const sdf::Link& link = *model.LinkByIndex(i);
      const std::string name = single ? scope + model.Name() : prefix + link.Name();
      body_names_[prefix + link.Name()] = name;
      const ImportPose X_WL = read_link(link, name, model.Static(), X_WM);
      link_poses_[prefix + link.Name()] = X_WL;
      body_poses_[name] = X_WL;
    }
    for (uint64_t i = 0; i < model.JointCount(); ++i) {
      read_joint(*model.JointByIndex(i), prefix, X_WM);
    }
    for (uint64_t i = 0; i < model.ModelCount(); ++i) {
      read_model(*model.ModelByIndex(i), prefix, X_WM);
    }
    // After the nested models: a plugin may name their links and joints ("inner::wheel").
    read_sdf_model_plugins(model.Element(), prefix, body_names_, tree_, context_);
  }

  // Returns the link frame in world.
  ImportPose read_link(const sdf::Link& link, const std::string& name, bool fixed,
                       const ImportPose& X_WM) {
    const std::string where = locate_sdf_element(link.Element(), context_.source());
    const ignition::math::Pose3d X_ML = pose_in_parent(link, "__model__");
    const ImportPose X_WL = compose(X_WM, pose_of(X_ML));
    warn_unread(link.Element(), {"kinematic", "gravity", "velocity_decay", "self_collide"});
    YAML::Node node;
    node["name"] = name;
    if (fixed) node["fixed"] = true;
    set_pose(node, X_WL);
    if (!fixed) {
      const ignition::math::Inertiald& inertial = link.Inertial();
      const double mass = inertial.MassMatrix().Mass();
      if (!(mass > 0.0)) throw InputError(where + ": a moving link needs a positive mass");
      const ImportPose X_LC = pose_of(inertial.Pose());
      const Vec3 diagonal = vec3_of(inertial.MassMatrix().DiagonalMoments());
      const Vec3 off = vec3_of(inertial.MassMatrix().OffDiagonalMoments());  // ixy, ixz, iyz
      Mat3 I_C;
      I_C << diagonal.x(), off.x(), off.y(), off.x(), diagonal.y(), off.z(), off.y(), off.z(),
          diagonal.z();
      const std::string problem = inertia_problem(I_C);
      if (!problem.empty()) throw InputError(fmt::format("{}: {}", where, problem));
      const Mat3 R = X_LC.q.toRotationMatrix();
      node["mass"] = number_node(mass);
      node["center_of_mass"] = vec3_node(X_LC.p);
      node["inertia"] = inertia_node(is_identity(X_LC.q) ? I_C : Mat3(R * I_C * R.transpose()));
    }
    // gazebo-classic gives the link's ODE body the min_depth of each collision in turn
    // (ODELink::UpdateSurface): the last one holds, SDFormat's default 0 included. A static link
    // has no ODE body.
    std::optional<double> min_depth;
    for (uint64_t i = 0; i < link.CollisionCount(); ++i) {
      const sdf::Collision& collision = *link.CollisionByIndex(i);
      const std::string place = locate_sdf_element(collision.Element(), context_.source());
      const std::optional<double> given = read_sdf_min_depth(collision.Element(), place);
      if (fixed) {
        if (given) {
          context_.warn_once("sdf-static-min-depth",
                             place +
                                 ": min_depth on a static link does not act (Gazebo gives it "
                                 "no ODE body): ignored");
        }
        continue;
      }
      if (min_depth && *min_depth != given.value_or(0.0)) {
        context_.warn_once("sdf-link-min-depth|" + name,
                           fmt::format("{}: the link's collisions give different min_depth: the "
                                       "last one's, {} m, holds for all (Gazebo sets one per link)",
                                       where, given.value_or(0.0)));
      }
      min_depth = given.value_or(0.0);
    }
    for (uint64_t i = 0; i < link.CollisionCount(); ++i) {
      SdfShapeFilter filter;
      const YAML::Node shape = shape_node(*link.CollisionByIndex(i), fixed, min_depth, filter);
      if (shape.IsNull()) continue;
      filters_.push_back({tree_["bodies"].size(), node["shapes"].size(), filter});
      node["shapes"].push_back(shape);
    }
    if (node["shapes"].size() > 0) ++(fixed ? fixed_colliders_ : moving_colliders_);
    tree_["bodies"].push_back(node);
    return X_WL;
  }

  YAML::Node shape_node(const sdf::Collision& collision, bool fixed,
                        const std::optional<double>& min_depth, SdfShapeFilter& filter) {
    const std::string where = locate_sdf_element(collision.Element(), context_.source());
    YAML::Node shape;
    shape["name"] = collision.Name();
    const sdf::Geometry& geometry = *collision.Geom();
    ImportPose X_LS;  // the collision frame in the link frame
    X_LS = pose_of(pose_in_parent(collision, ""));
    switch (geometry.Type()) {
      case sdf::GeometryType::BOX:
        shape["type"] = "box";
        shape["size"] = vec3_node(vec3_of(geometry.BoxShape()->Size()));
        break;
      case sdf::GeometryType::SPHERE:
        shape["type"] = "sphere";
        shape["radius"] = number_node(geometry.SphereShape()->Radius());
        break;
      case sdf::GeometryType::CYLINDER:
        shape["type"] = "cylinder";
        shape["radius"] = number_node(geometry.CylinderShape()->Radius());
        shape["length"] = number_node(geometry.CylinderShape()->Length());
        break;
      case sdf::GeometryType::CAPSULE:
        shape["type"] = "capsule";
        shape["radius"] = number_node(geometry.CapsuleShape()->Radius());
        shape["length"] = number_node(geometry.CapsuleShape()->Length());
        break;
      case sdf::GeometryType::ELLIPSOID:
        shape["type"] = "ellipsoid";
        shape["radii"] = vec3_node(vec3_of(geometry.EllipsoidShape()->Radii()));
        break;
      case sdf::GeometryType::PLANE:
        if (!fixed) throw InputError(where + ": a plane belongs to a static model");
        shape["type"] = "halfspace";
        shape["normal"] = vec3_node(vec3_of(geometry.PlaneShape()->Normal()));
        break;
      case sdf::GeometryType::MESH:
        add_mesh(shape, *geometry.MeshShape(), where, fixed);
        break;
      case sdf::GeometryType::HEIGHTMAP:
        if (!fixed) throw InputError(where + ": a heightmap belongs to a static model");
        add_heightmap(shape, *geometry.HeightmapShape(), where, X_LS);
        break;
      case sdf::GeometryType::EMPTY:
        return {};
      default:
        throw InputError(where +
                         ": this geometry has no counterpart (box, sphere, cylinder, capsule, "
                         "ellipsoid, plane, mesh, heightmap)");
    }
    set_pose(shape, X_LS);
    SdfSurface surface = read_sdf_surface(collision.Element(), where, context_, filter);
    surface.min_depth = min_depth;
    shape["material"] = material_name(surface);
    if (!filter.fdir1.isZero()) shape["fdir1"] = vec3_node(X_LS.q * filter.fdir1);
    if (filter.category != filter.collide) {
      context_.warn_once("sdf-category",
                         where +
                             ": category_bitmask differs from collide_bitmask: SDFormat "
                             "collides when either accepts the other, hybridsim when both do");
    }
    return shape;
  }

  // A mesh collides as its convex hull on a moving link, as its triangles on a static one.
  void add_mesh(YAML::Node shape, const sdf::Mesh& mesh, const std::string& where, bool fixed) {
    std::string searched;
    const std::string file = find_resource(mesh.Uri(), mesh.FilePath(), searched);
    if (file.empty()) {
      throw InputError(fmt::format("{}: the mesh '{}' is not found (searched: {})", where,
                                   mesh.Uri(), searched));
    }
    if (std::filesystem::path(file).extension() != ".obj") {
      throw InputError(
          fmt::format("{}: the mesh '{}': hybridsim reads OBJ meshes; convert it to "
                      "OBJ (e.g. with meshlab or assimp export)",
                      where, mesh.Uri()));
    }
    const Vec3 scale = vec3_of(mesh.Scale());
    if (scale.x() != scale.y() || scale.x() != scale.z()) {
      throw InputError(where + ": a mesh's scale must be the same along x, y and z");
    }
    if (!mesh.Submesh().empty()) {
      throw InputError(where + ": a submesh has no counterpart (the whole OBJ file is read)");
    }
    shape["type"] = fixed ? "mesh" : "convex";
    shape["mesh"] = context_.scene_path(file);
    if (scale.x() != 1.0) shape["scale"] = number_node(scale.x());
  }

  // A heightmap image with its extent, centred on the collision frame shifted by <pos>. Gazebo
  // raises the image's brightest pixel to <size>'s z (HeightmapShape's scale: z over the largest
  // gray level), where a scene's image raises the format's maximum gray: z grows by their ratio.
  // Both put the image's top row at +y/2 (Gazebo's ODE heightfield: image row 0 at depth 0,
  // turned +90 degrees about x).
  void add_heightmap(YAML::Node shape, const sdf::Heightmap& heightmap, const std::string& where,
                     ImportPose& X_LS) {
    std::string searched;
    const std::string file = find_resource(heightmap.Uri(), heightmap.FilePath(), searched);
    if (file.empty()) {
      throw InputError(fmt::format("{}: the heightmap '{}' is not found (searched: {})", where,
                                   heightmap.Uri(), searched));
    }
    shape["type"] = "heightmap";
    shape["image"] = context_.scene_path(file);
    Vec3 size = vec3_of(heightmap.Size());
    double brightest = 0.0;
    try {
      for (const auto& row : read_gray_image(file)) {
        for (const double level : row) brightest = std::max(brightest, level);
      }
    } catch (const InputError& error) {
      throw InputError(fmt::format("{}: {}", where, error.what()));
    }
    if (brightest > 0.0) size.z() /= brightest;
    shape["size"] = vec3_node(size);
    X_LS.p += X_LS.q * vec3_of(heightmap.Position());
  }

  // A file a geometry names: through the import's search (model://, package://, file://), or
  // relative to the SDF file that names it (an included model's own folder).
  std::string find_resource(const std::string& uri, const std::string& sdf_file,
                            std::string& searched) {
    if (uri.find("://") == std::string::npos && !sdf_file.empty() &&
        std::filesystem::path(uri).is_relative()) {
      const std::filesystem::path beside = std::filesystem::path(sdf_file).parent_path() / uri;
      if (std::filesystem::is_regular_file(beside)) return beside.lexically_normal().string();
    }
    return context_.find_file(uri, searched);
  }

  void read_joint(const sdf::Joint& joint, const std::string& prefix, const ImportPose& X_WM) {
    const std::string where = locate_sdf_element(joint.Element(), context_.source());
    std::string parent, child;
    sdf::Errors errors = joint.ResolveParentLink(parent);
    if (errors.empty()) errors = joint.ResolveChildLink(child);
    if (!errors.empty()) fail_with(errors, context_.source());
    YAML::Node node;
    node["name"] = prefix + joint.Name();
    switch (joint.Type()) {
      case sdf::JointType::REVOLUTE:
      case sdf::JointType::CONTINUOUS:
        node["type"] = "revolute";
        break;
      case sdf::JointType::PRISMATIC:
        node["type"] = "prismatic";
        break;
      case sdf::JointType::FIXED:
        node["type"] = "fixed";
        break;
      case sdf::JointType::BALL:
        node["type"] = "spherical";
        break;
      default:
        throw InputError(where +
                         ": this joint type has no counterpart (revolute, continuous, prismatic, "
                         "fixed, ball)");
    }
    if (parent == "world") {
      world_used_ = true;
      node["parent"] = "world";
    } else {
      node["parent"] = body_name(prefix, parent, where);
    }
    node["child"] = body_name(prefix, child, where);
    // The joint frame and its axis in the model's frame, then in world.
    ignition::math::Pose3d X_MJ;
    errors = joint.SemanticPose().Resolve(X_MJ, "__model__");
    if (!errors.empty()) fail_with(errors, context_.source());
    node["anchor"] = vec3_node(compose(X_WM, pose_of(X_MJ)).p);
    const sdf::JointAxis* axis = joint.Axis(0);
    if (axis != nullptr && joint.Type() != sdf::JointType::FIXED &&
        joint.Type() != sdf::JointType::BALL) {
      ignition::math::Vector3d axis_M;
      errors = axis->ResolveXyz(axis_M, "__model__");
      if (!errors.empty()) fail_with(errors, context_.source());
      node["axis"] = vec3_node(X_WM.q * vec3_of(axis_M));
      read_axis_dynamics(
          *axis,
          joint.Type() == sdf::JointType::REVOLUTE || joint.Type() == sdf::JointType::PRISMATIC,
          joint.Type() == sdf::JointType::REVOLUTE, node, where);
    }
    tree_["joints"].push_back(node);
  }

  // Damping and spring of an axis; what the joint model has no counterpart for is warned of.
  void read_axis_dynamics(const sdf::JointAxis& axis, bool limits, bool revolute, YAML::Node node,
                          const std::string& where) {
    if (axis.Damping() != 0.0) node["damping"] = number_node(axis.Damping());
    if (axis.SpringStiffness() != 0.0) {
      node["stiffness"] = number_node(axis.SpringStiffness());
      node["spring_reference"] = number_node(axis.SpringReference());
    }
    if (axis.Friction() != 0.0) node["friction"] = number_node(axis.Friction());
    // <limit>: its bounds with its own stiffness and dissipation (a continuous joint has none).
    if (limits) {
      YAML::Node limit = limit_node(axis.Lower(), axis.Upper(), axis.Stiffness(),
                                    axis.Dissipation(), revolute, where, context_);
      if (limit.IsMap()) node["limit"] = limit;
    }
  }

  std::string body_name(const std::string& prefix, const std::string& link,
                        const std::string& where) const {
    // libsdformat names a link of a nested model "inner::link" relative to the joint's model.
    const auto found = body_names_.find(prefix + link);
    if (found == body_names_.end()) {
      throw InputError(fmt::format("{}: no link '{}'", where, link));
    }
    return found->second;
  }

  // Child elements the reader has no counterpart for, once per element name.
  void warn_unread(const sdf::ElementPtr& element, std::initializer_list<const char*> names) {
    if (!element) return;
    for (const char* name : names) {
      if (!element->HasElement(name)) continue;
      const sdf::ElementPtr child = element->GetElement(name);
      if (!child->GetExplicitlySetInFile()) continue;
      context_.warn_once(std::string("sdf-element|") + name,
                         fmt::format("{}: <{}> is not read (no counterpart in hybridsim's model)",
                                     locate_sdf_element(child, context_.source()), name));
    }
  }

  std::string material_name(const SdfSurface& surface) {
    for (std::size_t i = 0; i < surfaces_.size(); ++i) {
      if (surfaces_[i].key() == surface.key()) return surface_material(i);
    }
    surfaces_.push_back(surface);
    return surface_material(surfaces_.size() - 1);
  }
  static std::string surface_material(std::size_t i) { return fmt::format("sdf_surface{}", i); }

  // A material per distinct surface (the elastic modulus and Poisson ratio it gives, else the
  // default material's) and a contact pair per two surfaces, by Gazebo's rules.
  void write_materials() {
    if (world_used_) {
      YAML::Node world;
      world["name"] = "world";
      world["fixed"] = true;
      tree_["bodies"].push_back(world);
    }
    for (std::size_t i = 0; i < surfaces_.size(); ++i) {
      const SdfSurface& surface = surfaces_[i];
      const bool own = surface.elastic_modulus > 0.0;
      YAML::Node node;
      node.SetStyle(YAML::EmitterStyle::Flow);
      node["density"] = number_node(density_);
      node["youngs_modulus"] = number_node(own ? surface.elastic_modulus : youngs_modulus_);
      node["poisson_ratio"] = number_node(own ? surface.poissons_ratio : poisson_ratio_);
      tree_["materials"][surface_material(i)] = node;
    }
    // The pairs of bodies that could touch (bitmasks aside): hybridsim's stick-slip friction
    // takes constraint rows for each, up to MultibodySystem::kMaxFrictionPatches.
    const std::size_t body_pairs =
        moving_colliders_ * (moving_colliders_ - 1) / 2 + moving_colliders_ * fixed_colliders_;
    const SdfFriction friction{friction_model_, body_pairs <= MultibodySystem::kMaxFrictionPatches,
                               body_pairs};
    for (std::size_t i = 0; i < surfaces_.size(); ++i) {
      for (std::size_t j = i; j < surfaces_.size(); ++j) {
        tree_["contact_materials"].push_back(sdf_contact_pair(surfaces_[i], surface_material(i),
                                                              surfaces_[j], surface_material(j),
                                                              friction, context_));
      }
    }
  }

  // Collision filters: written for every shape once any collision sets a bitmask (hybridsim's
  // defaults, group 1 and every mask bit, differ from SDFormat's 0xffff for both).
  void write_filters() {
    const bool any = std::any_of(filters_.begin(), filters_.end(), [](const ShapeFilter& entry) {
      return entry.filter.category != 0xffff || entry.filter.collide != 0xffff;
    });
    if (!any) return;
    // Through the tree itself: yaml-cpp's nodes must not be changed through handles kept from
    // before they joined it.
    for (const ShapeFilter& entry : filters_) {
      YAML::Node shape = tree_["bodies"][entry.body]["shapes"][entry.shape];
      shape["group"] = entry.filter.category;
      shape["mask"] = entry.filter.collide;
    }
  }

  ImportContext& context_;
  double density_ = 0.0, youngs_modulus_ = 0.0, poisson_ratio_ = 0.0;  // default material
  YAML::Node tree_;
  std::map<std::string, std::string> body_names_;  // scoped link name -> body
  // The file's poses in world (for the state): models by scope ("outer::inner::"), links by
  // scoped name, bodies by name.
  std::map<std::string, ImportPose> model_poses_, link_poses_, body_poses_;
  std::set<std::string> held_bodies_;  // bodies a state would turn a joint of: as in the file
  std::vector<SdfSurface> surfaces_;
  OdeFrictionModel friction_model_ = OdeFrictionModel::pyramid;
  std::size_t moving_colliders_ = 0, fixed_colliders_ = 0;  // bodies with collision shapes
  struct ShapeFilter {
    std::size_t body = 0, shape = 0;  // indices in the tree's bodies and the body's shapes
    SdfShapeFilter filter;
  };
  std::vector<ShapeFilter> filters_;
  bool world_used_ = false;
};

}  // namespace

YAML::Node read_sdf(const std::string& text, ImportContext& context) {
  // libsdformat's console and parser state are process-wide: one import at a time.
  static std::mutex parser_mutex;
  const std::lock_guard<std::mutex> lock(parser_mutex);
  sdf::Console::Instance()->SetQuiet(true);
  sdf::ParserConfig config;
  std::string joined;
  for (const std::string& directory : resource_directories(context.options())) {
    joined += (joined.empty() ? "" : ":") + directory;
  }
  if (!joined.empty()) config.AddURIPath("model://", joined);
  sdf::Root root;
  const bool file = std::filesystem::is_regular_file(context.source());
  sdf::Errors errors;
  {
    const CapturedConsole quiet;  // libsdformat's URDF parser would print to the console
    try {
      errors = file ? root.Load(context.source(), config) : root.LoadSdfString(text, config);
    } catch (const std::exception& error) {
      throw InputError(
          fmt::format("{}: libsdformat cannot read it: {}", context.source(), error.what()));
    }
  }
  if (!errors.empty()) fail_with(errors, context.source());
  return SdfReader(context).read(root, text);
}

}  // namespace hybridsim
