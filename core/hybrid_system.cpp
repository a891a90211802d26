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
    case EventRecord::Kind::bilateral_on:
      return "bilateral_on";
    case EventRecord::Kind::bilateral_off:
      return "bilateral_off";
    case EventRecord::Kind::stick:
      return "stick";
    case EventRecord::Kind::slip:
      return "slip";
    case EventRecord::Kind::limit_on:
      return "limit_on";
    case EventRecord::Kind::limit_off:
      return "limit_off";
  }
  return "?";
}

void HybridSystem::compute_residual(double t, ConstVectorRef y, ConstVectorRef yp,
                                    VectorRef residual) {
  const Eigen::Index n = state_size();
  auto f = residual.head(n);
  compute_derivatives(t, y.head(n), f);
  f = yp.head(n) - f;
}

}  // namespace hybridsim
