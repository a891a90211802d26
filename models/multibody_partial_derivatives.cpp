// MultibodySystem's partial right-hand sides, for the coloured difference quotients of a large
// pile's Jacobian (integrators/block_jacobian.hpp). One colour perturbs a few bodies, no two of
// them in contact with each other or with a common third; a full evaluation would still recompute
// every body's kinematics and every contact. Here a perturbed body's kinematics and its own
// contacts are recomputed, every other contact keeps its terms from the base point, and each
// body that a recomputed contact touches sums its wrench again in the order of a full evaluation:
// the derivatives are those of compute_derivatives, bit for bit, for about two contacts in
// (number of colours) of the work.
#include <algorithm>

#include "models/multibody_system.hpp"

namespace hybridsim {

bool MultibodySystem::prepare_partial_derivatives(double t, ConstVectorRef x) {
  // Joints couple whole sets through the constraint solve, and inputs may read a body's pose:
  // those scenes evaluate in full.
  // Prescribed bodies' rates follow their signals, not forces (their inputs exclude them already).
  if (!model_.joints.empty() || !model_.inputs.empty() || !constraints_.empty() ||
      !prescribed_bodies_.empty()) {
    return false;
  }

  update_kinematics(x.data());
  apply_gravity_and_inputs(t);
  base_external_ = wrenches_;

  const std::size_t pair_count = contacts_.contact_list().size();
  partial_contacts_.clear();
  base_terms_.resize(pair_count);
  perturbed_terms_.resize(pair_count);
  pair_stamp_.assign(pair_count, 0);
  const std::size_t body_count = model_.bodies.size();
  body_pairs_start_.assign(body_count + 1, 0);
  for (const auto& [id, pair] : contacts_.contact_list()) {
    const int body_a = model_.shapes[pair.shape_a].body;
    const int body_b = model_.shapes[pair.shape_b].body;
    base_terms_[partial_contacts_.size()] = compute_contact_terms(pair, id.pair, nullptr);
    partial_contacts_.push_back({&pair, id.pair, body_a, body_b});
    ++body_pairs_start_[body_a + 1];
    ++body_pairs_start_[body_b + 1];
  }
  // Each body's pairs, ascending: the order in which a full evaluation adds their terms.
  for (std::size_t body = 0; body < body_count; ++body) {
    body_pairs_start_[body + 1] += body_pairs_start_[body];
  }
  body_pairs_.resize(static_cast<std::size_t>(body_pairs_start_[body_count]));
  body_pairs_next_.assign(body_pairs_start_.begin(), body_pairs_start_.end() - 1);
  for (std::size_t k = 0; k < partial_contacts_.size(); ++k) {
    body_pairs_[body_pairs_next_[partial_contacts_[k].body_a]++] = static_cast<int>(k);
    body_pairs_[body_pairs_next_[partial_contacts_[k].body_b]++] = static_cast<int>(k);
  }
  perturbed_stamp_.assign(body_count, 0);
  affected_stamp_.assign(body_count, 0);
  partial_stamp_ = 0;
  return true;
}

void MultibodySystem::compute_partial_derivatives(double /*t*/, ConstVectorRef x,
                                                  std::span<const int> perturbed, VectorRef xdot) {
  ++rhs_count_;
  const int stamp = ++partial_stamp_;
  perturbed_bodies_.clear();
  affected_bodies_.clear();
  for (int state : perturbed) {
    const int body = body_of_state_[state];
    if (perturbed_stamp_[body] == stamp) continue;
    perturbed_stamp_[body] = stamp;
    perturbed_bodies_.push_back(body);
  }

  // The perturbed bodies' kinematics and shape poses at x, the base point's kept to restore.
  saved_kinematics_.clear();
  saved_shape_poses_.clear();
  for (int body : perturbed_bodies_) {
    const Body& b = model_.bodies[body];
    saved_kinematics_.push_back(kinematics_[body]);
    compute_body_kinematics(b, x.data(), kinematics_[body]);
    for (int shape : b.shapes) {
      saved_shape_poses_.push_back(X_WS_[shape]);
      X_WS_[shape] = kinematics_[body].X_WB * model_.shapes[shape].X_BS;
    }
  }

  // Their contacts again; each such contact's two bodies are affected.
  const auto mark_affected = [this, stamp](int body) {
    if (model_.bodies[body].fixed || affected_stamp_[body] == stamp) return;
    affected_stamp_[body] = stamp;
    affected_bodies_.push_back(body);
  };
  for (int body : perturbed_bodies_) {
    mark_affected(body);
    for (int p = body_pairs_start_[body]; p < body_pairs_start_[body + 1]; ++p) {
      const int k = body_pairs_[p];
      if (pair_stamp_[k] == stamp) continue;
      pair_stamp_[k] = stamp;
      const PartialContact& contact = partial_contacts_[k];
      perturbed_terms_[k] = compute_contact_terms(*contact.pair, contact.id, nullptr);
      mark_affected(contact.body_a);
      mark_affected(contact.body_b);
    }
  }

  // Each affected body's wrench, summed as apply_contact_forces sums it, then its derivatives.
  for (int body : affected_bodies_) {
    wrenches_[body] = base_external_[body];
    for (int p = body_pairs_start_[body]; p < body_pairs_start_[body + 1]; ++p) {
      const int k = body_pairs_[p];
      const ContactTerms& terms = pair_stamp_[k] == stamp ? perturbed_terms_[k] : base_terms_[k];
      add_contact_terms(body, terms, partial_contacts_[k].body_b == body);
    }
    compute_body_derivatives(model_.bodies[body], kinematics_[body], wrenches_[body], x.data(),
                             xdot.data());
  }

  // Back to the base point for the next colour.
  std::size_t saved_shape = 0;
  for (std::size_t i = 0; i < perturbed_bodies_.size(); ++i) {
    const int body = perturbed_bodies_[i];
    kinematics_[body] = saved_kinematics_[i];
    for (int shape : model_.bodies[body].shapes) X_WS_[shape] = saved_shape_poses_[saved_shape++];
  }
}

}  // namespace hybridsim
