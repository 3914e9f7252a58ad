#include "core/sources/redis_live_source.h"

#include "core/probe/own_schema.h"
#include "core/metrics/metric_names.h"
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

RedisLiveSource::RedisLiveSource(RedisLiveOptions options, const Clock& clock, std::shared_ptr<LiveSeries> series)
    : LiveSource(std::move(series)), options_(std::move(options)), clock_(clock), tail_(options_.streams) {
  redis::PoolOptions po;
  po.size = 1;
  po.connect = options_.connect;
  po.backoff = options_.backoff;
  pool_ = std::make_unique<redis::ConnectionPool>(options_.url, po, clock_);
  probe::ProbeOptions probe_options = options_.probe;
  probe_options.read_ttl = options_.read_ttl;
  probe_ = std::make_unique<probe::RedisProbe>(options_.profiles, probe_options);
  now_ms_ = clock_.wall().count() / 1'000'000;
  own_key_rows();
}

void RedisLiveSource::event(std::string text) {
  series_->event(clock_.wall().count() / 1'000'000, "redis: " + std::move(text));
}

std::string RedisLiveSource::connection() const {
  if (connected_) return "connected";
  return refreshes_ == 0 ? "connecting" : "reconnecting";
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
    series_->evaluate(now_ms_);
    return;
  }
  auto snap = probe_->refresh(**lease);
  if (!snap) {
    event("refresh failed: " + snap.error().message);
    connected_ = false;
    last_error_ = snap.error().message;
    series_->evaluate(now_ms_);
    return;
  }
  if (!connected_) event("connected to " + pool_->peer());
  connected_ = true;
  last_error_ = snap->errors.empty() ? std::string() : snap->errors.front();
  std::int64_t t = options_.stamp_with_server_time ? snap->server_time_us / 1000 : clock_.wall().count() / 1'000'000;
  if (have_server_time_ && t <= now_ms_) return;  // the clock went back (or within the same ms): skip
  have_server_time_ = true;
  now_ms_ = t;
  if (options_.tail_decisions) tail(**lease, t, snap->keys);
  record(*snap, t);
  if (const std::string err = series_->evaluate(t); !err.empty() && last_error_.empty()) last_error_ = err;
  series_->refreshed(t);
}

void RedisLiveSource::tail(redis::Connection& c, std::int64_t t, const std::vector<probe::KeyReading>& keys) {
  std::map<std::string, std::string> rules;
  for (const auto& r : keys) {
    if (r.kind != probe::ProfileKind::limitscope) continue;
    if (auto own = probe::parse_own_key(r.key)) rules.emplace(own->rule, decisions_key_for_config(own->config_key));
  }
  auto read = tail_.read(c, rules);
  if (!read) {
    // The key reading worked: keep it, and say why the decisions are missing.
    if (read.error().message != last_stream_error_) event("decision streams: " + read.error().message);
    last_stream_error_ = read.error().message;
    return;
  }
  const std::string err = read->errors.empty() ? std::string() : read->errors.front();
  if (!err.empty() && err != last_stream_error_) event("decision stream: " + err);
  last_stream_error_ = err;
  if (read->lagging > 0 && last_error_.empty()) {
    last_error_ = std::to_string(read->lagging) + " decision stream(s) behind: more than " +
                  std::to_string(options_.streams.count_per_refresh) + " entries per refresh";
  }
  for (auto& d : read->backlog) series_->decision(std::move(d), t);

  // Rates over the time since the previous read; the first read only sets the start.
  const std::optional<std::int64_t> since = tailed_at_ms_;
  tailed_at_ms_ = t;
  struct Counts {
    double admitted = 0, rejected = 0;
  };
  std::map<std::pair<std::string, std::string>, Counts> by_key;  // (rule, key)
  for (auto& d : read->fresh) {
    Counts& c2 = by_key[{d.tier, d.api_key}];
    (d.allowed ? c2.admitted : c2.rejected) += 1;
    ++decisions_read_;
    if (!d.allowed) ++rejections_read_;
    series_->decision(std::move(d), t);
  }
  if (!since || t <= *since) return;
  const double dt = static_cast<double>(t - *since) / 1000.0;
  // Keys seen before and quiet now get zero, so their lines drop instead of stopping high.
  for (auto& [id, rates] : key_rates_) rates = Rates{};
  std::map<std::string, Counts> by_rule;
  for (const auto& [rule, key] : rules) by_rule[rule];
  for (const auto& [rk, c2] : by_key) {
    key_rates_[rk.first + "|" + rk.second] = Rates{c2.admitted / dt, c2.rejected / dt};
    by_rule[rk.first].admitted += c2.admitted;
    by_rule[rk.first].rejected += c2.rejected;
  }
  for (const auto& [id, rates] : key_rates_) {
    const auto bar = id.find('|');
    const metrics::Labels l{{"api_key", id.substr(bar + 1)}, {"tier", id.substr(0, bar)}, {"model", ""}};
    metrics::Labels a = l, r = l;
    a.set("__name__", live_series::kKeyAdmittedRate);
    r.set("__name__", dashboard_series::kKeyRejectedRate);
    series_->append(a, {t, rates.admitted_per_s});
    series_->append(r, {t, rates.rejected_per_s});
  }
  double all_admitted = 0, all_rejected = 0;
  for (const auto& [rule, c2] : by_rule) {
    double& hits = hits_by_rule_[rule];
    hits += c2.rejected;
    series_->append({{"__name__", std::string(metrics::names::kGatewayRateLimitHits)}, {"tier", rule}, {"model", ""}},
                    {t, hits});
    series_->append({{"__name__", std::string(dashboard_series::kTierRejectedRate)}, {"tier", rule}},
                    {t, c2.rejected / dt});
    series_->append({{"__name__", std::string(live_series::kRejectedRate)}, {"tier", rule}, {"model", ""}},
                    {t, c2.rejected / dt});
    series_->append({{"__name__", std::string(live_series::kAdmittedRate)}, {"tier", rule}, {"model", ""}},
                    {t, c2.admitted / dt});
    all_admitted += c2.admitted;
    all_rejected += c2.rejected;
  }
  if (all_admitted + all_rejected > 0) {
    series_->append({{"__name__", std::string(dashboard_series::kRejectedRatio)}},
                    {t, all_rejected / (all_admitted + all_rejected)});
  }
}

void RedisLiveSource::record(const probe::ProbeSnapshot& snap, std::int64_t t) {
  for (const auto& r : snap.keys) {
    if (!r.error.empty()) continue;
    const Identity id = identity_of(r);
    const metrics::Labels labels{{"__name__", ""}, {"api_key", id.api_key}, {"tier", id.tier}, {"model", id.model}};
    auto put = [&](std::string_view name, double v) {
      metrics::Labels l = labels;
      l.set("__name__", name);
      series_->append(l, metrics::Sample{t, v});
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

void RedisLiveSource::contribute(DashboardSnapshot& s) const {
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
    if (auto it = key_rates_.find(id.tier + "|" + id.api_key); it != key_rates_.end()) {
      row.requests_per_s = it->second.admitted_per_s + it->second.rejected_per_s;
      row.rejected_per_s = it->second.rejected_per_s;
    }
    if (auto it = sparklines_.find(id.api_key + "|" + id.tier + "|" + id.model); it != sparklines_.end()) {
      row.sparkline.assign(it->second.begin(), it->second.end());
    }
    s.keys.push_back(std::move(row));
  }
}

}  // namespace limitscope
