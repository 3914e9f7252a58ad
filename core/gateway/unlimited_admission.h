#pragma once
// AdmissionBackend that limits nothing: the key's tier and the model still come from the
// policy (unknown keys and models are still refused), every known request is admitted and
// its rules report full capacity. For `limitscope-gateway --limiter off`: the baseline the
// benchmark compares the in-process limiter against, and a way to watch traffic unlimited.

#include <atomic>
#include <memory>
#include <mutex>

#include "core/gateway/admission.h"

namespace limitscope::gateway {

class UnlimitedAdmission final : public AdmissionBackend {
 public:
  explicit UnlimitedAdmission(Policy policy);
  AdmissionResult admit(const AdmissionRequest& request) override;
  bool settle(std::string_view, std::string_view, double, Nanos) override { return true; }
  Status set_policy(Policy policy, Nanos now) override;
  std::shared_ptr<const Policy> policy() const override;
  std::string_view name() const override { return "off"; }

 private:
  mutable std::mutex mu_;
  std::shared_ptr<const Policy> policy_;  // replaced whole on reload; readers keep theirs
};

}  // namespace limitscope::gateway
