#include "core/tuner/whatif.h"

#include <algorithm>
#include <optional>

namespace limitscope::tuner {

Expected<WhatIfSeries> whatif_series(const trace::Trace& trace, const LimitParams& params,
                                     int columns, const PricingOptions* pricing) {
  if (Status why = params.validate(); !why.ok()) return make_error("parameters: " + why.error());
  if (columns < 1) return make_error("what-if: columns must be >= 1");
  WhatIfSeries s;
  s.params = params;
  const auto n = static_cast<std::size_t>(columns);
  s.rejected.assign(n, 0);
  s.requests.assign(n, 0);
  std::vector<double> level_sum(n, 0);
  std::optional<SpendTracker> spend;
  if (pricing != nullptr) {
    spend.emplace(trace, *pricing);
    s.spend.assign(n, 0);
    s.max_quota_burn.assign(n, -1);
  }
  if (!trace.events.empty()) {
    s.t0_ns = trace.events.front().t_ns;
    const std::int64_t span = trace.events.back().t_ns - s.t0_ns;
    // Wide enough that the last event falls in the last column.
    s.column_ns = std::max<std::int64_t>(1, span / columns + 1);
  }
  for_each_decision(trace, params, [&](std::size_t i, const Decision& d) {
    const trace::TraceEvent& e = trace.events[i];
    const auto col = std::min(n - 1, static_cast<std::size_t>((e.t_ns - s.t0_ns) / s.column_ns));
    const double dollars = spend ? spend->dollars(i) : 0;
    s.total.add(d.allowed, e.cost, dollars);
    if (spend) {
      if (d.allowed) {
        s.spend[col] += dollars;
        spend->admit(i, dollars);
      }
      s.max_quota_burn[col] = spend->max_quota_burn();
    }
    ++s.requests[col];
    if (!d.allowed) ++s.rejected[col];
    level_sum[col] += d.limit > 0 ? std::clamp(d.remaining / d.limit, 0.0, 1.0) : 0.0;
  });
  if (spend) s.spend_summary = spend->finish();
  s.mean_level.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    s.mean_level[i] = s.requests[i] == 0 ? -1 : level_sum[i] / s.requests[i];
  }
  return s;
}

}  // namespace limitscope::tuner
