#include "core/tuner/replay.h"

#include <algorithm>
#include <deque>
#include <optional>

namespace limitscope::tuner {

namespace {

Status check(const trace::Trace& trace, const LimitParams& params) {
  if (Status why = params.validate(); !why.ok()) return make_error("parameters: " + why.error());
  (void)trace;
  return {};
}

}  // namespace

Nanos auto_timeline_step(Nanos span) {
  constexpr std::int64_t kS = 1'000'000'000;
  for (const std::int64_t s :
       {1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200}) {
    if (span.count() / (s * kS) < 200) return Nanos{s * kS};
  }
  // Longer traces: whole days, still under 200 points (spans up to the 9e9 s a trace allows).
  constexpr std::int64_t kDay = 86'400 * kS;
  return Nanos{(span.count() / (200 * kDay) + 1) * kDay};
}

Expected<ReplayResult> replay(const trace::Trace& trace, const LimitParams& params,
                              const ReplayOptions& options) {
  if (Status why = check(trace, params); !why.ok()) return make_error(why.error());
  ReplayResult r;
  r.params = params;
  r.by_key.resize(trace.keys.size());
  r.by_model.resize(trace.models.size());
  r.by_tier.resize(trace.tiers.size());
  std::optional<SpendTracker> spend;
  if (options.pricing != nullptr) spend.emplace(trace, *options.pricing);
  const std::int64_t origin = trace.events.empty() ? 0 : trace.events.front().t_ns;
  const Nanos span{trace.events.empty() ? 0 : trace.events.back().t_ns - origin};
  r.timeline_step =
      options.timeline_step > Nanos{0} ? options.timeline_step : auto_timeline_step(span);
  const std::int64_t step_ns = std::max<std::int64_t>(1, r.timeline_step.count());
  if (!trace.events.empty()) {
    // Bounded: a step that would give over 100,000 points is refused.
    const std::int64_t points = span.count() / step_ns + 1;
    if (points > 100'000) return make_error("timeline step too small: over 100,000 points");
    r.timeline.resize(static_cast<std::size_t>(points));
    for (std::size_t p = 0; p < r.timeline.size(); ++p) {
      r.timeline[p].t_s = static_cast<double>(static_cast<std::int64_t>(p) * step_ns) / 1e9;
    }
  }
  std::vector<std::int64_t> point_day(r.timeline.size(), INT64_MIN);  // day of its last event
  std::deque<std::int64_t> window;  // times of admitted requests in the last second
  double largest_cost = 0;
  for_each_decision(trace, params, [&](std::size_t i, const Decision& d) {
    const trace::TraceEvent& e = trace.events[i];
    largest_cost = std::max(largest_cost, e.cost);
    const double dollars = spend ? spend->dollars(i) : 0;
    r.total.add(d.allowed, e.cost, dollars);
    r.by_key[e.key].add(d.allowed, e.cost, dollars);
    r.by_model[e.model].add(d.allowed, e.cost, dollars);
    r.by_tier[e.tier].add(d.allowed, e.cost, dollars);
    const auto p = static_cast<std::size_t>((e.t_ns - origin) / step_ns);
    TimelinePoint& point = r.timeline[p];
    point_day[p] = e.t_ns / DailyQuotaBurn::kDayNs;
    if (d.allowed) {
      ++point.admitted;
      point.spend += dollars;
      if (spend) spend->admit(i, dollars);
    } else {
      ++point.rejected;
    }
    if (spend) {
      point.max_quota_burn = spend->max_quota_burn();
      point.keys_over_quota = spend->keys_over_quota();
    }
    if (d.allowed) {
      window.push_back(e.t_ns);
      while (window.front() <= e.t_ns - 1'000'000'000) window.pop_front();
      r.largest_burst_admitted = std::max<std::uint64_t>(r.largest_burst_admitted, window.size());
      const double delay_s = static_cast<double>(d.delay.count()) / 1e9;
      r.total_delay_s += delay_s;
      r.max_delay_s = std::max(r.max_delay_s, delay_s);
    }
  });
  // A step without requests carries the quota burn of the step before (it cannot change),
  // unless a new UTC day began since that step's last request: then nothing is used yet.
  for (std::size_t p = 1; p < r.timeline.size(); ++p) {
    TimelinePoint& point = r.timeline[p];
    if (point.admitted + point.rejected != 0) continue;
    point_day[p] = point_day[p - 1];
    const std::int64_t end_ns = origin + static_cast<std::int64_t>(p + 1) * step_ns - 1;
    if (end_ns / DailyQuotaBurn::kDayNs == point_day[p - 1]) {
      point.max_quota_burn = r.timeline[p - 1].max_quota_burn;
      point.keys_over_quota = r.timeline[p - 1].keys_over_quota;
    }
  }
  if (spend) r.spend = spend->finish();
  if (largest_cost > params.max_cost()) {
    r.warnings.push_back("the largest cost in the trace (" + std::to_string(largest_cost) +
                         ") is above " + params.describe() +
                         "'s maximum: those requests can never be admitted");
  }
  return r;
}

Expected<std::vector<bool>> replay_decisions(const trace::Trace& trace, const LimitParams& params) {
  if (Status why = check(trace, params); !why.ok()) return make_error(why.error());
  std::vector<bool> out(trace.events.size());
  for_each_decision(trace, params, [&](std::size_t i, const Decision& d) { out[i] = d.allowed; });
  return out;
}

}  // namespace limitscope::tuner
