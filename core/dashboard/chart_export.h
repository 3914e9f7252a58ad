#pragma once
// Exports what the charts show as CSV: the raw samples of every drawn series in the visible
// window (not the decimated points), so a post-incident review has every value.

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "core/dashboard/dashboard_charts.h"
#include "core/metrics/series_store.h"

namespace limitscope {

/// One CSV field (RFC 4180): quoted, with quotes doubled, when it holds a comma, a quote or a
/// line break; as is otherwise.
std::string csv_field(const std::string& s);

/// Writes `chart,series,time_ms,value` rows (header first) for each line of each chart, its
/// samples in [start_ms, end_ms] in time order. Values use the shortest exact decimal form.
/// @return rows written (header excluded)
std::size_t write_chart_csv(std::ostream& out, const metrics::SeriesStore& store,
                            const std::vector<ChartData>& charts, std::int64_t start_ms,
                            std::int64_t end_ms);

}  // namespace limitscope
