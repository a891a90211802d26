#include "events/event_log.hpp"

#include <fmt/format.h>

namespace hybridsim {
namespace {

std::string format_vector(const Vec3& v) {
  return fmt::format("[{:.10g}, {:.10g}, {:.10g}]", v.x(), v.y(), v.z());
}

void append_contact_lines(std::string& out, const EventRecord& record) {
  const bool start = record.kind == EventRecord::Kind::contact_start;
  // Crossings say which way the distance went; at initialisation and time events nothing
  // crossed, the contact set was only rebuilt.
  const char* what = !record.crossing.empty() ? (start ? "became <= 0" : "became > 0")
                                              : (start ? "(in contact)" : "(contact released)");
  out += fmt::format("    distance({},{}) = {:.10g} {}\n", record.pair_a, record.pair_b,
                     record.crossing_distance, what);
  // A point of a manifold: which one (one point per pair needs no more).
  if (record.feature_a != "shape" && !record.feature_a.empty()) {
    out += fmt::format("    contact point {}: features {} / {}\n", record.contact_id,
                       record.feature_a, record.feature_b);
  }
  if (start) {
    out += fmt::format(
        "    contact normal = {}, contact position = {}, c_res = {:.10g}, d_res = {:.10g}, "
        "v_pre = {:.10g}\n",
        format_vector(record.normal_W), format_vector(record.point_W), record.c_res, record.d_res,
        record.pre_impact_velocity);
  }
}

std::string format_triggers(const std::vector<int>& roots_found) {
  std::string triggers;
  for (std::size_t i = 0; i < roots_found.size(); ++i) {
    if (roots_found[i] == 0) continue;
    if (!triggers.empty()) triggers += ", ";
    triggers += fmt::format("z[{}]", i + 1);
  }
  return triggers;
}

}  // namespace

std::string format_event_log_entry(const EventInstant& instant) {
  std::string out;
  switch (instant.kind) {
    case EventInstantKind::initialization:
      out += fmt::format("Initialization at time = {:.10g} s\n", instant.t);
      break;
    case EventInstantKind::state_event:
      out += fmt::format("State event (zero-crossing) at time = {:.17g} s (due to {})\n", instant.t,
                         format_triggers(instant.roots_found));
      break;
    case EventInstantKind::time_event:
      out += fmt::format("Time event at time = {:.17g} s\n", instant.t);
      break;
    case EventInstantKind::guard_stop:
      out += fmt::format("Simulation stopped at time = {:.17g} s\n", instant.t);
      break;
  }
  for (const EventRecord& record : instant.outcome.records) {
    if (record.kind == EventRecord::Kind::contact_start ||
        record.kind == EventRecord::Kind::contact_end) {
      append_contact_lines(out, record);
    } else {
      out += fmt::format("    {}\n", record.description);
    }
  }
  if (instant.kind == EventInstantKind::state_event ||
      instant.kind == EventInstantKind::time_event) {
    out += "    restart = Restart\n";
  }
  out += "\n";
  return out;
}

}  // namespace hybridsim
