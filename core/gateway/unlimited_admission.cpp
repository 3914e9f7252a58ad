#include "core/gateway/unlimited_admission.h"

namespace limitscope::gateway {
namespace {

Decision full(const LimitParams& p) {
  Decision d;
  d.allowed = true;
  d.limit = p.max_cost();
  d.remaining = p.max_cost();
  return d;
}

}  // namespace

UnlimitedAdmission::UnlimitedAdmission(Policy policy)
    : policy_(std::make_shared<const Policy>(std::move(policy))) {}

std::shared_ptr<const Policy> UnlimitedAdmission::policy() const {
  std::lock_guard lock(mu_);
  return policy_;
}

Status UnlimitedAdmission::set_policy(Policy policy, Nanos) {
  auto next = std::make_shared<const Policy>(std::move(policy));
  std::lock_guard lock(mu_);
  policy_ = std::move(next);
  return {};
}

AdmissionResult UnlimitedAdmission::admit(const AdmissionRequest& request) {
  AdmissionResult out = resolve_under(policy(), request);
  if (out.tier == nullptr) {
    out.requests.reason = DenyReason::unknown_key;
    out.denied_by = DeniedBy::requests;
    return out;
  }
  if (out.model == nullptr) {
    out.requests = full(out.tier->requests);
    out.requests.allowed = false;
    out.requests.reason = DenyReason::unknown_model;
    out.denied_by = DeniedBy::requests;
    return out;
  }
  out.cost = out.model->cost;
  out.requests = full(out.tier->requests);
  if (out.tier->llm_tokens) out.llm_tokens = full(*out.tier->llm_tokens);
  out.allowed = true;
  return out;
}

}  // namespace limitscope::gateway
