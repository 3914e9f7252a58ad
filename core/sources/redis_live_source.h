#pragma once
// The dashboard on a live Redis: every refresh interval, RedisProbe reads the tracked limiter
// keys at the server's TIME and their levels and occupancy are recorded under the same series
// the simulation records (limitscope_key_level_ratio, ..._window_occupancy_ratio; labels
// api_key = the limited key, tier = the rule or profile, model = a composite's limit name), so
// every chart and the key table work unchanged. The connection comes from a pool with
// jittered reconnect backoff; a disconnect keeps the recorded history, and an event log says
// what happened. Not thread-safe: one worker owns it (as every DashboardSource).

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/probe/redis_probe.h"
#include "core/redis/pool.h"
#include "core/sources/dashboard_source.h"

namespace limitscope {

struct RedisLiveOptions {
  redis::RedisUrl url;
  redis::ConnectOptions connect;
  redis::BackoffOptions backoff;
  std::vector<probe::LimiterProfile> profiles;  ///< tried in order; add builtin_profiles()
  probe::ProbeOptions probe;  ///< probe.read_ttl is overridden by read_ttl below
  /// PTTL of every key at every refresh doubles the commands (docs/benchmarks.md: 28 ms vs
  /// 19 ms for 10,000 keys); the charts and the key table do not show TTLs, so it is off
  /// unless a view that shows them (the key browser) asks.
  bool read_ttl = false;
  Nanos refresh_interval = std::chrono::seconds(1);
  std::size_t samples_per_series = 3600;
  std::size_t max_events = 200;
};

struct SourceEvent {
  std::int64_t t_ms = 0;  ///< wall time (the clock's)
  std::string text;       ///< "connected to redis://…", "refresh failed: …"
};

class RedisLiveSource final : public DashboardSource {
 public:
  /// @param clock wall time for refresh pacing and reconnect backoff (must outlive this)
  RedisLiveSource(RedisLiveOptions options, const Clock& clock);

  /// Accumulates `d`; refreshes once the refresh interval has passed (at most one refresh per
  /// call). @return 1 when a refresh ran (successful or not), else 0.
  int advance(Nanos d) override;
  DashboardSnapshot snapshot(const ChartView& view) const override;
  /// The server's time at the last good refresh (the clock's wall time before the first).
  std::int64_t now_ms() const override { return now_ms_; }
  const metrics::SeriesStore& store() const override { return *store_; }

  /// Newest last; bounded by max_events.
  const std::deque<SourceEvent>& events() const { return events_; }
  bool connected() const { return connected_; }
  std::uint64_t refreshes() const { return refreshes_; }
  /// The last refresh's readings (most pressure first), for the key browser.
  const std::vector<probe::KeyReading>& readings() const { return readings_; }

 private:
  void refresh();
  void record(const probe::ProbeSnapshot& snap);
  void event(std::string text);

  RedisLiveOptions options_;
  const Clock& clock_;
  std::unique_ptr<redis::ConnectionPool> pool_;
  std::unique_ptr<probe::RedisProbe> probe_;
  std::unique_ptr<metrics::SeriesStore> store_;
  Nanos pending_{0};
  bool first_ = true;
  bool connected_ = false;
  bool have_server_time_ = false;
  std::int64_t now_ms_ = 0;
  std::int64_t start_ms_ = 0;
  std::uint64_t refreshes_ = 0;
  std::uint64_t appended_ = 0;
  std::string last_error_;
  std::deque<SourceEvent> events_;
  std::vector<probe::KeyReading> readings_;
  std::map<std::string, std::deque<double>> sparklines_;  // api_key|tier|model → levels
};

}  // namespace limitscope
