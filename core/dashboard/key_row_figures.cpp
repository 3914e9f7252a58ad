#include "core/dashboard/key_row_figures.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "core/metrics/metric_names.h"

namespace limitscope {

namespace {

// api_key, tier, model; a row says its tier ("free") where the series says the gateway's
// rule ("gw-free")
using Id = std::tuple<std::string, std::string, std::string>;

// Each key's highest value and its integral (each sample is a rate over the step before it)
// of the per-key rate series `name` in the view.
void rate_figures(const metrics::SeriesStore& store, std::string_view name, const ChartView& view,
                  std::map<Id, double>& peaks, std::map<Id, double>& counts) {
  auto m = metrics::LabelMatcher::make("__name__", metrics::MatchOp::equal, std::string(name));
  const std::vector<metrics::LabelMatcher> ms{*m};
  for (const metrics::SeriesSamples& s : store.select(ms, view.start_ms, view.end_ms)) {
    const Id id{std::string(s.labels.get("api_key")),
                std::string(tier_of_rule(s.labels.get("tier"))),
                std::string(s.labels.get("model"))};
    std::optional<std::int64_t> before;
    for (const auto& smp : s.samples) {
      if (std::isnan(smp.value)) {  // a stale marker: the next sample starts over
        before.reset();
        continue;
      }
      auto [it, fresh] = peaks.try_emplace(id, smp.value);
      if (!fresh) it->second = std::max(it->second, smp.value);
      if (before) counts[id] += smp.value * static_cast<double>(smp.t_ms - *before) / 1000.0;
      before = smp.t_ms;
    }
  }
}

}  // namespace

void complete_key_rows(std::vector<KeyRow>& rows, const metrics::SeriesStore& store,
                       const ChartView& view, const KeyNames* names) {
  std::map<Id, double> peaks, counts, shadow_peaks, shadow_counts;
  rate_figures(store, dashboard_series::kKeyRejectedRate, view, peaks, counts);
  rate_figures(store, dashboard_series::kKeyShadowWouldRefuseRate, view, shadow_peaks,
               shadow_counts);
  for (KeyRow& r : rows) {
    if (names != nullptr) r.name = names->display(r.api_key);
    const Id id{r.api_key, std::string(tier_of_rule(r.tier)), r.model};
    if (auto it = peaks.find(id); it != peaks.end()) r.peak_rejected_per_s = it->second;
    if (auto it = counts.find(id); it != counts.end()) r.rejected_in_view = std::round(it->second);
    if (auto it = shadow_counts.find(id); it != shadow_counts.end()) {
      r.shadow_would_refuse_in_view = std::round(it->second);
    }
  }
}

}  // namespace limitscope
