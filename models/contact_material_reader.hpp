// Reading the scene's materials and contact pairs (spec/scene-format.md), and checking at load
// that every shape pair that may collide has a supported geometry and a contact law with the
// parameters it needs.
#pragma once

#include "core/model.hpp"
#include "models/yaml_reader.hpp"

namespace hybridsim {

// Reads `materials` into model.materials; a material named like one already there (the palette's)
// replaces it. Errors name the file, key and value.
void read_materials(MapReader& root, Model& model);

// Reads `contact_materials` into model.contact_materials (materials already read); a pair already
// there (the palette's) is replaced, a pair given twice in the same file is an error.
void read_contact_materials(MapReader& root, Model& model);

// Drake's penetration allowance (MultibodyPlant::set_penetration_allowance), when the scene
// gives contact.penetration_allowance delta (bodies read): each material without its own
// Hunt-Crossley stiffness gets k = 2 m g / delta, so that two such geometries in series give
// m g / delta, and without its own dissipation d = t / delta with t = sqrt(delta / g), the time
// scale of critical damping; m is the heaviest moving (not prescribed) body's mass, g the gravity's
// magnitude (9.81 m/s^2 without gravity).
void apply_penetration_allowance(Model& model);

// Checks every shape pair that may collide (shapes, bodies and filters read): a supported
// geometry, a contact pair (its own, or the documented fallback combining the two self pairs,
// added to the model) and the per-shape parameters its normal law needs. One pair per pair of
// shape classes is checked, so a pile of a thousand equal spheres costs a handful of checks.
void check_collision_pairs(Model& model);

}  // namespace hybridsim
