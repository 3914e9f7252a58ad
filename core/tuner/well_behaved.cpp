#include "core/tuner/well_behaved.h"

#include <algorithm>

namespace limitscope::tuner {

std::vector<bool> well_behaved_keys(const trace::Trace& trace, double factor) {
  std::vector<double> cost(trace.keys.size(), 0);
  for (const trace::TraceEvent& e : trace.events) cost[e.key] += e.cost;
  std::vector<bool> out(cost.size(), true);
  if (cost.size() < 3) return out;
  // The same span for every key, so comparing cost totals compares mean rates.
  std::vector<double> sorted = cost;
  std::nth_element(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(sorted.size() / 2),
                   sorted.end());
  const double median = sorted[sorted.size() / 2];
  for (std::size_t k = 0; k < cost.size(); ++k) out[k] = cost[k] <= factor * median;
  return out;
}

trace::Trace restrict_to_keys(const trace::Trace& trace, const std::vector<bool>& keep) {
  trace::Trace out;
  for (std::size_t i = 0; i < trace.events.size(); ++i) {
    const trace::TraceEvent& e = trace.events[i];
    if (!keep[e.key]) continue;
    out.add(e.t_ns, trace.keys[e.key], e.cost, trace.models[e.model], trace.tiers[e.tier],
            trace.tokens_of(i));
  }
  return out;
}

Expected<GuidedSweep> sweep_with_well_behaved(const trace::Trace& trace, const SweepSpec& spec,
                                              double factor, const std::atomic<bool>* cancel,
                                              const std::function<void(double)>& progress) {
  GuidedSweep g;
  g.keys = trace.keys.size();
  const auto half = [&](double base) {
    return progress ? std::function<void(double)>([&, base](double f) { progress(base + f / 2); })
                    : std::function<void(double)>{};
  };
  auto all = sweep(trace, spec, cancel, half(0));
  if (!all) return make_error(all.error());
  g.all = std::move(*all);
  const auto keep = well_behaved_keys(trace, factor);
  g.well_behaved_keys = static_cast<std::size_t>(std::count(keep.begin(), keep.end(), true));
  const trace::Trace sub = restrict_to_keys(trace, keep);
  if (sub.events.empty()) {
    g.well_behaved.cells = g.all.cells;
    for (auto& c : g.well_behaved.cells) c.total = {}, c.worst_key_429 = 0;
  } else {
    auto wb = sweep(sub, spec, cancel, half(0.5));
    if (!wb) return make_error(wb.error());
    g.well_behaved = std::move(*wb);
  }
  if (progress) progress(1.0);
  return g;
}

Recommendation recommend(const GuidedSweep& g, const OperatorConstraints& c) {
  Recommendation r = recommend(g.all, Constraints{});
  r.best.reset();
  const auto& cells = g.all.cells;
  for (std::size_t i = 0; i < cells.size(); ++i) {
    const bool ok = meets(g.all, cells[i], c.core) &&
                    (!c.max_well_behaved_429 ||
                     g.well_behaved.cells[i].total.ratio_429() <= *c.max_well_behaved_429);
    if (ok && (!r.best || cell_cheapness(g.all, cells[i]) < cell_cheapness(g.all, cells[*r.best])))
      r.best = i;
  }
  return r;
}

}  // namespace limitscope::tuner
