#include "core/limiter/decision.h"

namespace limitscope {

std::string_view to_string(DenyReason r) {
  switch (r) {
    case DenyReason::none:
      return "allowed";
    case DenyReason::exhausted:
      return "exhausted";
    case DenyReason::cost_above_capacity:
      return "cost above capacity: can never be admitted";
    case DenyReason::queue_full:
      return "queue full";
    case DenyReason::invalid_cost:
      return "invalid cost";
    case DenyReason::key_limit:
      return "key limit reached: no room for a new key";
    case DenyReason::unknown_key:
      return "unknown API key";
    case DenyReason::unknown_model:
      return "unknown model";
    case DenyReason::backend_unavailable:
      return "limiter backend unavailable (fail-closed)";
    case DenyReason::backend_error:
      return "limiter backend error";
    case DenyReason::backend_forbidden:
      return "limiter backend refused the credentials or permissions (misconfiguration)";
  }
  return "unknown";
}

}  // namespace limitscope
