// SDFormat's //collision/surface (friction, bounce, contact) and how two surfaces make one
// hybridsim contact pair, by Gazebo's rules for combining them (Gazebo's ODE contact): the smaller
// friction coefficients and restitution, springs in series and dampers in parallel, slip
// compliances added, the larger torsional patch, the surfaces' curvatures added.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <tuple>

#include <yaml-cpp/yaml.h>
#include <sdf/Element.hh>

#include "core/math.hpp"
#include "models/import/scene_tree.hpp"

namespace hybridsim {

// Where an element stands, for messages: "file:line: <tag name='...'>" (the file libsdformat
// read it from, else `source`), shared by the SDFormat readers.
std::string locate_sdf_element(const sdf::ElementPtr& element, const std::string& source);

// A collision's //contact/ode/min_depth (m) when the file gives it; refused when not finite or
// negative.
std::optional<double> read_sdf_min_depth(const sdf::ElementPtr& collision,
                                         const std::string& where);

// One collision's surface, with SDFormat 1.9's defaults where the file says nothing.
struct SdfSurface {
  double mu = 1.0;  // friction/ode/mu, along fdir1
  double mu2 = 1.0;
  double slip1 = 0.0;  // m/s/N, slip compliance along fdir1
  double slip2 = 0.0;
  double torsional_coefficient = 1.0;
  double patch_radius = 0.0;    // m
  double surface_radius = 0.0;  // m
  bool use_patch_radius = true;
  double restitution = 0.0;       // bounce/restitution_coefficient
  double threshold = 1e5;         // bounce/threshold, m/s: no bounce below
  double elastic_modulus = -1.0;  // Pa; <= 0: not given
  double poissons_ratio = 0.3;
  std::optional<double> kp;  // contact/ode/kp, N/m, when the file gives it (default 1e12)
  double kd = 1.0;           // contact/ode/kd, N s/m
  bool collide_without_contact = false;
  // ODE's min_depth of the link, m (gazebo-classic sets it per ODE body, from the link's last
  // collision): none on a static link, which has no ODE body.
  std::optional<double> min_depth;

  // The parameters that make a contact material (not fdir1 or the bitmasks, which are the shape's).
  auto key() const {
    return std::tuple(mu, mu2, slip1, slip2, torsional_coefficient, patch_radius, surface_radius,
                      use_patch_radius, restitution, threshold, elastic_modulus, poissons_ratio, kp,
                      kd, collide_without_contact, min_depth.value_or(-1.0));
  }
};

// A collision's shape-level surface values: fdir1 in the collision's frame (zero: none) and the
// collision filter, Gazebo's collide_bitmask and SDFormat's category_bitmask (the collide bitmask
// when absent).
struct SdfShapeFilter {
  Vec3 fdir1 = Vec3::Zero();
  std::uint32_t category = 0xffff;
  std::uint32_t collide = 0xffff;
};

// The v_small (m/s) of the regularised Coulomb law that stands for ODE's anisotropic friction,
// which sticks: small, so that a held contact creeps little, and not so small that the steps
// become tiny.
inline constexpr double kSdfFrictionSmallSpeed = 1e-4;

// The world's //physics/ode/solver/friction_model: pyramid_model (the default; box_model, which
// ODE limits by a constant force, is read as the pyramid with a warning) or cone_model.
enum class OdeFrictionModel { pyramid, cone };

// What the world's friction can be: ODE's model, and whether stick-slip friction is affordable
// (the moving bodies could form few enough touching pairs of bodies).
struct SdfFriction {
  OdeFrictionModel model = OdeFrictionModel::pyramid;
  bool stiction = true;
  std::size_t body_pairs = 0;  // for the warning when it is not
};

// Reads //collision/surface; `where` names the collision in messages. Warns, once per element,
// of what hybridsim does not honour (max_vel, soft_cfm, soft_erp, ...). min_depth is left empty.
SdfSurface read_sdf_surface(const sdf::ElementPtr& collision, const std::string& where,
                            ImportContext& context, SdfShapeFilter& filter);

// The contact_materials entry of two surfaces (materials named `name_a`, `name_b`), or a warning
// through `context` where hybridsim's law differs from Gazebo's.
YAML::Node sdf_contact_pair(const SdfSurface& a, const std::string& name_a, const SdfSurface& b,
                            const std::string& name_b, const SdfFriction& world,
                            ImportContext& context);

}  // namespace hybridsim
