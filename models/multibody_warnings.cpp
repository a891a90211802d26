// What a scene's run warns about (HybridSystem's warning hooks): the loader's notes, overlaps at
// the start, contact laws too stiff for the tolerance, and the energy check of passive scenes.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include <fmt/format.h>

#include "models/multibody_system.hpp"

namespace hybridsim {

std::vector<Warning> MultibodySystem::start_warnings(double t0, ConstVectorRef x, double /*atol*/) {
  std::vector<Warning> warnings;
  for (const Model::LoadWarning& warning : model_.warnings) {
    warnings.push_back({t0, warning.kind, warning.message});
  }
  // One warning per shape pair: its deepest point, the force of all its points.
  struct Overlap {
    double depth = 0.0;  // m
    double force = 0.0;  // N
    int shape_a = -1;
    int shape_b = -1;
  };
  std::map<PairId, Overlap> overlaps;
  for (const ContactResult& r : compute_contact_results(x)) {
    Overlap& overlap = overlaps[r.pair];
    overlap.depth = std::max(overlap.depth, r.penetration + model_.contact.contact_eps);
    overlap.force += r.normal_force;
    overlap.shape_a = r.shape_a;
    overlap.shape_b = r.shape_b;
  }
  for (const auto& [pair, overlap] : overlaps) {
    if (overlap.depth <= kOverlapWarningDepth) continue;
    warnings.push_back(
        {t0, "initial_overlap",
         fmt::format("{} and {} overlap by {:.4g} m at the start: the contact law pushes them "
                     "apart with {:.4g} N at once",
                     model_.shape_label(overlap.shape_a), model_.shape_label(overlap.shape_b),
                     overlap.depth, overlap.force)});
  }
  return warnings;
}

// A contact whose deflection under the weight it carries is below the absolute tolerance cannot
// be resolved: the error test accepts positions anywhere within atol, so the force it computes
// may be many times the weight, and the body bounces or gains energy. Checked at each contact
// start, once per contact material (the first pair of it that starts).
void MultibodySystem::event_warnings(double t, const EventOutcome& outcome, double atol,
                                     std::vector<Warning>& warnings) {
  const double g = model_.gravity_W.norm();
  if (!(atol > 0.0) || g == 0.0) return;
  for (const EventRecord& record : outcome.records) {
    if (record.kind != EventRecord::Kind::contact_start) continue;
    int a = -1;
    int b = -1;
    int slot = 0;
    if (std::sscanf(record.contact_id.c_str(), "%d-%d#%d", &a, &b, &slot) != 3) continue;
    if (a < 0 || b < 0 || a >= static_cast<int>(model_.shapes.size()) ||
        b >= static_cast<int>(model_.shapes.size())) {
      continue;
    }
    const Shape& shape_a = model_.shapes[a];
    const Shape& shape_b = model_.shapes[b];
    const auto materials = std::minmax(shape_a.contact_material, shape_b.contact_material);
    if (!stiffness_checked_.insert(materials).second) continue;
    const ContactLawParameters law = resolve_contact_law(model_, a, b);
    if (law.observer) continue;
    // The lighter of the moving bodies carries its own weight on this contact (at least).
    double mass = kInfinity;
    for (const int body : {shape_a.body, shape_b.body}) {
      const Body& candidate = model_.bodies[body];
      if (!candidate.fixed && !candidate.prescribed) mass = std::min(mass, candidate.mass);
    }
    if (!std::isfinite(mass)) continue;
    double stiffness = law.stiffness;  // N/m^n
    double exponent = law.n_geo;
    if (law.normal_law == NormalLaw::linear) {
      stiffness = law.kp;
      exponent = 1.0;
    }
    if (!(stiffness > 0.0) || !(exponent > 0.0)) continue;
    const double deflection = std::pow(mass * g / stiffness, 1.0 / exponent);  // m
    if (deflection >= atol) continue;
    warnings.push_back(
        {t, "stiff_contact",
         fmt::format("{} on {}: the contact law's deflection under {:.4g} N is {:.3g} m, below "
                     "the absolute tolerance {:.3g} m, so the integrator cannot resolve it (set "
                     "atol below {:.3g} m, or soften the law)",
                     model_.shape_label(a), model_.shape_label(b), mass * g, deflection, atol,
                     0.1 * deflection)});
  }
}

// Inputs (forces, torques, servo commands, prescribed motion), servos, wheels (drive torques) and
// bilateral switches feed or take energy by design; without them a rise is a fault. So does
// ODE's max_vel: the cap holds back the linear spring by the rate, and the spring's energy no
// longer measures what is stored.
double MultibodySystem::passive_energy(ConstVectorRef x) {
  const bool capped = std::any_of(model_.contact_materials.begin(), model_.contact_materials.end(),
                                  [](const ContactMaterial& cm) { return cm.max_vel < kInfinity; });
  if (!model_.inputs.empty() || !model_.wheels.empty() || !model_.bilateral_contacts.empty() ||
      has_servos_ || capped) {
    return kNaN;
  }
  return compute_energy(x);
}

// 1e-3 of the scene's energy scale: the larger of the kinetic energy at the start and the work of
// lifting every moving body by 1 m (the potential energy's zero is arbitrary, so E0 is no scale).
// Integration error at the default tolerance changes the energy of the catalog's passive scenes by
// less than 1e-5 of that scale.
double MultibodySystem::energy_rise_tolerance(ConstVectorRef x0) const {
  double kinetic = 0.0;
  double lift = 0.0;
  for (std::size_t i = 0; i < model_.bodies.size(); ++i) {
    const Body& body = model_.bodies[i];
    if (body.fixed || body.prescribed) continue;
    lift += body.mass * model_.gravity_W.norm() * 1.0;
    const int o = body.state_offset;
    // Translational and rotational kinetic energy (the angular velocity is in B).
    const Vec3 v = x0.segment<3>(o + 7);
    const Vec3 w_B = x0.segment<3>(o + 10);
    kinetic += 0.5 * body.mass * v.squaredNorm() + 0.5 * w_B.dot(body.inertia_com_B * w_B);
  }
  return 1e-3 * std::max({kinetic, lift, 1e-12});
}

}  // namespace hybridsim
