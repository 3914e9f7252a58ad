#include "core/tuner/outage_whatif.h"

#include <cstdio>
#include <optional>

#include "core/limiter/algorithms.h"
#include "core/limiter/rate.h"

namespace limitscope::tuner {

namespace {

constexpr std::int64_t kDayNs = 86'400LL * 1'000'000'000;

// The parameters of one replica's local limiter: 1/n of the shared one.
LimitParams share_of(LimitParams p, int n) {
  const double f = 1.0 / n;
  p.capacity *= f;
  p.refill.amount *= f;
  p.limit *= f;
  return p;
}

Counts replay_mode(const trace::Trace& trace, const LimitParams& params, const OutageOptions& o,
                   std::optional<OutageMode> mode, const Pricing* pricing, Counts& in_outage) {
  Counts total;
  const LimitParams local = share_of(params, o.replicas);
  visit_algorithm(params.algorithm, [&](auto algo) {
    using A = decltype(algo);
    std::vector<std::optional<typename A::State>> shared(trace.keys.size());
    // local fallback: one state per (key, replica), and the next replica of each key
    std::vector<std::optional<typename A::State>> locals;
    std::vector<std::uint32_t> next_replica;
    if (mode == OutageMode::local_fallback) {
      locals.resize(trace.keys.size() * static_cast<std::size_t>(o.replicas));
      next_replica.resize(trace.keys.size());
    }
    for (std::size_t i = 0; i < trace.events.size(); ++i) {
      const trace::TraceEvent& e = trace.events[i];
      const Nanos now{e.t_ns};
      const bool out = e.t_ns >= o.window.start_ns && e.t_ns < o.window.end_ns;
      bool allowed = false;
      if (!out || !mode) {
        auto& s = shared[e.key];
        if (!s) s = A::fresh(params, now);
        allowed = A::decide(params, *s, now, e.cost).allowed;
      } else if (*mode == OutageMode::fail_open) {
        allowed = true;
      } else if (*mode == OutageMode::local_fallback) {
        const std::uint32_t r = next_replica[e.key]++ % static_cast<std::uint32_t>(o.replicas);
        auto& s = locals[e.key * static_cast<std::size_t>(o.replicas) + r];
        if (!s) s = A::fresh(local, now);
        allowed = A::decide(local, *s, now, e.cost).allowed;
      }
      const double dollars = pricing != nullptr ? pricing->dollars(trace, i) : 0;
      total.add(allowed, e.cost, dollars);
      if (out) in_outage.add(allowed, e.cost, dollars);
    }
  });
  return total;
}

}  // namespace

std::string_view to_string(OutageMode m) {
  switch (m) {
    case OutageMode::fail_open:
      return "fail-open";
    case OutageMode::fail_closed:
      return "fail-closed";
    case OutageMode::local_fallback:
      return "local-fallback";
  }
  return "?";
}

Expected<OutageWindow> parse_outage(std::string_view text, const trace::Trace& trace) {
  const std::string shown = "--outage " + std::string(text);
  const auto at = text.find('@');
  if (at == std::string_view::npos) {
    return make_error(shown + ": expected DURATION@HH:MM or DURATION@+OFFSET, e.g. 10m@14:00");
  }
  auto length = parse_duration(text.substr(0, at));
  if (!length) return make_error(shown + ": " + length.error());
  if (length->count() <= 0) return make_error(shown + ": the duration must be > 0");
  if (trace.events.empty()) return make_error(shown + ": the trace has no requests");
  const std::int64_t first = trace.events.front().t_ns;
  const std::int64_t last = trace.events.back().t_ns;
  const std::string_view when = text.substr(at + 1);
  std::int64_t start = 0;
  if (!when.empty() && when[0] == '+') {
    auto offset = parse_duration(when.substr(1));
    if (!offset) return make_error(shown + ": " + offset.error());
    start = first + offset->count();
  } else {
    int hh = -1;
    int mm = -1;
    if (when.size() != 5 || when[2] != ':' ||
        std::sscanf(std::string(when).c_str(), "%2d:%2d", &hh, &mm) != 2 || hh < 0 || hh > 23 ||
        mm < 0 || mm > 59) {
      return make_error(shown + ": \"" + std::string(when) + "\" is not a UTC time of day HH:MM");
    }
    const std::int64_t day = first - ((first % kDayNs) + kDayNs) % kDayNs;
    start = day + (hh * 3600LL + mm * 60LL) * 1'000'000'000;
    if (start < first) start += kDayNs;
  }
  if (start > last) return make_error(shown + ": starts after the trace's last request");
  return OutageWindow{start, start + length->count()};
}

Expected<OutageWhatIf> whatif_outage(const trace::Trace& trace, const LimitParams& params,
                                     const OutageOptions& options) {
  if (Status why = params.validate(); !why.ok()) return make_error("parameters: " + why.error());
  if (options.replicas < 1)
    return make_error("replicas: must be >= 1, got " + std::to_string(options.replicas));
  std::optional<Pricing> pricing;
  if (options.pricing != nullptr && options.pricing->policy != nullptr) {
    pricing = Pricing::for_trace(trace, *options.pricing);
  }
  const Pricing* prices = pricing && pricing->priced() ? &*pricing : nullptr;
  OutageWhatIf out;
  out.params = params;
  out.window = options.window;
  out.replicas = options.replicas;
  out.priced = prices != nullptr;
  out.baseline = replay_mode(trace, params, options, std::nullopt, prices, out.baseline_in_outage);
  for (OutageMode m :
       {OutageMode::fail_open, OutageMode::fail_closed, OutageMode::local_fallback}) {
    OutageModeResult r;
    r.mode = m;
    r.total = replay_mode(trace, params, options, m, prices, r.in_outage);
    r.over_admitted_cost = r.total.admitted_cost - out.baseline.admitted_cost;
    r.over_admitted_requests = static_cast<std::int64_t>(r.total.admitted) -
                               static_cast<std::int64_t>(out.baseline.admitted);
    r.extra_spend = r.total.admitted_spend - out.baseline.admitted_spend;
    out.modes.push_back(r);
  }
  return out;
}

}  // namespace limitscope::tuner
