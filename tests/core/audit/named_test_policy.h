#pragma once
// The policy the audit naming tests share: one free tier (token bucket 10 at 1/s), a key named
// acme-prod (sk-acme) and one without a name (sk-anon).

#include <gtest/gtest.h>

#include "core/limiter/policy.h"

namespace limitscope::test {

inline Policy named_test_policy() {
  auto p = parse_policy(R"({
    "tiers": { "free": { "requests": { "algorithm": "token-bucket", "capacity": 10, "refill": "1/s" } } },
    "models": { "m": { "cost": 1 } },
    "keys": { "sk-acme": { "tier": "free", "name": "acme-prod" }, "sk-anon": "free" } })",
                        "test");
  EXPECT_TRUE(p.ok()) << p.error();
  return std::move(p).value();
}

}  // namespace limitscope::test
