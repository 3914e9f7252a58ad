#pragma once
// Logged decisions of a rule made by the real limiter script (as the gateway's --log-decisions
// makes them), for tests that read the decision stream.

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

#include "core/redis/redis_limiter.h"

namespace limitscope::test {

/// `n` logged decisions of `key` on `rule` (with a model and token count when given).
/// @return how many the live config refused; throws with the reason when a decision fails
inline int decide_logged(redis::Connection& c, const std::string& rule, const std::string& key,
                         int n, const std::string& model = {},
                         std::optional<std::uint32_t> tokens = std::nullopt) {
  const redis::RedisLimiter limiter;
  int refused = 0;
  for (int i = 0; i < n; ++i) {
    redis::DecideRequest r;
    r.key = key;
    r.log = true;
    r.model = model;
    r.llm_tokens = tokens;
    auto d = limiter.decide(c, rule, r);
    if (!d) throw std::runtime_error(d.error().message);
    if (!d->decision.allowed) ++refused;
  }
  return refused;
}

}  // namespace limitscope::test
