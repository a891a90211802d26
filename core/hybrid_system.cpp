#include "core/hybrid_system.hpp"

namespace hybridsim {

std::string_view to_string(EventRecord::Kind kind) {
  switch (kind) {
    case EventRecord::Kind::contact_start:
      return "contact_start";
    case EventRecord::Kind::contact_end:
      return "contact_end";
    case EventRecord::Kind::time_event:
      return "time_event";
    case EventRecord::Kind::guard_stop:
      return "guard_stop";
  }
  return "?";
}

}  // namespace hybridsim
