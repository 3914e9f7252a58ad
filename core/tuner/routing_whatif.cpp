#include "core/tuner/routing_whatif.h"

#include <cmath>
#include <vector>

namespace limitscope::tuner {

Expected<trace::Trace> route_trace(const trace::Trace& trace, const RoutingRule& rule,
                                   const Policy& policy, std::optional<double> tokens_per_request,
                                   std::uint64_t& routed, std::uint64_t& without_tokens) {
  auto target_cost = policy.model_cost(rule.to_model);
  if (!target_cost) return make_error("--to " + rule.to_model + ": " + target_cost.error());
  trace::Trace out = trace;
  const std::uint16_t target = out.model_id(rule.to_model);
  // Cost weight of each trace model in the policy; 0 when the policy does not know it.
  std::vector<double> weight(trace.models.size(), 0);
  for (std::size_t m = 0; m < trace.models.size(); ++m) {
    if (auto c = policy.model_cost(trace.models[m])) weight[m] = *c;
  }
  routed = 0;
  without_tokens = 0;
  for (std::size_t i = 0; i < out.events.size(); ++i) {
    trace::TraceEvent& e = out.events[i];
    std::optional<double> tokens;
    if (auto t = trace.tokens_of(i)) tokens = static_cast<double>(*t);
    if (!tokens) tokens = tokens_per_request;
    if (!tokens) {
      ++without_tokens;
      continue;
    }
    if (*tokens >= rule.under_tokens || e.model == target) continue;
    // A model the policy does not know keeps its cost: the trace's cost is all we have.
    if (weight[e.model] > 0) e.cost = e.cost * *target_cost / weight[e.model];
    e.model = target;
    ++routed;
  }
  return out;
}

Expected<RoutingWhatIf> whatif_routing(const trace::Trace& trace, const LimitParams& params,
                                       const RoutingRule& rule, const PricingOptions& pricing) {
  if (pricing.policy == nullptr)
    return make_error("routing needs a policy (model costs and prices)");
  RoutingWhatIf out;
  out.params = params;
  out.rule = rule;
  auto routed_trace = route_trace(trace, rule, *pricing.policy, pricing.tokens_per_request,
                                  out.requests_routed, out.without_tokens);
  if (!routed_trace) return make_error(routed_trace.error());
  ReplayOptions o;
  o.pricing = &pricing;
  auto before = replay(trace, params, o);
  if (!before) return make_error(before.error());
  auto after = replay(*routed_trace, params, o);
  if (!after) return make_error(after.error());
  out.as_was = before->total;
  out.routed = after->total;
  out.priced = before->spend.priced || after->spend.priced;
  out.spend_saved = out.as_was.admitted_spend - out.routed.admitted_spend;
  out.extra_429s = static_cast<std::int64_t>(out.routed.rejected) -
                   static_cast<std::int64_t>(out.as_was.rejected);
  return out;
}

}  // namespace limitscope::tuner
