#include "models/contact_material_reader.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <tuple>
#include <vector>

#include <fmt/format.h>

#include "collision/signed_distance.hpp"
#include "collision/terrain_contact.hpp"
#include "core/contact_law.hpp"
#include "core/errors.hpp"

namespace hybridsim {

// Solid materials of the scene; one named like a palette material replaces it.
void read_materials(MapReader& root, Model& model) {
  if (!root.has("materials")) {
    root.get("materials");
    return;
  }
  MapReader materials(root.get("materials"), "materials", root.source());
  if (!root.get("materials").IsMap()) root.fail("materials", "must be a map of names to materials");
  for (const auto& entry : root.get("materials")) {
    Material material;
    if (!entry.first.IsScalar()) {
      throw_yaml_error(root.source(), entry.first, "materials", "a material name must be a string");
    }
    material.name = entry.first.Scalar();
    MapReader reader(entry.second, materials.path_of(material.name), root.source());
    materials.get(material.name);
    material.density = reader.required_positive("density");
    material.youngs_modulus = reader.required_positive("youngs_modulus");
    material.poisson_ratio = reader.required_number("poisson_ratio");
    if (!(material.poisson_ratio > -1.0 && material.poisson_ratio < 0.5)) {
      reader.fail("poisson_ratio", "must lie in (-1, 0.5)");
    }
    if (reader.has("hunt_crossley_stiffness")) {
      material.hunt_crossley_stiffness = reader.positive("hunt_crossley_stiffness", 1.0);
    }
    if (reader.has("hunt_crossley_dissipation")) {
      material.hunt_crossley_dissipation = reader.non_negative("hunt_crossley_dissipation", 0.0);
    }
    reader.reject_unknown_keys();
    const int existing = model.find_material(material.name);
    if (existing >= 0) {
      model.materials[existing] = material;
    } else {
      model.materials.push_back(material);
    }
  }
}

namespace {

// What ODE's max_vel cap needs of a linear pair that has one: the cap is a damper's force,
// (kd + max_vel_step kp)(max_vel + δ̇), so a damper; and it bounds a force that only pushes, so
// the clamp. Checked where a pair is read and where one is combined from self pairs.
enum class MaxVelNeed { nothing, damper, clamp };

MaxVelNeed missing_for_max_vel(const ContactMaterial& cm) {
  if (cm.max_vel == kInfinity) return MaxVelNeed::nothing;
  if (!(cm.kd + cm.max_vel_step * cm.kp > 0.0)) return MaxVelNeed::damper;
  return cm.clamp ? MaxVelNeed::nothing : MaxVelNeed::clamp;
}

const char* describe(MaxVelNeed need) {
  return need == MaxVelNeed::damper
             ? "max_vel needs a damper to act through: kd or max_vel_step above 0"
             : "max_vel caps a force that does not pull: keep clamp true";
}

// A contact pair's `friction` map; no map means no friction.
FrictionParameters read_friction(MapReader& parent) {
  FrictionParameters friction;
  if (!parent.has("friction")) {
    parent.get("friction");
    friction.model = FrictionModel::none;
    return friction;
  }
  MapReader reader(parent.get("friction"), parent.path_of("friction"), parent.source());
  const std::string model =
      reader.choice("model", "regularized_coulomb",
                    {"regularized_coulomb", "stribeck", "slip_compliance", "stick_slip", "none"});
  for (FrictionModel candidate :
       {FrictionModel::none, FrictionModel::regularized_coulomb, FrictionModel::stribeck,
        FrictionModel::slip_compliance, FrictionModel::stick_slip}) {
    if (to_string(candidate) == model) friction.model = candidate;
  }
  friction.mu_kinetic = reader.non_negative("mu_kinetic", 0.0);
  friction.mu2 = reader.has("mu2") ? reader.non_negative("mu2", 0.0) : -1.0;
  friction.v_small = reader.positive("v_small", 0.01);
  friction.stiction_tolerance = reader.positive("stiction_tolerance", 1e-4);
  friction.mu_static = reader.non_negative("mu_static", friction.mu_kinetic);
  const bool static_coefficient =
      friction.model == FrictionModel::stribeck || friction.model == FrictionModel::stick_slip;
  if (static_coefficient && friction.mu_static < friction.mu_kinetic) {
    reader.fail("mu_static", fmt::format("must not be below mu_kinetic = {}", friction.mu_kinetic));
  }
  if (friction.model == FrictionModel::slip_compliance) {
    reader.require("slip_compliance");
    const YAML::Node value = reader.get("slip_compliance");
    const std::string path = reader.path_of("slip_compliance");
    if (value.IsSequence() && value.size() == 2) {
      for (int i = 0; i < 2; ++i) {
        friction.slip_compliance[i] = read_yaml_number(parent.source(), value[i], path);
      }
    } else {
      friction.slip_compliance.setConstant(read_yaml_number(parent.source(), value, path));
    }
    if (!(friction.slip_compliance.minCoeff() > 0.0)) {
      reader.fail("slip_compliance", "must be positive (m/s/N), a number or [c1, c2]");
    }
  } else if (reader.has("slip_compliance")) {
    reader.fail("slip_compliance", "belongs to model: slip_compliance");
  }
  if (friction.model == FrictionModel::stick_slip) {
    // A stick-slip contact is isotropic (one coefficient pair); it sticks by translation and,
    // with torsional_stick, by its spin about the normal, with rolling_stick by its rolling.
    if (friction.mu2 >= 0.0) reader.fail("mu2", "model stick_slip is isotropic (no mu2)");
    if (!reader.boolean("cone", true)) reader.fail("cone", "model stick_slip is a cone");
    friction.torsional_stick = reader.boolean("torsional_stick", false);
    friction.rolling_stick = reader.boolean("rolling_stick", false);
  } else {
    for (const char* key : {"torsional_stick", "rolling_stick"}) {
      if (reader.has(key)) reader.fail(key, "belongs to model: stick_slip");
    }
  }
  friction.cone = reader.boolean("cone", true);
  friction.scale_by_contact_count = reader.boolean("scale_by_contact_count", false);
  if (friction.scale_by_contact_count && friction.model != FrictionModel::slip_compliance) {
    reader.fail("scale_by_contact_count", "belongs to model: slip_compliance");
  }
  reader.reject_unknown_keys();
  return friction;
}

}  // namespace

// Contact pairs of the scene; a pair the palette has too replaces the palette's.
void read_contact_materials(MapReader& root, Model& model) {
  const YAML::Node list = root.sequence("contact_materials");
  const std::size_t first_scene_pair = model.contact_materials.size();
  for (std::size_t i = 0; i < list.size(); ++i) {
    MapReader pair_reader(list[i], indexed("contact_materials", i), root.source());
    ContactMaterial cm;
    const YAML::Node pair = pair_reader.get("pair");
    if (!pair.IsSequence() || pair.size() != 2 || !pair[0].IsScalar() || !pair[1].IsScalar()) {
      pair_reader.fail("pair", "must be a list of two material names");
    }
    cm.material_a = pair[0].Scalar();
    cm.material_b = pair[1].Scalar();
    // Messages name the pair: contact_materials[i: A, B].key
    MapReader reader(list[i],
                     fmt::format("contact_materials[{}: {}, {}]", i, cm.material_a, cm.material_b),
                     root.source());
    reader.get("pair");
    for (const std::string& name : {cm.material_a, cm.material_b}) {
      if (model.find_material(name) < 0) {
        throw_yaml_error(root.source(), pair, reader.path_of("pair"),
                         fmt::format("unknown material '{}'", name));
      }
    }
    for (std::size_t k = first_scene_pair; k < model.contact_materials.size(); ++k) {
      const ContactMaterial& other = model.contact_materials[k];
      if ((other.material_a == cm.material_a && other.material_b == cm.material_b) ||
          (other.material_a == cm.material_b && other.material_b == cm.material_a)) {
        reader.fail("pair",
                    fmt::format("duplicate of contact_materials[{}]", k - first_scene_pair));
      }
    }
    cm.restitution = reader.number("restitution", 1.0);
    if (!(cm.restitution >= 0.0 && cm.restitution <= 1.0)) {
      reader.fail("restitution", "must lie in [0, 1]");
    }
    const std::string law =
        reader.choice("normal_law", "elastic", {"elastic", "hunt_crossley", "linear"});
    cm.normal_law = law == "elastic"         ? NormalLaw::elastic
                    : law == "hunt_crossley" ? NormalLaw::hunt_crossley
                                             : NormalLaw::linear;
    cm.exponent = reader.positive("exponent", 1.0);
    if (cm.normal_law == NormalLaw::linear) {
      cm.kp = reader.required_positive("kp");
      cm.kd = reader.non_negative("kd", 0.0);
      // ODE's penetration correction (Gazebo's //contact/ode/min_depth and max_vel).
      cm.min_depth = reader.non_negative("min_depth", 0.0);
      cm.max_vel = reader.non_negative("max_vel", kInfinity);
      cm.max_vel_step = reader.non_negative("max_vel_step", 0.0);
      if (cm.max_vel == kInfinity && reader.has("max_vel_step")) {
        reader.fail("max_vel_step", "belongs to max_vel");
      }
    } else {
      for (const char* key : {"kp", "kd", "min_depth", "max_vel", "max_vel_step"}) {
        if (reader.has(key)) reader.fail(key, "belongs to normal_law: linear");
      }
    }
    if (cm.normal_law != NormalLaw::hunt_crossley && reader.has("exponent")) {
      reader.fail("exponent", "belongs to normal_law: hunt_crossley");
    }
    cm.observer = reader.boolean("observer", false);
    const std::string damping =
        reader.choice("damping_model", "exact",
                      {"exact", "flores", "hunt_crossley", "lankarani_nikravesh", "gonthier"});
    for (DampingModel candidate :
         {DampingModel::exact, DampingModel::flores, DampingModel::hunt_crossley,
          DampingModel::lankarani_nikravesh, DampingModel::gonthier}) {
      if (to_string(candidate) == damping) cm.damping_model = candidate;
    }
    cm.v_small = reader.positive("v_small", 0.01);
    cm.clamp = reader.boolean("clamp", true);
    if (const MaxVelNeed need = missing_for_max_vel(cm); need != MaxVelNeed::nothing) {
      reader.fail(need == MaxVelNeed::damper ? "max_vel" : "clamp", describe(need));
    }
    cm.friction = read_friction(reader);
    cm.rolling_resistance = reader.non_negative("rolling_resistance", 0.0);
    cm.rolling_lever = reader.non_negative("rolling_lever", 0.0);
    cm.torsional_friction = reader.non_negative("torsional_friction", 0.0);
    cm.torsional_patch_radius = reader.non_negative("torsional_patch_radius", 0.0);
    cm.torsional_surface_radius = reader.non_negative("torsional_surface_radius", 0.0);
    if (cm.torsional_patch_radius > 0.0 && cm.torsional_surface_radius > 0.0) {
      reader.fail("torsional_surface_radius",
                  "give torsional_patch_radius or torsional_surface_radius, not both");
    }
    cm.w_small = reader.positive("w_small", 0.01);
    cm.merged_rolling_torque = reader.boolean("merged_rolling_torque", false);
    if (cm.friction.torsional_stick && !(cm.torsional_friction > 0.0)) {
      reader.fail("torsional_friction",
                  "must be positive with friction.torsional_stick (it gives the spin's limit)");
    }
    if (cm.friction.rolling_stick && !(cm.rolling_resistance > 0.0)) {
      reader.fail("rolling_resistance",
                  "must be positive with friction.rolling_stick (it gives the rolling's limit)");
    }
    if (cm.merged_rolling_torque && cm.friction.rolling_stick) {
      reader.fail("merged_rolling_torque",
                  "does not combine with friction.rolling_stick (the merged torque acts on the "
                  "rolling that the stick holds)");
    }
    if (cm.merged_rolling_torque && cm.friction.torsional_stick) {
      reader.fail("merged_rolling_torque",
                  "does not combine with friction.torsional_stick (the merged torque acts on the "
                  "spin that the stick holds)");
    }
    cm.exact_alpha = exact_damping_alpha(cm.restitution);
    cm.origin = fmt::format("{}, contact_materials[{}]", root.source().file, i);
    reader.reject_unknown_keys();
    const int existing = model.find_contact_material(model.find_material(cm.material_a),
                                                     model.find_material(cm.material_b));
    if (existing >= 0 && static_cast<std::size_t>(existing) < first_scene_pair) {
      model.contact_materials[existing] = cm;  // overrides the palette's pair
    } else {
      model.contact_materials.push_back(cm);
    }
  }
}

namespace {

// The fallback for a missing pair [A, B]: combine the self pairs [A, A] and [B, B] when both
// exist and agree on the laws (docs/scene-format.md): geometric means of restitution and of the
// coefficients, compliances and linear-law springs in series, the larger regularisation speeds.
std::optional<ContactMaterial> combine_self_pairs(const Model& model, int a, int b) {
  const int index_a = model.find_contact_material(a, a);
  const int index_b = model.find_contact_material(b, b);
  if (index_a < 0 || index_b < 0) return std::nullopt;
  const ContactMaterial& A = model.contact_materials[index_a];
  const ContactMaterial& B = model.contact_materials[index_b];
  if (A.normal_law != B.normal_law || A.damping_model != B.damping_model ||
      A.friction.model != B.friction.model || A.friction.cone != B.friction.cone ||
      A.exponent != B.exponent || A.rolling_lever != B.rolling_lever) {
    // A rolling lever makes mu_r a length ratio of another kind: means of the two mean nothing.
    return std::nullopt;
  }
  const auto mean = [](double x, double y) { return std::sqrt(x * y); };
  const auto series = [](double x, double y) { return x + y > 0.0 ? x * y / (x + y) : 0.0; };
  // Friction coefficients: geometric, or Drake's harmonic mean (CalcContactFrictionFromSurface-
  // Properties: 2 mu1 mu2 / (mu1 + mu2)), which lies nearer the smaller coefficient.
  const bool harmonic = model.contact.friction_combination == FrictionCombination::harmonic;
  const auto friction_mean = [&](double x, double y) {
    return harmonic ? 2.0 * series(x, y) : mean(x, y);
  };
  ContactMaterial cm = A;
  cm.material_a = model.materials[a].name;
  cm.material_b = model.materials[b].name;
  cm.restitution = mean(A.restitution, B.restitution);
  cm.exact_alpha = exact_damping_alpha(cm.restitution);
  cm.v_small = std::max(A.v_small, B.v_small);
  cm.clamp = A.clamp && B.clamp;
  cm.observer = A.observer || B.observer;
  cm.kp = series(A.kp, B.kp);
  cm.kd = series(A.kd, B.kd);
  // ODE's rule for two bodies: the smaller min_depth and max_vel.
  cm.min_depth = std::min(A.min_depth, B.min_depth);
  cm.max_vel = std::min(A.max_vel, B.max_vel);
  cm.max_vel_step = std::max(A.max_vel_step, B.max_vel_step);
  cm.friction.mu_kinetic = friction_mean(A.friction.mu_kinetic, B.friction.mu_kinetic);
  cm.friction.mu_static = friction_mean(A.friction.mu_static, B.friction.mu_static);
  cm.friction.mu2 = A.friction.mu2 < 0.0 && B.friction.mu2 < 0.0
                        ? -1.0
                        : friction_mean(A.friction.mu_second(), B.friction.mu_second());
  cm.friction.v_small = std::max(A.friction.v_small, B.friction.v_small);
  cm.friction.stiction_tolerance =
      std::max(A.friction.stiction_tolerance, B.friction.stiction_tolerance);
  cm.friction.slip_compliance = A.friction.slip_compliance + B.friction.slip_compliance;
  cm.rolling_resistance = mean(A.rolling_resistance, B.rolling_resistance);
  cm.torsional_friction = mean(A.torsional_friction, B.torsional_friction);
  // Gazebo's rules: the larger patch, the surfaces' curvatures added.
  cm.torsional_patch_radius = std::max(A.torsional_patch_radius, B.torsional_patch_radius);
  const auto curvature = [](double radius) { return radius > 0.0 ? 1.0 / radius : 0.0; };
  const double curvature_sum =
      curvature(A.torsional_surface_radius) + curvature(B.torsional_surface_radius);
  cm.torsional_surface_radius = curvature_sum > 0.0 ? 1.0 / curvature_sum : 0.0;
  cm.w_small = std::max(A.w_small, B.w_small);
  cm.origin = fmt::format(
      "fallback: the self pairs [{0}, {0}] and [{1}, {1}] combined (geometric means of "
      "restitution and coefficients{2}, compliances and springs in series, the larger speeds)",
      cm.material_a, cm.material_b,
      harmonic ? ", harmonic means of the friction coefficients" : "");
  return cm;
}

// A pair that may collide needs a supported geometry and a contact material (its own, or the
// fallback combination, added to the model here), and the parameters its law asks for.
void check_collision_pair(Model& model, std::size_t a, std::size_t b) {
  const Shape& sa = model.shapes[a];
  const Shape& sb = model.shapes[b];
  const auto pair_label = [&] {
    return fmt::format("{} and {}", model.shape_label(static_cast<int>(a)),
                       model.shape_label(static_cast<int>(b)));
  };
  if (!is_supported_shape_pair(sa.type, sb.type)) {
    throw NotSupportedError(
        fmt::format("{}: shapes {}: this shape pair is not supported yet (set collision: false "
                    "on one, or keep them apart with group / mask)",
                    model.source, pair_label()));
  }
  if (!touches_terrain_shapes(sa, sb)) {
    throw NotSupportedError(fmt::format(
        "{}: shapes {}: a mesh on a free body meets terrain (a fixed or prescribed mesh, a "
        "heightmap) with its vertices; two meshes on free bodies are not supported yet (set "
        "collision: false on one, or keep them apart with group / mask)",
        model.source, pair_label()));
  }
  const std::string& name_a = model.materials[sa.contact_material].name;
  const std::string& name_b = model.materials[sb.contact_material].name;
  int index = model.find_contact_material(sa.contact_material, sb.contact_material);
  if (index < 0) {
    const auto combined = combine_self_pairs(model, sa.contact_material, sb.contact_material);
    if (!combined) {
      throw InputError(fmt::format(
          "{}: key 'contact_materials': no entry for the pair [{}, {}] (needed by shapes "
          "{}), and no self pairs [{}, {}] and [{}, {}] with the same laws to combine",
          model.source, name_a, name_b, pair_label(), name_a, name_a, name_b, name_b));
    }
    if (const MaxVelNeed need = missing_for_max_vel(*combined); need != MaxVelNeed::nothing) {
      throw InputError(fmt::format(
          "{}: key 'contact_materials': the pair [{}, {}] combined from its self pairs: {}: "
          "give the pair its own entry",
          model.source, name_a, name_b, describe(need)));
    }
    model.contact_materials.push_back(*combined);
    index = static_cast<int>(model.contact_materials.size()) - 1;
  }
  if (model.contact_materials[index].normal_law != NormalLaw::hunt_crossley) return;
  for (const Shape* shape : {&sa, &sb}) {
    const Material& m = model.materials[shape->contact_material];
    for (const auto& [own, fallback, key] :
         {std::tuple{shape->hunt_crossley_stiffness, m.hunt_crossley_stiffness,
                     "hunt_crossley_stiffness"},
          std::tuple{shape->hunt_crossley_dissipation, m.hunt_crossley_dissipation,
                     "hunt_crossley_dissipation"}}) {
      if (std::isnan(own) && std::isnan(fallback)) {
        throw InputError(fmt::format(
            "{}: contact pair [{}, {}] uses normal_law hunt_crossley: give {} on material "
            "'{}' or on shape {}",
            model.source, name_a, name_b, key, m.name,
            model.shape_label(static_cast<int>(shape == &sa ? a : b))));
      }
    }
  }
}

}  // namespace

void apply_penetration_allowance(Model& model) {
  const double allowance = model.contact.penetration_allowance;
  if (std::isnan(allowance)) return;
  double mass = 0.0;
  for (const Body& body : model.bodies) {
    if (!body.fixed && !body.prescribed) mass = std::max(mass, body.mass);  // Drake: dynamics
  }
  const double g = model.gravity_W.norm() > 0.0 ? model.gravity_W.norm() : 9.81;
  const double stiffness = mass * g / allowance;       // the pair's, two geometries in series
  const double time_scale = std::sqrt(allowance / g);  // 1 / omega, omega = sqrt(k / m)
  // Whether it fills a value that a shape in contact could use.
  std::vector<char> touching(model.materials.size(), 0);
  for (const Shape& shape : model.shapes) {
    if (shape.collision) touching[static_cast<std::size_t>(shape.contact_material)] = 1;
  }
  bool filled = false;
  for (std::size_t m = 0; m < model.materials.size(); ++m) {
    Material& material = model.materials[m];
    const bool missing = std::isnan(material.hunt_crossley_stiffness) ||
                         std::isnan(material.hunt_crossley_dissipation);
    filled = filled || (missing && touching[m] != 0);
    if (std::isnan(material.hunt_crossley_stiffness)) {
      material.hunt_crossley_stiffness = 2.0 * stiffness;
    }
    if (std::isnan(material.hunt_crossley_dissipation)) {
      material.hunt_crossley_dissipation = time_scale / allowance;  // damping ratio 1
    }
  }
  // The allowance sets Hunt-Crossley parameters only: said when no pair has that law or every
  // material gives its own (Drake applies it to point contact; here the law must ask for it).
  const bool hunt_crossley = std::any_of(
      model.contact_materials.begin(), model.contact_materials.end(),
      [](const ContactMaterial& cm) { return cm.normal_law == NormalLaw::hunt_crossley; });
  if (!filled || !hunt_crossley) {
    model.warnings.push_back(
        {"unused_penetration_allowance",
         fmt::format("{}: key 'contact.penetration_allowance' = {:g} m has no effect: {}",
                     model.source, allowance,
                     !hunt_crossley
                         ? "no contact material uses the hunt_crossley law, the only one it sets"
                         : "every material of a shape in contact gives its own Hunt-Crossley "
                           "stiffness and dissipation")});
  }
}

// Every pair that may collide is checked by check_collision_pair. The checks read the shapes'
// types, contact materials and Hunt-Crossley parameters, and whether a pair may collide depends
// on those shapes' filters, fixed bodies and the body pair: shapes equal in all but their body
// form a class, and one pair that may collide per pair of classes stands for all of them. A pile
// of a thousand spheres is then a handful of checks instead of half a million pairs.
void check_collision_pairs(Model& model) {
  // type, contact material, own Hunt-Crossley stiffness and dissipation missing, group, mask,
  // fixed, a mesh on a free body (which two terrain shapes may meet depends on it)
  using ClassKey = std::tuple<int, int, bool, bool, std::uint32_t, std::uint32_t, bool, bool>;
  std::map<ClassKey, int> class_of_key;
  std::vector<std::vector<std::size_t>> members;  // per class, in order of first member
  for (std::size_t i = 0; i < model.shapes.size(); ++i) {
    const Shape& shape = model.shapes[i];
    if (!shape.collision) continue;
    const ClassKey key{static_cast<int>(shape.type),
                       shape.contact_material,
                       std::isnan(shape.hunt_crossley_stiffness),
                       std::isnan(shape.hunt_crossley_dissipation),
                       shape.collision_group,
                       shape.collision_mask,
                       model.bodies[shape.body].fixed,
                       is_free_mesh(shape)};
    const auto [it, added] = class_of_key.try_emplace(key, static_cast<int>(members.size()));
    if (added) members.emplace_back();
    members[it->second].push_back(i);
  }
  std::vector<ClassKey> keys(members.size());
  for (const auto& [key, index] : class_of_key) keys[index] = key;
  for (std::size_t p = 0; p < members.size(); ++p) {
    for (std::size_t q = p; q < members.size(); ++q) {
      // Classes that never meet (both on fixed bodies, or filtered out) need no scan.
      const bool both_fixed = std::get<6>(keys[p]) && std::get<6>(keys[q]);
      const bool filtered = (std::get<4>(keys[p]) & std::get<5>(keys[q])) == 0 ||
                            (std::get<4>(keys[q]) & std::get<5>(keys[p])) == 0;
      if (both_fixed || filtered) continue;
      // The first pair of the two classes that may collide (usually the very first tried).
      bool found = false;
      for (std::size_t a : members[p]) {
        for (std::size_t b : members[q]) {
          if (a == b || !model.may_collide(static_cast<int>(a), static_cast<int>(b))) continue;
          check_collision_pair(model, std::min(a, b), std::max(a, b));
          found = true;
          break;
        }
        if (found) break;
      }
    }
  }
}

}  // namespace hybridsim
