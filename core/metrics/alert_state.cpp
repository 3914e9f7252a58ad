#include "core/metrics/alert_state.h"

namespace limitscope {

std::string_view to_string(AlertState s) {
  switch (s) {
    case AlertState::inactive:
      return "inactive";
    case AlertState::pending:
      return "pending";
    case AlertState::firing:
      return "firing";
    case AlertState::resolved:
      return "resolved";
    case AlertState::no_data:
      return "no data";
  }
  return "unknown";
}

std::string_view alert_state_name(AlertState s) {
  return s == AlertState::pending || s == AlertState::firing ? to_string(s) : "inactive";
}

}  // namespace limitscope
