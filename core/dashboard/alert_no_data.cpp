#include "core/dashboard/alert_no_data.h"

#include <algorithm>
#include <limits>

namespace limitscope {

bool alert_reads_series(const metrics::Labels& alert, const metrics::Labels& series) {
  for (const auto& [name, value] : series.pairs()) {
    if (name == "__name__" || !alert.has(name)) continue;
    if (alert.get(name) != value) return false;
  }
  return true;
}

std::optional<std::int64_t> alert_blind_since(const metrics::Labels& alert,
                                              const std::vector<std::string>& reads,
                                              const std::map<std::string, SourceFeed>& feeds,
                                              const metrics::SeriesStore& store,
                                              std::int64_t now_ms) {
  std::optional<std::int64_t> since;
  for (const std::string& metric : reads) {
    const auto name = metrics::LabelMatcher::make("__name__", metrics::MatchOp::equal, metric);
    if (!name) continue;
    const std::vector<metrics::LabelMatcher> matchers{*name};
    // Whole history: a series of a source down for an hour is still what the alert read.
    for (const metrics::SeriesSamples& s :
         store.select_latest(matchers, std::numeric_limits<std::int64_t>::min(), now_ms)) {
      if (!alert_reads_series(alert, s.labels)) continue;
      const bool fresh = !s.samples.empty() && !metrics::is_stale_marker(s.samples.back().value);
      for (const auto& [source, feed] : feeds) {
        if (feed.series == nullptr || feed.series->find(s.labels) == feed.series->end()) continue;
        if (!feed.down_since_ms) {
          if (fresh) return std::nullopt;  // a source that answers still feeds it
          continue;
        }
        since = since ? std::min(*since, *feed.down_since_ms) : *feed.down_since_ms;
      }
    }
  }
  return since;
}

void add_no_data_bands(std::vector<ChartData>& charts, const std::vector<SourceStatus>& sources,
                       std::int64_t now_ms) {
  for (ChartData& c : charts) {
    const std::string_view metric = chart_metric(c.kind);
    for (const SourceStatus& src : sources) {
      if (std::find(src.metrics.begin(), src.metrics.end(), metric) == src.metrics.end()) continue;
      for (const auto& o : src.outages) {
        if (o.start_ms > now_ms) continue;
        const bool open = !o.end_ms || *o.end_ms > now_ms;
        c.no_data.push_back(NoDataBand{src.kind, o.start_ms, open ? now_ms : *o.end_ms, open});
      }
    }
  }
}

}  // namespace limitscope
