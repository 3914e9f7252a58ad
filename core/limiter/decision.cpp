#include "core/limiter/decision.h"

namespace limitscope {

std::string_view to_string(DenyReason r) {
  switch (r) {
    case DenyReason::none: return "allowed";
    case DenyReason::exhausted: return "exhausted";
    case DenyReason::cost_above_capacity: return "cost above capacity: can never be admitted";
    case DenyReason::queue_full: return "queue full";
    case DenyReason::invalid_cost: return "invalid cost";
  }
  return "unknown";
}

}  // namespace limitscope
