#pragma once
// Opens the live sources the operator named (`--redis`, `--metrics`, `--prometheus`, any
// combination): one source alone, or a CompositeLiveSource over a shared SessionState when
// there are several. Every input is checked before anything connects; a bad URL, profiles
// file or rule file gives an error naming it.

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "core/common/clock.h"
#include "core/common/expected.h"
#include "core/http/http_fetch.h"
#include "core/sources/live_source.h"

namespace limitscope {

/// Bounds of a saved `scrape_interval` (and of LiveSpec's intervals): faster than 100ms
/// would hammer the endpoint, slower than 10 minutes leaves the dashboard and its rules blind.
inline constexpr Nanos kMinLiveInterval = std::chrono::milliseconds(100);
inline constexpr Nanos kMaxLiveInterval = std::chrono::minutes(10);

/// A live session's per-key series keep this many samples (20 min at one refresh a second) and
/// series not written for this long are removed (SessionOptions).
inline constexpr std::size_t kLiveKeySamples = 1200;
inline constexpr std::int64_t kLiveIdleSeriesMs = 60 * 60 * 1000;
/// A live session's recording holds the 1,000 rows under most pressure at each step and those
/// keys' samples (SessionOptions::recording_rows; docs/recording.md).
inline constexpr std::size_t kLiveRecordingRows = 1000;

/// @return `interval` when inside [kMinLiveInterval, kMaxLiveInterval], else an error naming
///         `what` (e.g. "scrape_interval"), the value and the bounds
Expected<Nanos> check_live_interval(Nanos interval, std::string_view what);

struct LiveSpec {
  std::string redis_url;         ///< redis://[user:password@]host:port/db, a Redis Cluster's
                                 ///< redis+cluster://host:port,host:port, or empty
  std::string profiles_file;     ///< with redis_url: profiles tried before the built-in ones
  std::string redis_scan_match;  ///< with redis_url: SCAN MATCH of discovery ("" = every key)
  /// with redis_url: read the own rules' pressure indexes (off: SCAN alone, for comparison)
  bool redis_pressure_index = true;
  std::string metrics_url;      ///< a gateway's /metrics, or empty
  http::HttpAuth metrics_auth;  ///< /metrics credentials (never shown)
  /// How often /metrics is scraped (default 1s), within the bounds above.
  std::optional<Nanos> metrics_interval;
  std::string prometheus_url;      ///< a Prometheus server, or empty
  http::HttpAuth prometheus_auth;  ///< Prometheus credentials (never shown)
  /// How often Prometheus is queried (default 5s); the query step follows it, kept within
  /// 1s..1min so the backfill still has points. Within the bounds above.
  std::optional<Nanos> prometheus_interval;
  std::string rules_file;  ///< alert rules instead of the default and live rules, or empty
  /// Key names (CSV api_key_hash,name; core/dashboard/key_names.h) for gateways that export no
  /// limitscope_key_info, or empty.
  std::string key_names_file;

  bool empty() const { return redis_url.empty() && metrics_url.empty() && prometheus_url.empty(); }
};

/// @param clock wall time and pacing for every part (must outlive the source)
/// @return the source (not yet refreshed), or an error naming the bad input
Expected<std::unique_ptr<LiveSource>> open_live_source(const LiveSpec& spec, Clock& clock);

}  // namespace limitscope
