#pragma once
// Traffic traces, what the Tuner replays and the load generator plays: one event per request
// (time, key, cost, model, tier, and the LLM tokens it used when known). Read from JSON lines
// `{"t": <seconds>, "key": "...", "cost": 1, "model": "...", "tier": "...", "tokens": 1200}`
// (model, tier and tokens optional, cost defaults to 1) or CSV with a header naming the same
// columns. Every problem is reported with its line number: unparsable lines, missing columns
// or fields, negative or non-finite values, and times going backwards. A trace with errors is
// returned together with its errors, and callers refuse it unless the operator chose to skip
// bad lines: it is never silently half-loaded.

#include <cstdint>
#include <istream>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/common/expected.h"

namespace limitscope::trace {

struct TraceEvent {
  std::int64_t t_ns = 0;    ///< request time, ns (the trace's seconds, converted from their text)
  double cost = 1;          ///< cost units, > 0
  std::uint32_t key = 0;    ///< index into Trace::keys
  std::uint16_t model = 0;  ///< index into Trace::models (0 = "")
  std::uint16_t tier = 0;   ///< index into Trace::tiers (0 = "")
};

struct Trace {
  /// A tokens entry for an event whose line gave no token count.
  static constexpr std::uint32_t kNoTokens = UINT32_MAX;

  std::vector<TraceEvent> events;  ///< in time order
  /// LLM tokens of each event (prompt + completion), kept apart from the 24-byte events so a
  /// trace without token counts costs nothing: empty when no event has one, else one entry per
  /// event (kNoTokens where unknown).
  std::vector<std::uint32_t> tokens;
  std::vector<std::string> keys;
  std::vector<std::string> models{""};
  std::vector<std::string> tiers{""};

  /// Appends an event; `t_ns` must not be before the last event's.
  void add(std::int64_t t_ns, std::string_view key, double cost, std::string_view model = {},
           std::string_view tier = {}, std::optional<std::uint32_t> tokens = std::nullopt);
  /// The token count of event i, or nullopt when its line gave none.
  std::optional<std::uint32_t> tokens_of(std::size_t i) const {
    if (tokens.empty() || tokens[i] == kNoTokens) return std::nullopt;
    return tokens[i];
  }
  double duration_s() const;

  /// The index of a name, added to its table when new.
  std::uint32_t key_id(std::string_view key);
  std::uint16_t model_id(std::string_view model);
  std::uint16_t tier_id(std::string_view tier);

 private:
  std::unordered_map<std::string, std::uint32_t> key_index_;
  std::unordered_map<std::string, std::uint32_t> model_index_{{"", 0}};
  std::unordered_map<std::string, std::uint32_t> tier_index_{{"", 0}};
};

struct TraceError {
  std::size_t line = 0;
  std::string message;
};

struct TraceLoad {
  Trace trace;                     ///< the good lines
  std::vector<TraceError> errors;  ///< at most max_errors kept
  std::size_t error_count = 0;     ///< all of them
  std::size_t lines = 0;
};

struct TraceOptions {
  std::size_t max_errors = 100;
  std::size_t max_keys = 10'000'000;
  std::size_t reserve_events = 0;  ///< events to reserve up front (a known line count)
};

/// JSON lines.
TraceLoad parse_trace_jsonl(std::istream& in, const TraceOptions& options = {});
/// CSV with a header: t, key required; cost, model, tier, tokens optional; any column order.
TraceLoad parse_trace_csv(std::istream& in, const TraceOptions& options = {});
/// Picks the format from the first non-blank character ('{' → JSON lines, else CSV).
/// @return the load, or an error when the file cannot be read
Expected<TraceLoad> load_trace_file(const std::string& path, const TraceOptions& options = {});

}  // namespace limitscope::trace
