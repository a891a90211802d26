#include "tools/check_command.hpp"

#include <algorithm>
#include <iostream>
#include <map>
#include <set>
#include <tuple>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "collision/triangle_surface.hpp"
#include "core/errors.hpp"
#include "models/multibody_system.hpp"
#include "models/scene_loader.hpp"

namespace hybridsim {
namespace {

using nlohmann::json;

json vec3(const Vec3& v) {
  return json::array({v.x(), v.y(), v.z()});
}

// The dimensions of a shape as the scene format names them.
json shape_geometry(const Shape& s) {
  switch (s.type) {
    case ShapeType::sphere:
      return {{"radius", s.radius}};
    case ShapeType::box:
      return {{"size", vec3(2.0 * s.half_extents)}};
    case ShapeType::halfspace:
      return {{"normal", vec3(s.normal_S)}, {"offset", s.offset}};
    case ShapeType::capsule:
    case ShapeType::cylinder:
      return {{"radius", s.radius}, {"length", s.length}};
    case ShapeType::cone:
      return {{"radius", s.radius}, {"top_radius", s.top_radius}, {"length", s.length}};
    case ShapeType::ellipsoid:
      return {{"radii", vec3(s.radii)}};
    case ShapeType::convex:
      return {{"vertices", s.hull ? s.hull->vertices_S.size() : 0}};
    case ShapeType::mesh:
    case ShapeType::heightmap:
      return {{"triangles", s.surface ? s.surface->triangles.size() : 0}};
  }
  return json::object();
}

json body_json(const Model& model, const Body& body) {
  json b;
  b["name"] = body.name;
  b["kind"] = body.fixed ? "fixed" : body.prescribed ? "prescribed" : "free";
  b["position"] = vec3(body.p_WB);
  b["orientation"] = json::array({body.q_WB.w(), body.q_WB.x(), body.q_WB.y(), body.q_WB.z()});
  if (!body.fixed) {
    b["mass"] = body.mass;
    b["center_of_mass"] = vec3(body.p_BCom_B);
    const Mat3& I = body.inertia_com_B;
    b["inertia"] = json::array({I(0, 0), I(1, 1), I(2, 2), I(0, 1), I(0, 2), I(1, 2)});
  }
  b["shapes"] = json::array();
  for (int index : body.shapes) {
    const Shape& s = model.shapes[static_cast<std::size_t>(index)];
    json shape = {{"name", s.name},
                  {"type", to_string(s.type)},
                  {"geometry", shape_geometry(s)},
                  {"material", model.materials[static_cast<std::size_t>(s.material)].name},
                  {"collision", s.collision}};
    // The shape frame in the body frame (JSON only: for tools that draw the scene).
    const Quat q_BS(s.X_BS.rotation);
    shape["position"] = vec3(s.X_BS.translation);
    shape["orientation"] = json::array({q_BS.w(), q_BS.x(), q_BS.y(), q_BS.z()});
    if (s.type == ShapeType::convex && s.hull) {
      shape["hull_vertices"] = json::array();  // shape frame, m
      for (const Vec3& v : s.hull->vertices_S) shape["hull_vertices"].push_back(vec3(v));
    }
    if (s.contact_material != s.material) {
      shape["contact_material"] =
          model.materials[static_cast<std::size_t>(s.contact_material)].name;
    }
    b["shapes"].push_back(shape);
  }
  return b;
}

json contact_material_json(const ContactMaterial& cm) {
  json c = {{"pair", {cm.material_a, cm.material_b}},
            {"from", cm.origin},
            {"normal_law", std::string(to_string(cm.normal_law))},
            {"restitution", cm.restitution}};
  if (cm.normal_law == NormalLaw::elastic) {
    c["damping_model"] = std::string(to_string(cm.damping_model));
  }
  if (cm.normal_law == NormalLaw::hunt_crossley) c["exponent"] = cm.exponent;
  if (cm.normal_law == NormalLaw::linear) {
    c["kp"] = cm.kp;
    c["kd"] = cm.kd;
    if (cm.min_depth > 0.0) c["min_depth"] = cm.min_depth;
    if (cm.max_vel < kInfinity) {
      c["max_vel"] = cm.max_vel;
      c["max_vel_step"] = cm.max_vel_step;
    }
  }
  const FrictionParameters& f = cm.friction;
  json friction = {{"model", std::string(to_string(f.model))}};
  if (f.model != FrictionModel::none) {
    friction["mu_kinetic"] = f.mu_kinetic;
    if (f.model == FrictionModel::stribeck) friction["mu_static"] = f.mu_static;
    if (f.model == FrictionModel::regularized_coulomb) friction["v_small"] = f.v_small;
    friction["cone"] = f.cone;
  }
  c["friction"] = friction;
  if (cm.rolling_resistance > 0.0) c["rolling_resistance"] = cm.rolling_resistance;
  if (cm.rolling_lever > 0.0) c["rolling_lever"] = cm.rolling_lever;
  if (cm.torsional_friction > 0.0) c["torsional_friction"] = cm.torsional_friction;
  if (cm.torsional_patch_radius > 0.0) c["torsional_patch_radius"] = cm.torsional_patch_radius;
  if (cm.torsional_surface_radius > 0.0) {
    c["torsional_surface_radius"] = cm.torsional_surface_radius;
  }
  if (cm.observer) c["observer"] = true;
  return c;
}

// The contact-material entries some pair of shapes that may touch uses. Shapes are grouped by
// what decides it apart from their bodies (contact material, filters, fixed or not), so that a
// pile of a thousand spheres is a handful of comparisons.
std::set<int> contact_materials_in_use(const Model& model) {
  using Key = std::tuple<int, std::uint32_t, std::uint32_t, bool>;
  std::map<Key, int> members;  // per class: its number of shapes
  for (std::size_t i = 0; i < model.shapes.size(); ++i) {
    const Shape& s = model.shapes[i];
    if (!s.collision) continue;
    const Body& body = model.bodies[static_cast<std::size_t>(s.body)];
    ++members[Key{s.contact_material, s.collision_group, s.collision_mask,
                  body.fixed || body.prescribed}];
  }
  std::set<int> used;
  for (const auto& [key_a, count_a] : members) {
    for (const auto& [key_b, count_b] : members) {
      if (key_a == key_b && count_a < 2) continue;  // a lone shape does not touch itself
      const auto& [material_a, group_a, mask_a, immovable_a] = key_a;
      const auto& [material_b, group_b, mask_b, immovable_b] = key_b;
      if (immovable_a && immovable_b) continue;
      if ((group_a & mask_b) == 0 || (group_b & mask_a) == 0) continue;
      const int index = model.find_contact_material(material_a, material_b);
      if (index >= 0) used.insert(index);
    }
  }
  return used;
}

json check_json(const Model& model, double overlap, std::vector<std::string>& warnings) {
  json out;
  out["scene"] = model.name;
  out["source"] = model.source;
  out["gravity"] = vec3(model.gravity_W);
  const SimulationSettings& sim = model.simulation;
  out["simulation"] = {{"integrator", sim.integrator},
                       {"stop_time", sim.stop_time},
                       {"rtol", sim.rtol},
                       {"atol", sim.atol.value_or(default_absolute_tolerance(sim.rtol))},
                       {"output_interval", sim.output_interval}};
  out["contact_eps"] = model.contact.contact_eps;
  out["bodies"] = json::array();
  for (const Body& body : model.bodies) out["bodies"].push_back(body_json(model, body));
  out["contact_materials"] = json::array();
  for (int index : contact_materials_in_use(model)) {
    out["contact_materials"].push_back(
        contact_material_json(model.contact_materials[static_cast<std::size_t>(index)]));
  }
  out["joints"] = json::array();
  for (const Joint& joint : model.joints) {
    json j = {{"name", joint.name},
              {"type", to_string(joint.type)},
              {"parent", model.bodies[static_cast<std::size_t>(joint.parent)].name},
              {"child", model.bodies[static_cast<std::size_t>(joint.child)].name}};
    if (joint.servo.mode != JointServo::Mode::none) {
      j["servo"] = joint.servo.mode == JointServo::Mode::velocity
                       ? (joint.servo.ideal ? "ideal velocity" : "velocity")
                       : "position";
    }
    out["joints"].push_back(j);
  }
  out["wheels"] = json::array();
  for (const Wheel& wheel : model.wheels) {
    out["wheels"].push_back({{"name", wheel.name},
                             {"body", model.bodies[static_cast<std::size_t>(wheel.body)].name},
                             {"radius", wheel.radius},
                             {"shapes", wheel.shapes.size()},
                             {"slip_compliance", wheel.slip_compliance}});
  }
  out["bilateral_contacts"] = json::array();
  for (const BilateralContact& contact : model.bilateral_contacts) {
    json directions = json::array();
    const char* names[] = {"x", "y", "z", "rx", "ry", "rz"};
    for (std::size_t k = 0; k < 6; ++k) {
      if (contact.directions[k]) directions.push_back(names[k]);
    }
    const auto trigger = [](BilateralContact::Trigger kind, double time) {
      return kind == BilateralContact::Trigger::time ? json{{"time", time}} : json(to_string(kind));
    };
    out["bilateral_contacts"].push_back(
        {{"name", contact.name},
         {"bodies",
          {model.bodies[static_cast<std::size_t>(contact.body_a)].name,
           model.bodies[static_cast<std::size_t>(contact.body_b)].name}},
         {"directions", directions},
         {"on", trigger(contact.on, contact.on_time)},
         {"off", trigger(contact.off, contact.off_time)}});
  }
  // The contacts at the start: the system's own initialisation, as a run begins.
  MultibodySystem system(model);
  VectorX x(model.state_size);
  system.initial_state(x);
  system.initialize(0.0, x);
  out["initial_contacts"] = json::array();
  for (const ContactResult& r : system.compute_contact_results(x)) {
    // The law's penetration is -(distance + eps); the overlap is the geometry's -distance.
    const double depth = r.penetration + model.contact.contact_eps;
    out["initial_contacts"].push_back(
        {{"shapes", {model.shape_label(r.shape_a), model.shape_label(r.shape_b)}},
         {"depth", depth},
         {"normal_force", r.normal_force}});
    if (depth > overlap) {
      warnings.push_back(fmt::format(
          "initial_overlap: {} and {} overlap by {:.4g} m at the start (more than {:.3g} m): the "
          "contact law pushes them apart with {:.4g} N at once",
          model.shape_label(r.shape_a), model.shape_label(r.shape_b), depth, overlap,
          r.normal_force));
    }
  }
  for (const Model::LoadWarning& warning : model.warnings) {
    warnings.push_back(fmt::format("{}: {}", warning.kind, warning.message));
  }
  out["warnings"] = warnings;
  return out;
}

void print_text(const json& out) {
  std::cout << fmt::format("scene {} ({})\n", out["scene"].get<std::string>(),
                           out["source"].get<std::string>());
  const json& sim = out["simulation"];
  std::cout << fmt::format("  {}, stop {} s, rtol {}, atol {}, outputs every {} s; gravity {}\n",
                           sim["integrator"].get<std::string>(), sim["stop_time"].dump(),
                           sim["rtol"].dump(), sim["atol"].dump(), sim["output_interval"].dump(),
                           out["gravity"].dump());
  std::cout << "bodies\n";
  for (const json& b : out["bodies"]) {
    std::cout << fmt::format("  {} ({}) at {}", b["name"].get<std::string>(),
                             b["kind"].get<std::string>(), b["position"].dump());
    if (b.contains("mass")) {
      std::cout << fmt::format(
          ": mass {} kg, centre of mass {}, inertia [Ixx, Iyy, Izz, Ixy, "
          "Ixz, Iyz] {}",
          b["mass"].dump(), b["center_of_mass"].dump(), b["inertia"].dump());
    }
    std::cout << '\n';
    for (const json& s : b["shapes"]) {
      std::cout << fmt::format("    {}: {} {} {}{}\n", s["name"].get<std::string>(),
                               s["type"].get<std::string>(), s["geometry"].dump(),
                               s["material"].get<std::string>(),
                               s["collision"].get<bool>() ? "" : " (no collision)");
    }
  }
  std::cout << "contact materials in use\n";
  for (const json& c : out["contact_materials"]) {
    json law = c;
    law.erase("pair");
    law.erase("from");
    std::cout << fmt::format("  [{}, {}]: {}\n    from {}\n", c["pair"][0].get<std::string>(),
                             c["pair"][1].get<std::string>(), law.dump(),
                             c["from"].get<std::string>());
  }
  for (const char* section : {"joints", "wheels", "bilateral_contacts"}) {
    if (out[section].empty()) continue;
    std::cout << section << '\n';
    for (const json& item : out[section]) std::cout << "  " << item.dump() << '\n';
  }
  std::cout << fmt::format("initial contacts: {}\n", out["initial_contacts"].size());
  for (const json& c : out["initial_contacts"]) {
    std::cout << fmt::format("  {} - {}: depth {:.4g} m, normal force {:.4g} N\n",
                             c["shapes"][0].get<std::string>(), c["shapes"][1].get<std::string>(),
                             c["depth"].get<double>(), c["normal_force"].get<double>());
  }
  std::cout << fmt::format("warnings: {}\n", out["warnings"].size());
  for (const json& w : out["warnings"]) std::cout << "  " << w.get<std::string>() << '\n';
}

}  // namespace

int check_command(const CheckCommandOptions& options) {
  Model model;
  try {
    model = load_scene_file(options.scene, options.overrides, options.import);
  } catch (const std::exception& error) {
    std::cerr << "hybridsim check: " << error.what() << '\n';
    return 2;
  }
  std::vector<std::string> warnings;
  json out;
  try {
    out = check_json(model, options.overlap, warnings);
  } catch (const std::exception& error) {
    std::cerr << "hybridsim check: " << error.what() << '\n';
    return 2;
  }
  if (options.json) {
    std::cout << out.dump(2) << '\n';
  } else {
    print_text(out);
  }
  return options.strict && !warnings.empty() ? 1 : 0;
}

}  // namespace hybridsim
