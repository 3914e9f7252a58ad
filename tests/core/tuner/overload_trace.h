#pragma once
// The steady overload the outage what-if and its table are tested on: one key asking 10
// requests/s from 13:50 UTC on 2026-12-01, against a limit of 1/s (a bucket of capacity 10
// refilling 1/s), and the what-if of an outage in it on two replicas, priced at the default
// policy's prices.

#include <cstdint>
#include <string_view>

#include "core/limiter/policy.h"
#include "core/trace/trace.h"
#include "core/tuner/outage_whatif.h"
#include "support/limit_params_builders.h"
#include "support/must.h"

namespace limitscope::test {

inline constexpr std::int64_t kOverloadDay = 1'796'083'200'000'000'000;  // 2026-12-01 00:00 UTC, ns
inline constexpr std::int64_t kOverload14h = kOverloadDay + 14LL * 3600 * 1'000'000'000;

/// "tenant-a" asking 10 requests/s of `tokens` LLM tokens each on gpt-4.1, from 13:50 to
/// `end_ns` (ns since the epoch).
inline trace::Trace overload_until(std::int64_t end_ns, std::uint32_t tokens = 1000) {
  trace::Trace t;
  for (std::int64_t ns = kOverload14h - 600'000'000'000; ns < end_ns; ns += 100'000'000) {
    t.add(ns, "tenant-a", 1, "gpt-4.1", "", tokens);
  }
  return t;
}

/// The outage what-if over `t` of the limit of 1/s, the outage `window` as --outage takes it
/// ("10m@14:00"), on two replicas, priced at the default policy's prices.
inline Expected<tuner::OutageWhatIf> priced_outage(const trace::Trace& t, std::string_view window) {
  const tuner::PricingOptions pricing{&default_policy(), std::nullopt};
  tuner::OutageOptions o;
  o.window = must(tuner::parse_outage(window, t));
  o.replicas = 2;
  o.pricing = &pricing;
  return tuner::whatif_outage(t, bucket(Algorithm::token_bucket, 10, 1), o);
}

}  // namespace limitscope::test
