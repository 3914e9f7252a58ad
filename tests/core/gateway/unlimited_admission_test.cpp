// Verifies the limiter-off backend: every known request admitted at full capacity, unknown keys and
// models still refused, reload replaces the policy.

#include "core/gateway/unlimited_admission.h"

#include <gtest/gtest.h>

namespace limitscope::gateway {
namespace {

TEST(UnlimitedAdmission, AdmitsKnownRefusesUnknown) {
  Policy p = default_policy();
  p.default_tier.reset();
  UnlimitedAdmission a(p);
  for (int i = 0; i < 1000; ++i) {
    auto r = a.admit(AdmissionRequest{"demo-free-1", "gpt-4.1", 100, Nanos{0}});
    ASSERT_TRUE(r.allowed);
    EXPECT_EQ(r.requests.remaining, 60);
    ASSERT_TRUE(r.llm_tokens.has_value());
  }
  EXPECT_EQ(a.admit(AdmissionRequest{"stranger", "gpt-4.1", 1, Nanos{0}}).requests.reason,
            DenyReason::unknown_key);
  EXPECT_EQ(a.admit(AdmissionRequest{"demo-free-1", "nope", 1, Nanos{0}}).requests.reason,
            DenyReason::unknown_model);
  p.default_tier = p.tier_index("pro");
  EXPECT_EQ(a.set_policy(p, Nanos{0}), Status{});
  EXPECT_EQ(a.admit(AdmissionRequest{"stranger", "gpt-4.1", 1, Nanos{0}}).tier->name, "pro");
  EXPECT_EQ(a.name(), "off");
}

}  // namespace
}  // namespace limitscope::gateway
