#include "hybridsim/hybridsim.hpp"

namespace hybridsim {

const char* version() {
  return HYBRIDSIM_VERSION_STRING;
}

}  // namespace hybridsim
