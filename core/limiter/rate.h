#pragma once
// Rates always carry a unit ("100/min", "50/s", "1000/h"): per-second vs per-minute confusion
// is the most common limiter misconfiguration, so a bare number is refused.

#include <string>
#include <string_view>

#include "core/common/clock.h"
#include "core/common/expected.h"

namespace limitscope {

struct Rate {
  double amount = 0;            // cost units
  Nanos period{1'000'000'000};  // per this much time

  double per_second() const { return amount * 1e9 / static_cast<double>(period.count()); }
  /// Nanoseconds per cost unit (GCRA's emission interval T), as a double.
  double interval_ns() const { return static_cast<double>(period.count()) / amount; }
  /// Canonical text, e.g. "50/s", "100/min", "2.5/h".
  std::string to_string() const;

  static Rate per_sec(double amount) { return Rate{amount, Nanos{1'000'000'000}}; }
};

/// Parses "N/unit" where unit is ms, s, sec, second, m, min, minute, h, hour, d, day, or a
/// duration such as "10s" / "5m" ("100/10s"). N must be finite and > 0.
Expected<Rate> parse_rate(std::string_view text);

/// Parses a duration: "500ms", "60s", "5m", "1h", "1d", "1.5s". Must be > 0.
Expected<Nanos> parse_duration(std::string_view text);

/// "60s", "5m", "1h", "250ms": the shortest exact spelling.
std::string format_duration(Nanos d);

}  // namespace limitscope
