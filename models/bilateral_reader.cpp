#include "models/bilateral_reader.hpp"

#include <array>
#include <cmath>
#include <string_view>

#include <fmt/format.h>

#include "core/constraint_solver.hpp"

namespace hybridsim {
namespace {

constexpr std::array<std::string_view, 6> kDirectionNames{"x", "y", "z", "rx", "ry", "rz"};

void read_directions(MapReader& reader, BilateralContact& contact) {
  if (!reader.has("directions")) return;  // all six
  const YAML::Node node = reader.get("directions");
  const std::string path = reader.path_of("directions");
  if (node.IsScalar()) {
    if (node.as<std::string>() != "all") {
      throw_yaml_error(reader.source(), node, path,
                       "must be 'all' or a list of x, y, z, rx, ry, rz");
    }
    return;
  }
  if (!node.IsSequence() || node.size() == 0) {
    throw_yaml_error(reader.source(), node, path,
                     "must be 'all' or a non-empty list of x, y, z, rx, ry, rz");
  }
  contact.directions.fill(false);
  for (std::size_t i = 0; i < node.size(); ++i) {
    const std::string item_path = indexed(path, i);
    const std::string name = node[i].IsScalar() ? node[i].as<std::string>() : "";
    std::size_t k = 0;
    while (k < kDirectionNames.size() && kDirectionNames[k] != name) ++k;
    if (k == kDirectionNames.size()) {
      throw_yaml_error(reader.source(), node[i], item_path,
                       "not a direction (x, y, z, rx, ry, rz)");
    }
    if (contact.directions[k]) throw_yaml_error(reader.source(), node[i], item_path, "repeated");
    contact.directions[k] = true;
  }
}

// `on` or `off`: a word, or {time: T}.
BilateralContact::Trigger read_trigger(MapReader& reader, const std::string& key,
                                       BilateralContact::Trigger fallback, double& time) {
  if (!reader.has(key)) return fallback;
  const YAML::Node node = reader.get(key);
  const std::string path = reader.path_of(key);
  const bool on = key == "on";
  if (node.IsMap()) {
    MapReader trigger(node, path, reader.source());
    time = trigger.required_number("time");
    if (!(time >= 0.0) || !std::isfinite(time)) trigger.fail("time", "must be finite and >= 0");
    trigger.reject_unknown_keys();
    return BilateralContact::Trigger::time;
  }
  const std::string word = node.IsScalar() ? node.as<std::string>() : "";
  if (word == "api") return BilateralContact::Trigger::api;
  if (on && word == "contact_start") return BilateralContact::Trigger::contact_start;
  if (!on && word == "never") return BilateralContact::Trigger::never;
  throw_yaml_error(
      reader.source(), node, path,
      on ? "must be contact_start, {time: T} or api" : "must be {time: T}, api or never");
}

BilateralContact read_bilateral_contact(MapReader& reader, const Model& model) {
  BilateralContact contact;
  contact.name = reader.required_string("name");
  if (model.find_bilateral_contact(contact.name) >= 0) {
    reader.fail("name", "duplicate bilateral contact name");
  }
  const YAML::Node bodies = reader.sequence("bodies");
  const std::string bodies_path = reader.path_of("bodies");
  if (bodies.size() != 2) {
    throw_yaml_error(reader.source(), bodies, bodies_path, "must name two bodies");
  }
  int* ends[2] = {&contact.body_a, &contact.body_b};
  for (std::size_t i = 0; i < 2; ++i) {
    const std::string name = bodies[i].IsScalar() ? bodies[i].as<std::string>() : "";
    *ends[i] = model.find_body(name);
    if (*ends[i] < 0) {
      throw_yaml_error(reader.source(), bodies[i], indexed(bodies_path, i), "unknown body");
    }
  }
  if (contact.body_a == contact.body_b) {
    throw_yaml_error(reader.source(), bodies, bodies_path, "the two bodies must differ");
  }
  if (model.bodies[contact.body_a].fixed && model.bodies[contact.body_b].fixed) {
    throw_yaml_error(reader.source(), bodies, bodies_path, "both bodies are fixed");
  }
  for (std::size_t i = 0; i < 2; ++i) {
    if (model.bodies[*ends[i]].prescribed) {
      throw_yaml_error(reader.source(), bodies[i], indexed(bodies_path, i),
                       "a prescribed body cannot take a bilateral contact (its motion is given)");
    }
  }
  read_directions(reader, contact);
  contact.on = read_trigger(reader, "on", BilateralContact::Trigger::api, contact.on_time);
  contact.off = read_trigger(reader, "off", BilateralContact::Trigger::never, contact.off_time);
  if (contact.on == BilateralContact::Trigger::time &&
      contact.off == BilateralContact::Trigger::time && !(contact.off_time > contact.on_time)) {
    reader.fail("off", fmt::format("the off time {} s must come after the on time {} s",
                                   contact.off_time, contact.on_time));
  }
  reader.reject_unknown_keys();
  return contact;
}

}  // namespace

void read_bilateral_contacts(MapReader& root, Model& model) {
  const YAML::Node list = root.sequence("bilateral_contacts");
  for (std::size_t i = 0; i < list.size(); ++i) {
    MapReader reader(list[i], indexed("bilateral_contacts", i), root.source());
    model.bilateral_contacts.push_back(read_bilateral_contact(reader, model));
  }
  int rows = 0;
  for (const Joint& joint : model.joints) rows += joint_row_count(joint);
  for (const BilateralContact& contact : model.bilateral_contacts) {
    rows += contact.direction_count();
  }
  if (model.simulation.constraint_factorization == ConstraintFactorization::dense &&
      rows > kMaxDenseConstraintRows) {
    root.fail("bilateral_contacts",
              fmt::format("with the joints' rows, {} constraint rows: more than the dense "
                          "factorisation takes ({}); use simulation.constraint_factorization "
                          "sparse or auto",
                          rows, kMaxDenseConstraintRows));
  }
}

}  // namespace hybridsim
