#include "models/wheel_reader.hpp"

#include <cmath>
#include <numbers>

#include <fmt/format.h>

namespace hybridsim {
namespace {

// The shapes named by `shapes`, or every collision shape of the body; each must take part in
// contacts and belong to no other wheel.
void read_wheel_shapes(MapReader& reader, const Body& body, Wheel& wheel, const Model& model) {
  if (reader.has("shapes")) {
    const YAML::Node names = reader.sequence("shapes");
    for (std::size_t i = 0; i < names.size(); ++i) {
      const std::string path = indexed(reader.path_of("shapes"), i);
      if (!names[i].IsScalar()) throw_yaml_error(reader.source(), names[i], path, "not a name");
      const std::string name = names[i].as<std::string>();
      int found = -1;
      for (int shape : body.shapes) {
        if (model.shapes[shape].name == name) found = shape;
      }
      if (found < 0) {
        throw_yaml_error(reader.source(), names[i], path,
                         fmt::format("body '{}' has no such shape", body.name));
      }
      if (!model.shapes[found].collision) {
        throw_yaml_error(reader.source(), names[i], path, "this shape has collision: false");
      }
      wheel.shapes.push_back(found);
    }
  } else {
    for (int shape : body.shapes) {
      if (model.shapes[shape].collision) wheel.shapes.push_back(shape);
    }
  }
  if (wheel.shapes.empty()) {
    reader.fail("shapes", fmt::format("wheel '{}' has no shape that touches the ground (body '{}' "
                                      "has no collision shape)",
                                      wheel.name, body.name));
  }
  for (const Wheel& other : model.wheels) {
    for (int shape : other.shapes) {
      for (int mine : wheel.shapes) {
        if (shape == mine) {
          reader.fail("shapes", fmt::format("shape '{}' already belongs to wheel '{}'",
                                            model.shape_label(shape), other.name));
        }
      }
    }
  }
}

// The nominal radius: given, or that of the first sphere or cylinder among the wheel's shapes.
double read_wheel_radius(MapReader& reader, const Wheel& wheel, const Model& model) {
  if (reader.has("radius")) return reader.required_positive("radius");
  for (int shape : wheel.shapes) {
    const Shape& s = model.shapes[shape];
    if (s.type == ShapeType::sphere || s.type == ShapeType::cylinder) return s.radius;
  }
  reader.fail("radius", "is required when the wheel has no sphere or cylinder shape");
}

void read_slip_compliance(MapReader& reader, Wheel& wheel) {
  if (!reader.has("slip_compliance")) {
    for (const char* key : {"normal_force", "min_slip_compliance", "slope_compliance"}) {
      if (reader.has(key)) reader.fail(key, "applies to wheel-slip compliance (slip_compliance)");
    }
    return;
  }
  MapReader compliance(reader.get("slip_compliance"), reader.path_of("slip_compliance"),
                       reader.source());
  wheel.slip_compliance = true;
  wheel.lateral_compliance = compliance.non_negative("lateral", 0.0);
  wheel.longitudinal_compliance = compliance.non_negative("longitudinal", 0.0);
  compliance.reject_unknown_keys();
  const YAML::Node normal = reader.get("normal_force");
  if (normal.IsScalar() && normal.as<std::string>() == "actual") {
    wheel.actual_normal_force = true;
  } else if (normal.IsDefined()) {
    wheel.normal_force_estimate = reader.required_positive("normal_force");
  } else {
    reader.fail("normal_force", "is required with slip_compliance: N_est in N, or `actual`");
  }
  wheel.min_slip_compliance = reader.positive("min_slip_compliance", wheel.min_slip_compliance);
  if (reader.has("slope_compliance")) {
    MapReader slope(reader.get("slope_compliance"), reader.path_of("slope_compliance"),
                    reader.source());
    SlopeCompliance& c = wheel.slope_compliance;
    c.start = slope.non_negative("start", 0.0);
    c.end = slope.required_positive("end");
    if (!(c.end > c.start)) slope.fail("end", fmt::format("must exceed start ({} rad)", c.start));
    if (!(c.end <= 0.5 * std::numbers::pi)) slope.fail("end", "must be at most pi/2 rad");
    c.factor = slope.required_positive("factor");
    slope.reject_unknown_keys();
  }
}

void read_traction(MapReader& reader, Wheel& wheel) {
  if (!reader.has("traction")) return;
  MapReader traction(reader.get("traction"), reader.path_of("traction"), reader.source());
  TractionLaw& law = wheel.traction;
  traction.choice("model", "janosi_hanamoto", {"janosi_hanamoto"});
  law.model = TractionLaw::Model::janosi_hanamoto;
  law.shear_deformation = traction.required_positive("shear_deformation");
  law.contact_length = traction.required_positive("contact_length");
  law.v_small = traction.positive("v_small", law.v_small);
  traction.reject_unknown_keys();
}

void read_plowing(MapReader& reader, Wheel& wheel) {
  if (!reader.has("plowing")) return;
  MapReader plowing(reader.get("plowing"), reader.path_of("plowing"), reader.source());
  WheelPlowing& p = wheel.plowing;
  p.max_angle = plowing.non_negative("max_angle", 0.0);
  if (!(p.max_angle < 0.5 * std::numbers::pi)) {
    plowing.fail("max_angle", "must be below pi/2 rad (the angle is in radians)");
  }
  p.deadband = plowing.non_negative("deadband", 0.0);
  p.saturation = plowing.required_positive("saturation");
  if (!(p.deadband < p.saturation)) {
    plowing.fail("deadband",
                 fmt::format("must be below the saturation speed {} m/s", p.saturation));
  }
  p.lateral = plowing.boolean("lateral", false);
  plowing.reject_unknown_keys();
}

Wheel read_wheel(MapReader& reader, const Model& model) {
  Wheel wheel;
  wheel.name = reader.required_string("name");
  if (model.find_wheel(wheel.name) >= 0) reader.fail("name", "duplicate wheel name");
  wheel.body = model.find_body(reader.required_string("body"));
  if (wheel.body < 0) reader.fail("body", "unknown body");
  const Body& body = model.bodies[wheel.body];
  if (body.fixed || body.prescribed) {
    reader.fail("body", "a wheel's body must be free (not fixed or prescribed)");
  }
  int parent_joints = 0;
  for (const Joint& joint : model.joints) {
    if (joint.child == wheel.body) ++parent_joints;
  }
  if (parent_joints > 1) {
    reader.fail("body", fmt::format("body '{}' is the child of {} joints; a wheel has at most one "
                                    "parent joint (its axle)",
                                    body.name, parent_joints));
  }
  const Vec3 axis = reader.required_vec3("axis");
  if (!(axis.norm() > 1e-12)) reader.fail("axis", "must not be zero");
  wheel.axis_B = axis.normalized();
  wheel.p_BCenter_B = reader.vec3("center", body.p_BCom_B);
  read_wheel_shapes(reader, body, wheel, model);
  wheel.radius = read_wheel_radius(reader, wheel, model);
  read_slip_compliance(reader, wheel);
  if (reader.has("mu")) {
    MapReader mu(reader.get("mu"), reader.path_of("mu"), reader.source());
    // A direction left out keeps the contact material's coefficient (-1).
    if (mu.has("lateral")) wheel.mu_lateral = mu.non_negative("lateral", 0.0);
    if (mu.has("longitudinal")) wheel.mu_longitudinal = mu.non_negative("longitudinal", 0.0);
    mu.reject_unknown_keys();
  }
  read_traction(reader, wheel);
  read_plowing(reader, wheel);
  wheel.rolling_resistance = reader.non_negative("rolling_resistance", 0.0);
  reader.reject_unknown_keys();
  return wheel;
}

}  // namespace

void read_wheels(MapReader& root, Model& model) {
  const YAML::Node list = root.sequence("wheels");
  for (std::size_t i = 0; i < list.size(); ++i) {
    MapReader reader(list[i], indexed("wheels", i), root.source());
    model.wheels.push_back(read_wheel(reader, model));
  }
}

}  // namespace hybridsim
