#include "core/sources/redis_live_source.h"

#include <algorithm>
#include <set>
#include <tuple>

#include "core/dashboard/dashboard_charts.h"
#include "core/dashboard/key_names.h"
#include "core/metrics/metric_names.h"
#include "core/probe/own_schema.h"
#include "core/redis/key_schema.h"
#include "core/sources/simulation_recorder.h"

namespace limitscope {

namespace {

// Server times this close behind the last sample count as the same instant (see refresh()).
constexpr std::int64_t kSameInstantMs = 5;

constexpr std::size_t kSparklinePoints = 60;

struct Identity {
  std::string api_key;
  std::string tier;
  std::string model;
  std::string limit;
};

// How a limiter key appears in charts and the table: our own keys by rule, key, model and
// limit (the gateway's "<hash>:<model>:<limit>" split into its parts); foreign keys by their
// full name under their profile.
Identity identity_of(const probe::KeyReading& r) {
  if (r.kind == probe::ProfileKind::limitscope) {
    if (auto own = probe::parse_own_key(r.key)) {
      LimitedKeyParts p = split_limited_key(own->rest, r.limit_name);
      return {std::move(p.api_key), own->rule, std::move(p.model), std::move(p.limit)};
    }
  }
  return {r.key, r.profile, "", ""};
}

metrics::Labels key_labels(std::string_view name, const Identity& id) {
  metrics::Labels l{{"__name__", std::string(name)},
                    {"api_key", id.api_key},
                    {"tier", id.tier},
                    {"model", id.model}};
  if (!id.limit.empty()) l.set("limit", id.limit);
  return l;
}

// A decision stream entry names the limited key ("<hash>:<model>" for the gateway's): keep
// the key and the model apart, as the key rows do.
void split_decision_key(DecisionRow& d) {
  LimitedKeyParts p = split_limited_key(d.api_key, "");
  if (p.model.empty()) return;
  d.api_key = std::move(p.api_key);
  if (d.model.empty()) d.model = std::move(p.model);
}

std::string rate_id(std::string_view rule, std::string_view key, std::string_view model) {
  return std::string(rule) + "|" + std::string(key) + "|" + std::string(model);
}

// Rule → its decision stream key, for the own-schema rules among `keys`.
void add_stream_keys(const probe::KeyReading& r, std::map<std::string, std::string>& rules) {
  if (r.kind != probe::ProfileKind::limitscope) return;
  if (auto own = probe::parse_own_key(r.key))
    rules.emplace(own->rule, decisions_key_for_config(own->config_key));
}

// A composite rule's limits in their order (the order of a logged decision's costs), from its
// state keys.
void add_limit_order(const probe::KeyReading& r,
                     std::map<std::string, std::vector<std::string>>& order) {
  if (r.kind != probe::ProfileKind::limitscope || r.limit_index < 0 || r.limit_name.empty()) return;
  const auto own = probe::parse_own_key(r.key);
  if (!own) return;
  std::vector<std::string>& names = order[own->rule];
  const auto at = static_cast<std::size_t>(r.limit_index);
  if (names.size() <= at) names.resize(at + 1);
  names[at] = r.limit_name;
}

void by_time(std::vector<DecisionRow>& rows) {
  std::stable_sort(rows.begin(), rows.end(),
                   [](const DecisionRow& a, const DecisionRow& b) { return a.t_ns < b.t_ns; });
}

}  // namespace

namespace {

probe::ProbeOptions live_probe_options(const RedisLiveOptions& o, Clock& clock) {
  probe::ProbeOptions probe_options = o.probe;
  probe_options.read_ttl = o.read_ttl;
  if (o.adaptive_scan && !probe_options.adaptive_scan) {
    probe::ScanBudgetOptions budget;
    budget.time_per_refresh = o.refresh_interval / 10;
    budget.cpu_per_refresh = Nanos{static_cast<Nanos::rep>(
        static_cast<double>(o.refresh_interval.count()) * o.discovery_cpu_share)};
    probe_options.adaptive_scan = budget;
  }
  if (probe_options.clock == nullptr) probe_options.clock = &clock;
  return probe_options;
}

redis::EndpointOptions live_endpoint_options(const RedisLiveOptions& o) {
  redis::EndpointOptions e = redis::EndpointOptions::with(o.connect);
  e.reconnect = o.backoff;
  return e;
}

}  // namespace

RedisLiveSource::RedisLiveSource(RedisLiveOptions options, Clock& clock,
                                 std::shared_ptr<SessionState> series)
    : LiveSource(std::move(series)),
      options_(std::move(options)),
      clock_(clock),
      endpoint_(options_.url, live_endpoint_options(options_), clock_),
      probe_(options_.profiles, live_probe_options(options_, clock_)),
      tail_(options_.streams) {
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

std::map<std::string, probe::KeyReading> RedisLiveSource::kept() const {
  std::map<std::string, probe::KeyReading> out;
  for (const auto& [key, k] : kept_) out.emplace(key, k.reading);
  return out;
}

void RedisLiveSource::failed(const redis::RedisError& e) {
  connected_ = false;
  last_error_ = e.message;
  // After every sample recorded (they may carry the server's clock, a little ahead).
  const std::int64_t t = std::max(clock_.wall().count() / 1'000'000, now_ms_ + 1);
  series_->source_down("redis", t);
  (void)series_->evaluate(t);
}

void RedisLiveSource::refresh() {
  ++refreshes_;
  series_->writing_as("redis");
  auto snap = probe_.refresh(endpoint_);
  if (!snap) {
    // Once per outage; on a cluster also once per change of reason (its masters fail and
    // come back one by one), so the log keeps the story of an outage readable.
    if (connected_ || refreshes_ == 1 ||
        (endpoint_.is_cluster() && snap.error().message != last_error_)) {
      event("refresh failed: " + snap.error().message);
    }
    failed(snap.error());
    return;
  }
  if (!connected_) event("connected to " + options_.url.redacted());
  connected_ = true;
  scanned_ += snap->scanned;
  discovery_cpu_ns_ += snap->discovery_cpu_ns;
  last_error_ = snap->errors.empty() ? std::string() : snap->errors.front();
  if (endpoint_.is_cluster()) cluster_events(*snap);
  std::int64_t t = options_.stamp_with_server_time ? snap->server_time_us / 1000
                                                   : clock_.wall().count() / 1'000'000;
  if (have_server_time_ && t <= now_ms_) {
    // Two refreshes within one millisecond (a fast server, "refresh now"), or a clock that
    // stepped back by a hair: stamp this one just after the last, so what it read is kept.
    // A clock that went back further is skipped until it passes the last sample again.
    if (now_ms_ - t > kSameInstantMs) return;
    t = now_ms_ + 1;
  }
  have_server_time_ = true;
  if (endpoint_.is_cluster()) keep_unread(*snap);  // before readings_ and now_ms_ move on
  now_ms_ = t;
  series_->source_up("redis", t);
  if (options_.tail_decisions) tail(t, snap->keys);
  record(*snap, t);
  if (const Status err = series_->evaluate(t); !err.ok() && last_error_.empty())
    last_error_ = err.error();
  series_->refreshed(t);
}

void RedisLiveSource::cluster_events(const probe::ProbeSnapshot& snap) {
  const std::set<std::string> failing(snap.failed_nodes.begin(), snap.failed_nodes.end());
  for (const std::string& node : failing) {
    if (failing_nodes_.count(node)) continue;
    const std::string head = "node " + node + ": ";
    const auto line = std::find_if(snap.errors.begin(), snap.errors.end(),
                                   [&](const std::string& e) { return e.starts_with(head); });
    event(line != snap.errors.end() ? *line : head + "did not answer");
  }
  std::vector<std::string> masters;
  if (auto listed = endpoint_.masters()) masters = std::move(*listed);
  for (const std::string& node : failing_nodes_) {
    if (!failing.count(node) && std::find(masters.begin(), masters.end(), node) != masters.end()) {
      event("node " + node + " answers again");
    }
  }
  if (!masters_.empty() && !masters.empty() && masters != masters_) {
    std::string list;
    for (const auto& m : masters) list += (list.empty() ? "" : ", ") + m;
    event("cluster masters now: " + list);
  }
  if (!masters.empty()) masters_ = std::move(masters);
  failing_nodes_ = failing;
}

// A key read before and missing now is kept while its shard could not say whether it still
// exists: its master failed, or its slot is (or was just) moving and the new owner has not
// scanned it yet. The master that holds the slot and answered is the authority: a key it no
// longer has expired or was deleted. The new owner's scan finds a moved key within two full
// passes counted from when the map named it the owner (the second pass began after that).
void RedisLiveSource::keep_unread(const probe::ProbeSnapshot& snap) {
  std::set<std::string> fresh;
  for (const auto& r : snap.keys) fresh.insert(r.key);
  for (const auto& r : readings_) {
    if (!fresh.count(r.key) && !kept_.count(r.key))
      kept_.emplace(r.key, Kept{r, now_ms_, "", "", 0});
  }
  const std::set<std::string> failing(snap.failed_nodes.begin(), snap.failed_nodes.end());
  const std::set<std::string> moving(snap.moving_keys.begin(), snap.moving_keys.end());
  auto topo = endpoint_.cluster()->topology();  // keep_unread() runs on a cluster only
  for (auto it = kept_.begin(); it != kept_.end();) {
    Kept& k = it->second;
    const std::string& node = k.reading.node;
    if (fresh.count(it->first)) {
      it = kept_.erase(it);
      continue;
    }
    if (failing.count(node)) {
      k.why = "node " + node + " did not answer";
      ++it;
      continue;
    }
    if (moving.count(it->first)) {
      k.why = "its slot is moving";
      k.owner.clear();
      ++it;
      continue;
    }
    const redis::ClusterNode* owner =
        topo ? (*topo)->master_of(redis::cluster_slot(it->first)) : nullptr;
    if (owner == nullptr) {
      k.why = "no master serves its slot";
      ++it;
      continue;
    }
    const std::string address = owner->address();
    if (address == node) {
      it = kept_.erase(it);  // its own master answered without it: gone
      continue;
    }
    if (k.owner != address) {
      k.owner = address;
      k.owner_passes = probe_.passes(address);
      k.why = "its slot moved to " + address;
      ++it;
      continue;
    }
    if (probe_.passes(address) >= k.owner_passes + 2) {
      it = kept_.erase(it);  // the new owner scanned its slots and does not have it
      continue;
    }
    ++it;
  }
}

// Each master reads the streams of its slots in one pipeline. A master that fails is an error
// line (its streams are read from their last id once it, or its successor, answers); a stream
// redirected by a migration is read on its new owner at the next refresh.
redis::Result<StreamRead> RedisLiveSource::read_streams(
    const std::map<std::string, std::string>& rules) {
  std::map<std::string, std::string> rule_of;  // stream key → rule
  std::vector<std::string> keys;
  for (const auto& [rule, key] : rules) {
    rule_of.emplace(key, rule);
    keys.push_back(key);
  }
  StreamRead all;
  std::vector<std::string> unserved;
  std::vector<std::pair<std::string, std::string>>
      key_errors;  // (node, error), noted after the call
  auto read = endpoint_.on_masters_of(
      keys,
      [&](redis::Connection& c, const std::string& node,
          const std::vector<std::string>& part) -> redis::Result<void> {
        std::map<std::string, std::string> part_rules;
        for (const std::string& key : part) part_rules.emplace(rule_of.at(key), key);
        auto r = tail_.read(c, part_rules, limit_order_);
        if (!r) return r.error();
        for (auto& d : r->backlog) all.backlog.push_back(std::move(d));
        for (auto& d : r->fresh) all.fresh.push_back(std::move(d));
        all.lagging += r->lagging;
        for (auto& e : r->errors) key_errors.emplace_back(node, std::move(e));
        return {};
      },
      unserved);
  if (!read) return read.error();
  for (auto& [node, e] : key_errors) {
    if (endpoint_.note_redirect(e, node)) continue;  // moving: not an error of the stream
    all.errors.push_back(std::move(e));
  }
  for (const std::string& key : unserved) all.errors.push_back(key + ": no master serves its slot");
  std::optional<redis::RedisError> last_error;
  std::size_t answered = 0;
  for (const redis::NodeResult& n : *read) {
    if (n.result.ok()) {
      ++answered;
      continue;
    }
    all.errors.push_back(n.result.error().message);
    last_error = n.result.error();
  }
  if (answered == 0 && last_error) return *last_error;
  by_time(all.backlog);
  by_time(all.fresh);
  return all;
}

void RedisLiveSource::tail(std::int64_t t, const std::vector<probe::KeyReading>& keys) {
  std::map<std::string, std::string> rules;
  std::string_view
      last_rule;  // "<prefix>{R}" of the last key looked at: a rule's keys come in runs
  for (const auto& r : keys) {
    if (r.kind != probe::ProfileKind::limitscope) continue;
    const std::string_view rule = std::string_view(r.key).substr(0, r.key.find('}') + 1);
    if (!rule.empty() && rule == last_rule) continue;
    last_rule = rule;
    add_stream_keys(r, rules);
  }
  // Rules known only by kept keys: their streams are read as soon as a master serves them.
  for (const auto& [key, k] : kept_) add_stream_keys(k.reading, rules);
  for (const auto& r : keys) add_limit_order(r, limit_order_);
  auto read = read_streams(rules);
  if (!read) {
    // The key reading worked: keep it, and say why the decisions are missing.
    if (read.error().message != last_stream_error_)
      event("decision streams: " + read.error().message);
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
  // Rates over the time since the previous read; the first read only sets the start.
  const std::optional<std::int64_t> since = tailed_at_ms_;
  tailed_at_ms_ = t;
  struct Counts {
    double admitted = 0, rejected = 0;
    double shadow_evaluated = 0, shadow_rejected = 0, shadow_would_refuse = 0;
  };
  std::map<std::tuple<std::string, std::string, std::string>, Counts> by_key;  // (rule, key, model)
  for (auto& d : read->backlog) split_decision_key(d);
  for (auto& d : read->fresh) {
    split_decision_key(d);
    Counts& c2 = by_key[{d.tier, d.api_key, d.model}];
    (d.allowed ? c2.admitted : c2.rejected) += 1;
    if (d.shadow_allowed) {
      ++c2.shadow_evaluated;
      if (!*d.shadow_allowed) ++c2.shadow_rejected;
      if (!*d.shadow_allowed && d.allowed) ++c2.shadow_would_refuse;
    }
  }
  const bool rates_due = since && t > *since;
  std::map<std::string, Counts> by_rule;
  if (rates_due) {
    const double dt = static_cast<double>(t - *since) / 1000.0;
    // Keys seen before and quiet now get zero, so their lines drop instead of stopping high.
    for (auto& [id, rates] : key_rates_)
      rates.admitted_per_s = rates.rejected_per_s = rates.shadow_would_refuse_per_s = 0;
    for (const auto& [rule, key] : rules) by_rule[rule];
    std::set<std::string> first_seen;
    for (const auto& [rkm, c2] : by_key) {
      const auto& [rule, key, model] = rkm;
      const auto [it, fresh] = key_rates_.try_emplace(rate_id(rule, key, model));
      if (fresh) first_seen.insert(it->first);
      it->second =
          Rates{c2.admitted / dt, c2.rejected / dt, c2.shadow_would_refuse / dt, rule, key, model};
      Counts& r = by_rule[rule];
      r.admitted += c2.admitted;
      r.rejected += c2.rejected;
      r.shadow_evaluated += c2.shadow_evaluated;
      r.shadow_rejected += c2.shadow_rejected;
    }
    // A rate sample stands for the read interval before it: a line's first one gets a zero at
    // the interval's start, so the 429s in view count its first interval too (a runaway's
    // first second of 429s was lost otherwise). The zeros are appended before the decisions
    // are recorded: a recording's lines are in time order and the decisions come after
    // `since`, so a zero appended after them would be kept out of the recording.
    for (const std::string& id : first_seen) {
      const Rates& rates = key_rates_.at(id);
      const Identity who{rates.api_key, rates.rule, rates.model, ""};
      series_->append(key_labels(live_series::kKeyAdmittedRate, who), {*since, 0});
      series_->append(key_labels(dashboard_series::kKeyRejectedRate, who), {*since, 0});
    }
    // A rule has a shadow while its decisions evaluate one; decisions without one (cleared)
    // end its shadow lines, a quiet read keeps them (at zero).
    for (const auto& [rule, c2] : by_rule) {
      if (c2.shadow_evaluated > 0) {
        if (shadow_rules_.insert(rule).second) {
          series_->append({{"__name__", std::string(dashboard_series::kTierShadowRejectedRate)},
                           {"tier", rule}},
                          {*since, 0});
        }
      } else if (c2.admitted + c2.rejected > 0 && shadow_rules_.erase(rule) > 0) {
        std::erase_if(shadow_keys_,
                      [&](const std::string& id) { return id.starts_with(rule + "|"); });
      }
    }
    // A key's shadow line from zero too (also for a key seen before the shadow).
    for (const auto& [id, rates] : key_rates_) {
      if (shadow_rules_.count(rates.rule) && shadow_keys_.insert(id).second) {
        const Identity who{rates.api_key, rates.rule, rates.model, ""};
        series_->append(key_labels(dashboard_series::kKeyShadowWouldRefuseRate, who), {*since, 0});
      }
    }
  }
  for (auto& d : read->backlog) series_->decision(std::move(d), t);
  for (auto& d : read->fresh) {
    ++decisions_read_;
    if (!d.allowed) ++rejections_read_;
    series_->decision(std::move(d), t);
  }
  if (!rates_due) return;
  const double dt = static_cast<double>(t - *since) / 1000.0;
  for (const auto& [id, rates] : key_rates_) {
    const Identity who{rates.api_key, rates.rule, rates.model, ""};
    series_->append(key_labels(live_series::kKeyAdmittedRate, who), {t, rates.admitted_per_s});
    series_->append(key_labels(dashboard_series::kKeyRejectedRate, who), {t, rates.rejected_per_s});
    if (shadow_rules_.count(rates.rule)) {
      series_->append(key_labels(dashboard_series::kKeyShadowWouldRefuseRate, who),
                      {t, rates.shadow_would_refuse_per_s});
    }
  }
  double all_admitted = 0, all_rejected = 0;
  for (const auto& [rule, c2] : by_rule) {
    double& hits = hits_by_rule_[rule];
    hits += c2.rejected;
    series_->append({{"__name__", std::string(metrics::names::kGatewayRateLimitHits)},
                     {"tier", rule},
                     {"model", ""}},
                    {t, hits});
    series_->append(
        {{"__name__", std::string(dashboard_series::kTierRejectedRate)}, {"tier", rule}},
        {t, c2.rejected / dt});
    series_->append(
        {{"__name__", std::string(live_series::kRejectedRate)}, {"tier", rule}, {"model", ""}},
        {t, c2.rejected / dt});
    series_->append(
        {{"__name__", std::string(live_series::kAdmittedRate)}, {"tier", rule}, {"model", ""}},
        {t, c2.admitted / dt});
    if (shadow_rules_.count(rule)) {
      series_->append(
          {{"__name__", std::string(dashboard_series::kTierShadowRejectedRate)}, {"tier", rule}},
          {t, c2.shadow_rejected / dt});
    }
    all_admitted += c2.admitted;
    all_rejected += c2.rejected;
  }
  if (all_admitted + all_rejected > 0) {
    series_->append({{"__name__", std::string(dashboard_series::kRejectedRatio)}},
                    {t, all_rejected / (all_admitted + all_rejected)});
  }
}

RedisLiveSource::KeySeries& RedisLiveSource::series_of(const probe::KeyReading& r) {
  auto [it, fresh] = key_series_.try_emplace(r.key);
  KeySeries& k = it->second;
  if (fresh || k.limit_name != r.limit_name) {
    const Identity id = identity_of(r);
    k.limit_name = r.limit_name;
    k.level = key_labels(dashboard_series::kKeyLevel, id);
    k.occupancy = key_labels(dashboard_series::kKeyOccupancy, id);
  }
  return k;
}

void RedisLiveSource::record(probe::ProbeSnapshot& snap, std::int64_t t) {
  for (const auto& r : snap.keys) {
    if (!r.error.empty() || (!r.fill && !r.occupancy)) continue;
    KeySeries& k = series_of(r);
    if (r.fill) {
      series_->append(k.level, metrics::Sample{t, *r.fill});
      k.sparkline.push_back(*r.fill);
      while (k.sparkline.size() > kSparklinePoints) k.sparkline.pop_front();
    }
    if (r.occupancy) series_->append(k.occupancy, metrics::Sample{t, *r.occupancy});
  }
  readings_.swap(snap.keys);
  probe_.recycle(std::move(snap.keys));  // the last refresh's: the next one writes into them
  // Keys let go (expired, or dropped for the tracking cap) take their series' labels and
  // sparklines with them, looked for once the map holds twice the keys shown, so a day of key
  // churn stays bounded.
  if (key_series_.size() > 2 * (readings_.size() + kept_.size()) + 100) {
    std::set<std::string> shown;
    for (const auto& r : readings_) shown.insert(r.key);
    for (const auto& [key, k] : kept_) shown.insert(key);
    std::erase_if(key_series_, [&](const auto& entry) { return !shown.count(entry.first); });
  }
}

void RedisLiveSource::contribute(DashboardSnapshot& s) const {
  auto add = [&](const probe::KeyReading& r, std::int64_t read_ms, const std::string& kept_why) {
    const Identity id = identity_of(r);
    KeyRow row;
    row.api_key = id.api_key;
    row.tier =
        std::string(tier_of_rule(id.tier));  // the gateway's rule "gw-free" limits the tier "free"
    row.model = id.model;
    row.limit = id.limit;
    row.algorithm = r.algorithm.empty() ? std::string(probe::to_string(r.kind)) : r.algorithm;
    row.level = r.fill.value_or(r.occupancy ? 1.0 - *r.occupancy : 1.0);
    row.capacity = r.capacity.value_or(r.limit.value_or(0));
    row.occupancy = r.occupancy;
    // The limit as configured (our schema), else the schema profile it was read with.
    row.parameters = !r.parameters.empty() ? r.parameters : "profile " + r.profile;
    if (!r.error.empty()) row.parameters += ": " + r.error;
    if (!kept_why.empty()) {
      row.parameters += " (last read " +
                        std::to_string(std::max<std::int64_t>(0, now_ms_ - read_ms) / 1000) +
                        " s ago: " + kept_why + ")";
    }
    row.last_seen_ms = read_ms;
    row.node = r.node;
    // Rates only from the rule's decision stream, for the keys it logs; spend and quota are
    // not in Redis at all.
    row.spend_reported = row.quota_reported = false;
    const auto rates = key_rates_.find(rate_id(id.tier, id.api_key, id.model));
    row.rates_reported = rates != key_rates_.end();
    if (row.rates_reported) {
      row.requests_per_s = rates->second.admitted_per_s + rates->second.rejected_per_s;
      row.rejected_per_s = rates->second.rejected_per_s;
    }
    if (auto it = key_series_.find(r.key); it != key_series_.end()) {
      row.sparkline.assign(it->second.sparkline.begin(), it->second.sparkline.end());
    }
    s.keys.push_back(std::move(row));
  };
  s.keys.reserve(s.keys.size() + readings_.size() + kept_.size());
  for (const auto& r : readings_) add(r, now_ms_, "");
  for (const auto& [key, k] : kept_)
    add(k.reading, k.read_ms, k.why.empty() ? "not read this time" : k.why);
}

}  // namespace limitscope
