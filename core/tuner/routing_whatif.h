#pragma once
// Cost-aware routing what-if (seed 003, section 5): "requests estimated under N tokens go to
// model M". The trace is replayed as it was and with the rule applied, through the same limiter
// setting, and the two are compared: spend in dollars and 429s. A routed request takes model
// M's cost weight (its cost scaled by cost(M) / cost(its model), both from the policy) and M's
// price; its tokens stay as they were (the same prompt and completion, another model).

#include <cstdint>
#include <string>

#include "core/common/expected.h"
#include "core/limiter/limit_params.h"
#include "core/limiter/policy.h"
#include "core/trace/trace.h"
#include "core/tuner/pricing.h"
#include "core/tuner/replay.h"

namespace limitscope::tuner {

struct RoutingRule {
  std::uint32_t under_tokens = 0;  ///< requests with fewer estimated tokens are routed
  std::string to_model;            ///< to this model (must be in the policy)
};

struct RoutingWhatIf {
  LimitParams params;
  RoutingRule rule;
  Counts as_was;                      ///< the trace as it was
  Counts routed;                      ///< with the rule
  std::uint64_t requests_routed = 0;  ///< requests the rule moved to another model
  std::uint64_t without_tokens = 0;   ///< requests with no token estimate (never routed)
  double spend_saved = 0;             ///< as_was.admitted_spend - routed.admitted_spend (dollars)
  std::int64_t extra_429s = 0;        ///< routed.rejected - as_was.rejected
  bool priced = false;
};

/// The routed copy of `trace`: events under the rule's token count on another model get
/// `rule.to_model`, their cost scaled by the policy's cost weights. Errors: a model not in
/// the policy. `routed` and `without_tokens` count what it did.
Expected<trace::Trace> route_trace(const trace::Trace& trace, const RoutingRule& rule,
                                   const Policy& policy, std::optional<double> tokens_per_request,
                                   std::uint64_t& routed, std::uint64_t& without_tokens);

/// Replays the trace as it was and routed, with `params` and the prices of `pricing`.
Expected<RoutingWhatIf> whatif_routing(const trace::Trace& trace, const LimitParams& params,
                                       const RoutingRule& rule, const PricingOptions& pricing);

}  // namespace limitscope::tuner
