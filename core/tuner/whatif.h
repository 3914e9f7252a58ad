#pragma once
// The what-if view of one setting over a trace, ready to draw: the trace's time span cut into
// `columns` equal columns (one per pixel column of the chart, or fewer), and per column the
// 429s the setting gives, the level requests found and, with prices, the dollars admitted and
// the highest key's daily quota burn. The Tuner draws the candidate's series
// against the current setting's; when only the candidate moves, only its series is computed.

#include <cstdint>
#include <vector>

#include "core/common/expected.h"
#include "core/limiter/limit_params.h"
#include "core/trace/trace.h"
#include "core/tuner/replay.h"

namespace limitscope::tuner {

struct WhatIfSeries {
  LimitParams params;
  std::int64_t t0_ns = 0;      ///< the first event's time
  std::int64_t column_ns = 1;  ///< width of one column, ns (>= 1)
  /// 429s (rejected requests) per column; they sum to the replay's total.rejected.
  std::vector<std::uint32_t> rejected;
  /// Requests per column (admitted + rejected).
  std::vector<std::uint32_t> requests;
  /// Mean level (remaining / limit after the decision, 0..1) over the requests of a column,
  /// all keys together; -1 for a column without requests.
  std::vector<double> mean_level;
  Counts total;  ///< equal to replay(trace, params).total
  /// With prices: dollars admitted per column, and the highest key's daily quota burn at the
  /// column's end (-1 for a column without requests); empty without prices.
  std::vector<double> spend;
  std::vector<double> max_quota_burn;
  SpendSummary spend_summary;  ///< as replay()'s with the same prices

  /// The start of column i, seconds since the first event.
  double column_start_s(std::size_t i) const {
    return static_cast<double>(static_cast<std::int64_t>(i) * column_ns) / 1e9;
  }
};

/// Replays the trace with `params` (one state per key, the core's decide(), exactly as
/// replay()) and folds the decisions into columns.
/// @param columns >= 1
/// @param pricing prices and quotas, or nullptr for counts and levels only
/// @return the series, or an error naming the invalid parameter
Expected<WhatIfSeries> whatif_series(const trace::Trace& trace, const LimitParams& params,
                                     int columns, const PricingOptions* pricing = nullptr);

}  // namespace limitscope::tuner
