#include "models/import/sdf_surface.hpp"

#include <algorithm>
#include <cmath>
#include <initializer_list>

#include <fmt/format.h>

#include "core/errors.hpp"

namespace hybridsim {
namespace {

// The element at a path of child names below `element`, or null when the file has none of it.
sdf::ElementPtr find_path(sdf::ElementPtr element, std::initializer_list<const char*> path) {
  for (const char* name : path) {
    if (!element || !element->HasElement(name)) return nullptr;
    element = element->GetElement(name);
  }
  return element;
}

// Where an element stands: "file:line: <surface>/.../<name>".
std::string element_place(const sdf::ElementPtr& element, const std::string& where) {
  return element->LineNumber()
             ? fmt::format("{} (line {}, <{}>)", where, *element->LineNumber(), element->GetName())
             : fmt::format("{} (<{}>)", where, element->GetName());
}

// A value the file states explicitly (a default libsdformat filled in does not count).
template <typename T>
std::optional<T> given(const sdf::ElementPtr& surface, std::initializer_list<const char*> path) {
  const sdf::ElementPtr element = find_path(surface, path);
  if (!element || !element->GetExplicitlySetInFile()) return std::nullopt;
  return element->Get<T>();
}

}  // namespace

std::string locate_sdf_element(const sdf::ElementPtr& element, const std::string& source) {
  if (!element) return source;
  const std::string file = element->FilePath().empty() ? source : element->FilePath();
  const std::string tag = element->HasAttribute("name")
                              ? fmt::format("<{} name='{}'>", element->GetName(),
                                            element->GetAttribute("name")->GetAsString())
                              : fmt::format("<{}>", element->GetName());
  return element->LineNumber() ? fmt::format("{}:{}: {}", file, *element->LineNumber(), tag)
                               : fmt::format("{}: {}", file, tag);
}

std::optional<double> read_sdf_min_depth(const sdf::ElementPtr& collision,
                                         const std::string& where) {
  const sdf::ElementPtr surface = find_path(collision, {"surface"});
  const auto v = given<double>(surface, {"contact", "ode", "min_depth"});
  if (v && !(std::isfinite(*v) && *v >= 0.0)) {
    throw InputError(
        fmt::format("{}: must be a finite number, 0 or more (m)",
                    element_place(find_path(surface, {"contact", "ode", "min_depth"}), where)));
  }
  return v;
}

SdfSurface read_sdf_surface(const sdf::ElementPtr& collision, const std::string& where,
                            ImportContext& context, SdfShapeFilter& filter) {
  SdfSurface s;
  const sdf::ElementPtr surface = find_path(collision, {"surface"});
  if (!surface) return s;
  // A number the file gives; NaN and infinities (which libsdformat reads) are refused.
  const auto number = [&](std::initializer_list<const char*> path, double& value) {
    const auto v = given<double>(surface, path);
    if (!v) return;
    if (!std::isfinite(*v)) {
      throw InputError(fmt::format("{}: must be a finite number",
                                   element_place(find_path(surface, path), where)));
    }
    value = *v;
  };
  number({"friction", "ode", "mu"}, s.mu);
  number({"friction", "ode", "mu2"}, s.mu2);
  number({"friction", "ode", "slip1"}, s.slip1);
  number({"friction", "ode", "slip2"}, s.slip2);
  number({"friction", "torsional", "coefficient"}, s.torsional_coefficient);
  number({"friction", "torsional", "patch_radius"}, s.patch_radius);
  number({"friction", "torsional", "surface_radius"}, s.surface_radius);
  if (const auto v = given<bool>(surface, {"friction", "torsional", "use_patch_radius"})) {
    s.use_patch_radius = *v;
  }
  number({"bounce", "restitution_coefficient"}, s.restitution);
  number({"bounce", "threshold"}, s.threshold);
  number({"contact", "elastic_modulus"}, s.elastic_modulus);
  number({"contact", "poissons_ratio"}, s.poissons_ratio);
  if (given<double>(surface, {"contact", "ode", "kp"})) {
    s.kp = 0.0;
    number({"contact", "ode", "kp"}, *s.kp);
  }
  number({"contact", "ode", "kd"}, s.kd);
  if (const auto v = given<bool>(surface, {"contact", "collide_without_contact"})) {
    s.collide_without_contact = *v;
  }
  if (const auto v = given<ignition::math::Vector3d>(surface, {"friction", "ode", "fdir1"})) {
    filter.fdir1 = Vec3(v->X(), v->Y(), v->Z());
  }
  if (const auto v = given<unsigned int>(surface, {"contact", "collide_bitmask"})) {
    filter.collide = filter.category = *v;
  }
  if (const auto v = given<unsigned int>(surface, {"contact", "category_bitmask"})) {
    filter.category = *v;
  }

  // Values hybridsim's laws cannot take, refused with their place (libsdformat checks the ranges
  // the specification gives: mu, mu2, the torsional values >= 0, restitution in [0, 1]).
  const auto refuse = [&](std::initializer_list<const char*> path, const char* why) {
    throw InputError(fmt::format("{}: {}", element_place(find_path(surface, path), where), why));
  };
  if (!(s.slip1 >= 0.0)) refuse({"friction", "ode", "slip1"}, "must be 0 or more (m/s/N)");
  if (!(s.slip2 >= 0.0)) refuse({"friction", "ode", "slip2"}, "must be 0 or more (m/s/N)");
  if (s.kp && !(*s.kp > 0.0)) refuse({"contact", "ode", "kp"}, "must be positive (N/m)");
  if (!(s.kd >= 0.0)) refuse({"contact", "ode", "kd"}, "must be 0 or more (N s/m)");
  if (s.elastic_modulus > 0.0 && !(s.poissons_ratio > -1.0 && s.poissons_ratio < 0.5)) {
    refuse({"contact", "poissons_ratio"}, "must lie in (-1, 0.5)");
  }

  // Elements that have no counterpart, once each with the first place that gives one.
  const auto warn = [&](std::initializer_list<const char*> path, const std::string& what) {
    const sdf::ElementPtr element = find_path(surface, path);
    if (!element || !element->GetExplicitlySetInFile()) return;
    context.warn_once("sdf-surface|" + element->GetName(),
                      fmt::format("{}: {}", element_place(element, where), what));
  };
  warn({"contact", "ode", "soft_cfm"}, "ignored (Gazebo ignores it too: kp and kd give ODE's CFM)");
  warn({"contact", "ode", "soft_erp"}, "ignored (Gazebo ignores it too: kp and kd give ERP)");
  warn({"contact", "ode", "max_vel"},
       "ignored: gazebo-classic's ODE corrects the position in full and caps only the velocity a "
       "body keeps after the step, a split of its time step that a continuous law has no "
       "counterpart for");
  if (!s.kp || s.elastic_modulus > 0.0) {
    warn({"contact", "ode", "min_depth"},
         "acts with hybridsim's linear law only (contact/ode/kp and kd without elastic moduli): "
         "ignored where a pair takes the elastic law");
  }
  warn({"friction", "torsional", "ode", "slip"}, "ignored: torsional slip has no counterpart");
  warn({"friction", "bullet"}, "ignored: Bullet's friction (ODE's values are read)");
  warn({"contact", "bullet"}, "ignored: Bullet's contact (ODE's values are read)");
  warn({"soft_contact"}, "ignored: DART's soft contact has no counterpart");
  warn({"contact", "collide_without_contact_bitmask"},
       "ignored: collide_without_contact makes the pair an observer whatever the bitmask");
  return s;
}

YAML::Node sdf_contact_pair(const SdfSurface& a, const std::string& name_a, const SdfSurface& b,
                            const std::string& name_b, const SdfFriction& world,
                            ImportContext& context) {
  YAML::Node pair;
  pair["pair"].push_back(name_a);
  pair["pair"].push_back(name_b);
  pair["pair"].SetStyle(YAML::EmitterStyle::Flow);

  // Normal law: Hertz when both surfaces give an elastic modulus (as Gazebo, which then replaces
  // kp by the elastic stiffness); ODE's linear spring and damper when either gives kp; otherwise
  // the default material's Hertz law (ODE's default kp of 1e12 N/m is a rigid contact that a
  // penalty law cannot follow).
  const bool elastic = a.elastic_modulus > 0.0 && b.elastic_modulus > 0.0;
  if (!elastic && (a.kp || b.kp)) {
    const double kp_a = a.kp.value_or(1e12), kp_b = b.kp.value_or(1e12);
    pair["normal_law"] = "linear";
    pair["kp"] = number_node(kp_a * kp_b / (kp_a + kp_b));
    pair["kd"] = number_node(a.kd + b.kd);
    // ODE's uncorrected depth, per body (gazebo-classic's ODE contact joint): the smaller
    // min_depth of the two moving links.
    double min_depth = kInfinity;
    for (const SdfSurface* s : {&a, &b}) {
      if (s->min_depth) min_depth = std::min(min_depth, *s->min_depth);
    }
    if (min_depth < kInfinity && min_depth > 0.0) pair["min_depth"] = number_node(min_depth);
  } else if (!elastic) {
    context.warn_once("sdf-normal-law",
                      fmt::format("surfaces {} and {} give neither contact/elastic_modulus nor "
                                  "contact/ode/kp: the default material's Hertz law",
                                  name_a, name_b));
  }
  const double restitution = std::min(a.restitution, b.restitution);
  pair["restitution"] = number_node(restitution);
  // ODE bounces only above the threshold; hybridsim's v_small is that speed (1e-9 m/s for
  // "always").
  if (restitution > 0.0) {
    pair["v_small"] = number_node(std::max(std::min(a.threshold, b.threshold), 1e-9));
  }
  if (a.collide_without_contact || b.collide_without_contact) pair["observer"] = true;

  const double mu = std::min(a.mu, b.mu), mu2 = std::min(a.mu2, b.mu2);
  const double slip1 = a.slip1 + b.slip1, slip2 = a.slip2 + b.slip2;
  YAML::Node friction;
  if (slip1 > 0.0 || slip2 > 0.0) {
    // Gazebo 11: compliances in series add, times the contact count so that a shape pair slips as
    // one whatever its points.
    if (!(slip1 > 0.0 && slip2 > 0.0)) {
      context.warn_once("sdf-slip-one-direction",
                        fmt::format("surfaces {} and {}: slip1 {} and slip2 {}: hybridsim's slip "
                                    "law needs both; the positive one stands for both",
                                    name_a, name_b, slip1, slip2));
    }
    const double c1 = slip1 > 0.0 ? slip1 : slip2, c2 = slip2 > 0.0 ? slip2 : slip1;
    friction["model"] = "slip_compliance";
    friction["mu_kinetic"] = number_node(mu);
    if (mu2 != mu) friction["mu2"] = number_node(mu2);
    friction["slip_compliance"] = c1 == c2 ? number_node(c1) : numbers_node({c1, c2});
    friction["scale_by_contact_count"] = true;
  } else if (mu == 0.0 && (mu2 == 0.0 || world.model == OdeFrictionModel::cone)) {
    friction["model"] = "none";  // ODE's cone takes mu alone
  } else {
    // ODE's friction sticks: hybridsim's stick-slip friction, static and kinetic coefficients
    // equal, on its isotropic cone (ODE's cone_model exactly; its pyramid, with mu on both
    // directions, has up to sqrt(2) more friction for a slip between them). Anisotropic
    // coefficients, or more pairs of bodies than stick-slip supports, give the regularised law.
    const bool cone = world.model == OdeFrictionModel::cone;
    if (cone && mu != mu2) {
      context.warn_once("sdf-cone-mu2",
                        fmt::format("surfaces {} and {}: mu {} and mu2 {} differ under "
                                    "cone_model: hybridsim's cone takes mu",
                                    name_a, name_b, mu, mu2));
    }
    const bool isotropic = cone || mu == mu2;
    if (isotropic && world.stiction) {
      friction["model"] = "stick_slip";
      friction["mu_static"] = number_node(mu);
      friction["mu_kinetic"] = number_node(mu);
    } else {
      if (!isotropic) {
        context.warn_once("sdf-anisotropic",
                          fmt::format("surfaces {} and {}: mu {} and mu2 {} differ: regularised "
                                      "Coulomb friction (hybridsim's stiction is isotropic)",
                                      name_a, name_b, mu, mu2));
      } else {
        context.warn_once("sdf-many-pairs",
                          fmt::format("the world's moving bodies could touch in {} pairs, more "
                                      "than stick-slip friction takes: regularised Coulomb "
                                      "friction (v_small {} m/s)",
                                      world.body_pairs, kSdfFrictionSmallSpeed));
      }
      friction["model"] = "regularized_coulomb";
      friction["mu_kinetic"] = number_node(mu);
      if (!cone) {
        if (mu2 != mu) friction["mu2"] = number_node(mu2);
        friction["cone"] = false;  // ODE's pyramid
      }
      // ODE's friction sticks; the regularised law creeps at about (f_t / (mu f_n)) v_small / 3
      // under a held load, 30 um/s at most with this speed, and keeps the steps affordable.
      friction["v_small"] = number_node(kSdfFrictionSmallSpeed);
    }
  }
  pair["friction"] = friction;

  // Torsional friction: on when the combined patch or surface radius is positive (Gazebo's rule).
  const bool use_patch = a.use_patch_radius && b.use_patch_radius;
  const double patch = std::max(a.patch_radius, b.patch_radius);
  const auto curvature = [](double radius) { return radius > 0.0 ? 1.0 / radius : 0.0; };
  const double curvatures = curvature(a.surface_radius) + curvature(b.surface_radius);
  const double coefficient = std::min(a.torsional_coefficient, b.torsional_coefficient);
  if (coefficient > 0.0 && use_patch && patch > 0.0) {
    pair["torsional_friction"] = number_node(coefficient);
    pair["torsional_patch_radius"] = number_node(patch);
  } else if (coefficient > 0.0 && !use_patch && curvatures > 0.0) {
    pair["torsional_friction"] = number_node(coefficient);
    pair["torsional_surface_radius"] = number_node(1.0 / curvatures);
  }
  return pair;
}

}  // namespace hybridsim
