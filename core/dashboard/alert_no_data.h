#pragma once
// Which alerts a source outage blinds: an alert instance is "no data" when the series its
// labels select come only from sources that are down (or have gone stale), and keeps its state
// while a live source still feeds it: the free tier's 429 alert from a gateway's /metrics is not
// blinded by Redis going down (docs/live-sources.md, "Outages and fail-open"). And where an
// outage shows on the charts: a no-data band on each chart drawing a metric the source wrote.

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_set>
#include <vector>

#include "core/dashboard/dashboard_snapshot.h"
#include "core/metrics/labels.h"
#include "core/metrics/series_store.h"

namespace limitscope {

/// What one source wrote, and since when it has been down (nullopt: it answers).
struct SourceFeed {
  /// The series the source wrote (a hash set: one lookup per sample appended).
  const std::unordered_set<metrics::Labels, metrics::LabelsHash>* series = nullptr;
  std::optional<std::int64_t> down_since_ms;
};

/// Whether an alert with labels `alert` is about the series `series`: they agree on every
/// label both carry (alertname, rule labels and labels an aggregation dropped are not on the
/// series, so they decide nothing).
bool alert_reads_series(const metrics::Labels& alert, const metrics::Labels& series);

/// When an alert of a rule reading the metrics `reads` went blind: the earliest outage start
/// of a down source that wrote a series it reads, when no source that answers feeds it with a
/// series that is not stale at now_ms. nullopt when a live source feeds it, or no down source
/// does.
std::optional<std::int64_t> alert_blind_since(const metrics::Labels& alert,
                                              const std::vector<std::string>& reads,
                                              const std::map<std::string, SourceFeed>& feeds,
                                              const metrics::SeriesStore& store,
                                              std::int64_t now_ms);

/// Adds to each chart a band per outage of a source that wrote the metric it draws
/// (SourceStatus::metrics); a band still open ends at now_ms. The live session and a playback
/// of its recording draw them alike.
void add_no_data_bands(std::vector<ChartData>& charts, const std::vector<SourceStatus>& sources,
                       std::int64_t now_ms);

}  // namespace limitscope
