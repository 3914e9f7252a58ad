// Verifies that --max-keys cannot lock out a listed key (label e2e; a real limitscope-gateway):
// with a default_tier, random unlisted keys fill the cap and are refused past it (503
// key_capacity_exceeded), while every key listed in the policy still gets its decision.

#include <gtest/gtest.h>
#include <httplib.h>

#include <string>

#include "e2e/e2e_policy.h"
#include "support/child_process.h"
#include "support/process.h"

namespace limitscope::test {
namespace {

TEST(GatewayKeyCapE2E, UnlistedKeysFillingMaxKeysDoNotLockOutListedKeys) {
  std::string policy_json = e2e_policy_json(50);
  const std::string keys = R"("keys": {)";
  const auto at = policy_json.find(keys);
  ASSERT_NE(at, std::string::npos);
  policy_json.insert(at, R"("default_tier": "free", )");
  const std::string policy = write_temp("e2e_key_cap.json", policy_json);
  GatewayProcess gw({"--policy", policy, "--mock-upstream", "--max-keys", "4"});
  ASSERT_TRUE(gw.running());
  int refused = 0;
  for (int i = 0; i < 12; ++i) {
    const int status = e2e_post_status(gw, "random-unlisted-" + std::to_string(i));
    EXPECT_TRUE(status == 200 || status == 503) << status;
    if (status == 503) ++refused;
  }
  EXPECT_GE(refused, 8) << "the cap holds for unlisted keys";
  for (const char* listed : {"pro-key", "enterprise-bank", "free-hobbyist", "loop-bot"}) {
    EXPECT_EQ(e2e_post_status(gw, listed), 200) << listed << " was locked out by unlisted keys";
  }
}

}  // namespace
}  // namespace limitscope::test
