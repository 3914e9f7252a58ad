// Verifies how the Redis gateway picks the API keys whose decisions it logs: none at 0, all at
// 1, close to the fraction in between, the keys of a smaller fraction among those of a larger
// one (raising the fraction only adds keys), and a malformed hash is never sampled.
#include <gtest/gtest.h>

#include <string>

#include "core/common/sha256.h"
#include "core/gateway/redis_admission.h"

namespace limitscope::gateway {
namespace {

TEST(DecisionLogSampling, TheFractionOfKeysIsKeptAndGrowsMonotonically) {
  constexpr int kKeys = 4000;
  int at_tenth = 0, at_half = 0, at_zero = 0, at_one = 0;
  for (int k = 0; k < kKeys; ++k) {
    const std::string h = sha256_hex("key-" + std::to_string(k));
    const bool tenth = decision_logged(h, 0.1);
    const bool half = decision_logged(h, 0.5);
    at_tenth += tenth;
    at_half += half;
    at_zero += decision_logged(h, 0);
    at_one += decision_logged(h, 1);
    if (tenth) {
      EXPECT_TRUE(half) << "key-" << k << ": a key sampled at 0.1 is sampled at 0.5";
    }
  }
  EXPECT_EQ(at_zero, 0);
  EXPECT_EQ(at_one, kKeys);
  // Binomial: the standard deviation is 19 at 0.1 and 32 at 0.5; these bounds are > 5 of them.
  EXPECT_NEAR(at_tenth, kKeys / 10, 100);
  EXPECT_NEAR(at_half, kKeys / 2, 160);
}

TEST(DecisionLogSampling, TheHashDecidesAndAMalformedOneIsNotSampled) {
  EXPECT_TRUE(decision_logged("00000000ffff", 0.001));
  EXPECT_FALSE(decision_logged("ffffffff0000", 0.999));
  EXPECT_TRUE(decision_logged("7fffffff", 0.5));
  EXPECT_FALSE(decision_logged("80000000", 0.5));
  EXPECT_FALSE(decision_logged("zz", 0.5));
  EXPECT_FALSE(decision_logged("", 0.5));
  EXPECT_FALSE(decision_logged("00000000", -1));
  EXPECT_TRUE(decision_logged("", 1)) << "everything is logged at 1, hash or not";
}

}  // namespace
}  // namespace limitscope::gateway
