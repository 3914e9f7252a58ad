#pragma once
// Durations in Prometheus's own syntax (prometheus/common model.Duration), as rule files and
// promtool test files write them: units y, w, d, h, m, s, ms, each at most once, largest
// first, integers only ("1h30m", "5m", "10s", "1d", "500ms"); "0" alone is zero.
// This differs from limiter rates' parse_duration ("1.5s" allowed there), on purpose: a rule
// file must mean the same thing to limitscope and to Prometheus.

#include <cstdint>
#include <string>
#include <string_view>

#include "core/common/expected.h"

namespace limitscope::metrics {

/// Parses a Prometheus duration.
/// @param text e.g. "1h30m"; "" is an error, "0" is zero.
/// @return milliseconds (>= 0), or an error quoting the text.
Expected<std::int64_t> parse_prom_duration(std::string_view text);

/// Formats milliseconds as Prometheus does ("1h30m", "0s", "90d", "1w", "500ms"): years and
/// weeks only when they divide exactly, then d, h, m, s, ms. Negative values get a leading "-".
std::string format_prom_duration(std::int64_t ms);

}  // namespace limitscope::metrics
