#include "models/import/sdf_state.hpp"

#include <fmt/format.h>

#include "models/import/xml_document.hpp"

namespace hybridsim {
namespace {

void warn_unread_state(const XmlDocument& document, const XmlElement& element,
                       ImportContext& context) {
  context.warn_once(std::string("sdf-state|") + element_name(element),
                    fmt::format("{}: <state> is read for link velocities only; this is ignored",
                                document.locate(element)));
}

void read_model_state(const XmlDocument& document, const XmlElement& model,
                      const std::string& scope, ImportContext& context,
                      std::vector<SdfLinkVelocity>& velocities) {
  const std::string prefix = scope + attribute(model, "name").value_or("") + "::";
  for (const XmlElement* child = first_child(model); child != nullptr;
       child = next_sibling(*child)) {
    const std::string tag = element_name(*child);
    if (tag == "model") {
      read_model_state(document, *child, prefix, context, velocities);
    } else if (tag == "link") {
      SdfLinkVelocity entry;
      entry.link = prefix + attribute(*child, "name").value_or("");
      entry.where = document.locate(*child);
      bool given = false;
      for (const XmlElement* part = first_child(*child); part != nullptr;
           part = next_sibling(*part)) {
        if (std::string(element_name(*part)) != "velocity") {
          warn_unread_state(document, *part, context);
          continue;
        }
        // An empty <velocity/> is SDFormat's default, at rest.
        const std::string text = element_text(*part).value_or("");
        if (text.find_first_not_of(" \t\r\n") != std::string::npos) {
          const std::vector<double> values = element_numbers(document, *part, 6);
          entry.linear_W = Vec3(values[0], values[1], values[2]);
          entry.angular_W = Vec3(values[3], values[4], values[5]);
        }
        given = true;
      }
      if (given) velocities.push_back(entry);
    } else {
      warn_unread_state(document, *child, context);
    }
  }
}

}  // namespace

std::vector<SdfLinkVelocity> read_sdf_state_velocities(const std::string& text,
                                                       const std::string& source,
                                                       ImportContext& context) {
  const XmlDocument document(text, source);
  std::vector<SdfLinkVelocity> velocities;
  const XmlElement* world = first_child(document.root(), "world");
  const XmlElement* state = world != nullptr ? first_child(*world, "state") : nullptr;
  if (state == nullptr) return velocities;
  if (next_sibling(*state, "state") != nullptr) {
    warn_unread_state(document, *next_sibling(*state, "state"), context);
  }
  for (const XmlElement* child = first_child(*state); child != nullptr;
       child = next_sibling(*child)) {
    const std::string tag = element_name(*child);
    if (tag == "model") {
      read_model_state(document, *child, "", context, velocities);
    } else if (tag != "sim_time" && tag != "wall_time" && tag != "real_time" &&
               tag != "iterations") {
      warn_unread_state(document, *child, context);
    }
  }
  return velocities;
}

}  // namespace hybridsim
