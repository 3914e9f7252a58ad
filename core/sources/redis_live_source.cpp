#include "core/sources/redis_live_source.h"

#include "core/probe/own_schema.h"
#include "core/sources/dashboard_charts.h"
#include "core/sources/simulation_recorder.h"

namespace limitscope {

namespace {

constexpr std::size_t kSparklinePoints = 60;

struct Identity {
  std::string api_key;
  std::string tier;
  std::string model;
};

// How a limiter key appears in charts and the table: our own keys by rule, key and limit;
// foreign keys by their full name under their profile.
Identity identity_of(const probe::KeyReading& r) {
  if (r.kind == probe::ProfileKind::limitscope) {
    if (auto own = probe::parse_own_key(r.key)) return {own->rest, own->rule, ""};
  }
  return {r.key, r.profile, ""};
}

}  // namespace

RedisLiveSource::RedisLiveSource(RedisLiveOptions options, const Clock& clock)
    : options_(std::move(options)), clock_(clock) {
  redis::PoolOptions po;
  po.size = 1;
  po.connect = options_.connect;
  po.backoff = options_.backoff;
  pool_ = std::make_unique<redis::ConnectionPool>(options_.url, po, clock_);
  probe::ProbeOptions probe_options = options_.probe;
  probe_options.read_ttl = options_.read_ttl;
  probe_ = std::make_unique<probe::RedisProbe>(options_.profiles, probe_options);
  metrics::SeriesStoreOptions so;
  so.samples_per_series = options_.samples_per_series;
  store_ = std::make_unique<metrics::SeriesStore>(so);
  now_ms_ = clock_.wall().count() / 1'000'000;
  start_ms_ = now_ms_;
}

void RedisLiveSource::event(std::string text) {
  events_.push_back(SourceEvent{clock_.wall().count() / 1'000'000, std::move(text)});
  while (events_.size() > options_.max_events) events_.pop_front();
}

int RedisLiveSource::advance(Nanos d) {
  pending_ += d;
  if (!first_ && pending_ < options_.refresh_interval) return 0;
  first_ = false;
  pending_ = Nanos{0};
  refresh();
  return 1;
}

void RedisLiveSource::refresh() {
  ++refreshes_;
  auto lease = pool_->acquire();
  if (!lease) {
    if (connected_ || refreshes_ == 1) event("cannot reach " + pool_->peer() + ": " + lease.error().message);
    connected_ = false;
    last_error_ = lease.error().message;
    return;
  }
  auto snap = probe_->refresh(**lease);
  if (!snap) {
    event("refresh failed: " + snap.error().message);
    connected_ = false;
    last_error_ = snap.error().message;
    return;
  }
  if (!connected_) event("connected to " + pool_->peer());
  connected_ = true;
  last_error_ = snap->errors.empty() ? std::string() : snap->errors.front();
  record(*snap);
}

void RedisLiveSource::record(const probe::ProbeSnapshot& snap) {
  const std::int64_t t = snap.server_time_us / 1000;
  if (have_server_time_ && t <= now_ms_) return;  // the server's clock went back: skip
  if (!have_server_time_) start_ms_ = t;
  have_server_time_ = true;
  now_ms_ = t;
  for (const auto& r : snap.keys) {
    if (!r.error.empty()) continue;
    const Identity id = identity_of(r);
    const metrics::Labels labels{{"__name__", ""}, {"api_key", id.api_key}, {"tier", id.tier}, {"model", id.model}};
    auto put = [&](std::string_view name, double v) {
      metrics::Labels l = labels;
      l.set("__name__", name);
      if (store_->append(l, metrics::Sample{t, v}).ok()) ++appended_;
    };
    if (r.fill) {
      put(dashboard_series::kKeyLevel, *r.fill);
      auto& line = sparklines_[id.api_key + "|" + id.tier + "|" + id.model];
      line.push_back(*r.fill);
      while (line.size() > kSparklinePoints) line.pop_front();
    }
    if (r.occupancy) put(dashboard_series::kKeyOccupancy, *r.occupancy);
  }
  readings_ = snap.keys;
}

DashboardSnapshot RedisLiveSource::snapshot(const ChartView& view) const {
  DashboardSnapshot s;
  s.view = view;
  s.now_ms = now_ms_;
  s.start_ms = start_ms_;
  s.charts = dashboard_charts(*store_, view);
  for (const auto& r : readings_) {
    const Identity id = identity_of(r);
    KeyRow row;
    row.api_key = id.api_key;
    row.tier = id.tier;
    row.model = id.model;
    row.algorithm = std::string(probe::to_string(r.kind));
    row.level = r.fill.value_or(r.occupancy ? 1.0 - *r.occupancy : 1.0);
    row.capacity = r.capacity.value_or(r.limit.value_or(0));
    row.occupancy = r.occupancy;
    row.parameters = r.error.empty() ? r.profile : r.profile + ": " + r.error;
    row.last_seen_ms = now_ms_;
    if (auto it = sparklines_.find(id.api_key + "|" + id.tier + "|" + id.model); it != sparklines_.end()) {
      row.sparkline.assign(it->second.begin(), it->second.end());
    }
    s.keys.push_back(std::move(row));
  }
  s.source = "redis: " + pool_->peer();
  s.connection = connected_ ? "connected" : (refreshes_ == 0 ? "connecting" : "reconnecting");
  const double elapsed_s = static_cast<double>(now_ms_ - start_ms_) / 1000.0;
  s.samples_per_s = elapsed_s > 0 ? static_cast<double>(appended_) / elapsed_s : 0;
  s.dropped_samples = store_->dropped_samples();
  s.last_error = last_error_;
  return s;
}

}  // namespace limitscope
