// libFuzzer target for policy files (core/limiter/policy): any bytes either fail with a message
// or give a policy whose keys, default tier and model lookups all point at entries that exist.
// seed-corpus: tests/data/fuzz/policy
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "core/limiter/policy.h"
#include "fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 16384) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto policy = limitscope::parse_policy(text, "fuzz.json");
  if (!policy.ok()) {
    check(!policy.error().empty());
    return 0;
  }
  const limitscope::Policy& p = *policy;
  check(!p.tiers.empty());
  if (p.default_tier) check(*p.default_tier < p.tiers.size());
  for (std::size_t i = 0; i < p.tiers.size(); ++i) {
    const auto& t = p.tiers[i];
    check(!t.name.empty());
    check(p.tier_index(t.name) == i);
    check(std::isfinite(t.requests.capacity) && t.requests.capacity >= 0);
    if (t.daily_quota) check(std::isfinite(*t.daily_quota) && *t.daily_quota >= 0);
  }
  for (const auto& [key, index] : p.keys) {
    check(index < p.tiers.size());
    check(p.tier_for_key(key) == &p.tiers[index]);
  }
  for (const auto& m : p.models) {
    check(std::isfinite(m.cost) && m.cost >= 0);
    auto found = p.model(m.name);
    check(found.ok() && (*found)->name == m.name);
  }
  return 0;
}
