#include "core/sources/key_row_figures.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "core/sources/simulation_recorder.h"

namespace limitscope {

void complete_key_rows(std::vector<KeyRow>& rows, const metrics::SeriesStore& store, const ChartView& view,
                       const KeyNames* names) {
  using Id = std::tuple<std::string, std::string, std::string>;  // api_key, tier, model
  std::map<Id, double> peaks;
  auto m = metrics::LabelMatcher::make("__name__", metrics::MatchOp::equal,
                                       std::string(dashboard_series::kKeyRejectedRate));
  const std::vector<metrics::LabelMatcher> ms{*m};
  for (const metrics::SeriesSamples& s : store.select(ms, view.start_ms, view.end_ms)) {
    for (const auto& smp : s.samples) {
      if (std::isnan(smp.value)) continue;  // stale markers
      const Id id{std::string(s.labels.get("api_key")), std::string(s.labels.get("tier")),
                  std::string(s.labels.get("model"))};
      auto [it, fresh] = peaks.try_emplace(id, smp.value);
      if (!fresh) it->second = std::max(it->second, smp.value);
    }
  }
  for (KeyRow& r : rows) {
    if (names != nullptr) r.name = names->display(r.api_key);
    if (auto it = peaks.find(Id{r.api_key, r.tier, r.model}); it != peaks.end()) r.peak_rejected_per_s = it->second;
  }
}

}  // namespace limitscope
