#include "core/gateway/admission.h"

#include <utility>

namespace limitscope::gateway {

AdmissionResult resolve_under(std::shared_ptr<const Policy> policy,
                              const AdmissionRequest& request) {
  AdmissionResult out;
  out.policy = std::move(policy);
  const Policy& p = *out.policy;
  out.tier = p.tier_for_key(request.api_key);
  if (auto m = p.model_index(request.model)) out.model = &p.models[*m];
  return out;
}

}  // namespace limitscope::gateway
