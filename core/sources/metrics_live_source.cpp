#include "core/sources/metrics_live_source.h"

#include <algorithm>
#include <cstdio>
#include <set>

#include "core/metrics/metric_names.h"
#include "core/sources/simulation_recorder.h"

namespace limitscope {

namespace names = metrics::names;

namespace {

std::int64_t wall_ms(const Clock& c) {
  return c.wall().count() / 1'000'000;
}

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

// The counter family a sample belongs to: OpenMetrics parsers keep the _total suffix on the
// sample, so "x_total" and "x" name one family here.
bool is_family(std::string_view sample_name, std::string_view family) {
  if (sample_name == family) return true;
  return sample_name.size() == family.size() + 6 && sample_name.starts_with(family) &&
         sample_name.ends_with("_total");
}

}  // namespace

const std::vector<ForeignHitsCounter>& foreign_hits_counters() {
  // Counters of 429 answers as other gateways and proxies export them. A family without a
  // code label counts only rate-limited requests; one with a code label counts code 429.
  static const std::vector<ForeignHitsCounter> table = {
      {"envoy_cluster_ratelimit_over_limit", "", "envoy_cluster_name"},  // envoy, global RLS
      {"envoy_http_local_rate_limit_rate_limited", "", "envoy_http_conn_manager_prefix"},
      {"ratelimit_service_rate_limit_over_limit", "", "key1"},  // envoy ratelimit (statsd exporter)
      {"kong_http_requests_total", "code", "service"},          // Kong 3.x
      {"kong_http_status", "code", "service"},                  // Kong 2.x
      {"nginx_ingress_controller_requests", "status", "ingress"},  // ingress-nginx
      {"traefik_service_requests_total", "code", "service"},       // Traefik 2.x
      {"http_requests_total", "code", ""},                         // common client libraries
      {"http_requests_total", "status", ""},
      {std::string(names::kGatewayResponses), std::string(names::kCode), ""},  // limitscope-gateway
  };
  return table;
}

MetricsLiveSource::MetricsLiveSource(MetricsLiveOptions options, const Clock& clock,
                                     std::shared_ptr<SessionState> series)
    : LiveSource(std::move(series)),
      options_(std::move(options)),
      clock_(clock),
      rhythm_(options_.backoff) {
  now_ms_ = wall_ms(clock_);
  own_key_rows();
}

int MetricsLiveSource::advance(Nanos d) {
  if (!rhythm_.due(d)) return 0;
  scrape();
  return 1;
}

void MetricsLiveSource::scrape() {
  // Series times go forward, even when the wall clock steps back.
  const std::int64_t at =
      last_scrape_ms_ > 0 ? std::max(wall_ms(clock_), last_scrape_ms_ + 1) : wall_ms(clock_);
  series_->writing_as("metrics");
  auto s = probe::scrape_metrics(options_.url, options_.fetch, at);
  if (!s) {
    last_error_ = s.error();
    const Nanos wait = rhythm_.failed();
    const auto retry_ms = std::chrono::duration_cast<std::chrono::milliseconds>(wait).count();
    series_->event(at, "metrics: scrape failed: " + s.error() + " (retry in " +
                           std::to_string(retry_ms) + " ms)");
    // The rules still run, on what the other sources record; this one's series go stale and
    // the rules that read them say "no data" (SessionState::source_down).
    series_->source_down("metrics", at);
    (void)series_->evaluate(at);
    return;
  }
  series_->source_up("metrics", at);
  if (rhythm_.worked(options_.scrape_interval)) {
    series_->event(at, std::string("metrics: ") +
                           (rhythm_.failures() > 0 ? "reconnected to " : "connected to ") +
                           options_.url.to_string() + " (" + std::to_string(s->samples.size()) +
                           " samples)");
  }
  last_error_.clear();
  record(*s);
  if (const Status err = series_->evaluate(at); !err.ok()) last_error_ = err.error();
  series_->refreshed(at);
}

std::optional<double> MetricsLiveSource::increase(const metrics::Labels& l, double v) {
  auto [it, fresh] = counters_.try_emplace(l, v);
  if (fresh) {
    // A series new since the last good scrape started counting in between (from zero); on the
    // first scrape there is no "before".
    return last_scrape_ms_ > 0 ? std::optional<double>(v) : std::nullopt;
  }
  const double before = it->second;
  it->second = v;
  if (v >= before) return v - before;
  ++counter_resets_;
  // A key's series says whose it is, by the name the table shows.
  const std::string_view hash = l.get(metrics::names::kApiKeyHash);
  const std::string* name = hash.empty() ? nullptr : series_->names().find(hash);
  series_->event(now_ms_, "metrics: counter reset: " + l.to_string() +
                              (name != nullptr ? " (" + *name + ")" : "") + " went from " +
                              number(before) + " to " + number(v) +
                              " (gateway restarted?); counting the new value as the increase");
  return v;
}

void MetricsLiveSource::record(const probe::Scrape& scrape) {
  const std::int64_t t = scrape.at_ms;
  const double dt = last_scrape_ms_ > 0 ? static_cast<double>(t - last_scrape_ms_) / 1000.0 : 0;
  now_ms_ = t;

  // Raw samples (the rules read them) and staleness of the ones that vanished.
  std::set<metrics::Labels> present;
  for (const auto& smp : scrape.samples) {
    series_->append(smp.labels, metrics::Sample{smp.timestamp_ms.value_or(t), smp.value});
    present.insert(smp.labels);
  }
  for (const auto& l : last_series_) {
    if (!present.contains(l)) series_->mark_stale(l, t);
  }
  last_series_.assign(present.begin(), present.end());

  bool has_gateway_hits = false;
  for (const auto& smp : scrape.samples) {
    if (is_family(smp.labels.metric_name(), names::kGatewayRateLimitHits)) has_gateway_hits = true;
  }

  struct Counts {
    double hits = 0, admitted = 0, requests = 0;
    bool rated = false;
  };
  std::map<std::pair<std::string, std::string>, Counts> counts;
  std::map<std::pair<std::string, std::string>, double> foreign_hits;  // (tier, family) increase
  std::map<std::string, double> shadow_rejected;  // rule → its shadow config's refusals (issue 19)
  burns_.clear();
  for (const auto& smp : scrape.samples) {
    const metrics::Labels& l = smp.labels;
    const std::string_view n = l.metric_name();
    const auto tm =
        std::make_pair(std::string(l.get(names::kTier)), std::string(l.get(names::kModel)));
    if (is_family(n, names::kGatewayRateLimitHits)) {
      if (auto inc = increase(l, smp.value)) {
        counts[tm].hits += *inc;
        counts[tm].rated = true;
      }
    } else if (is_family(n, names::kRequests)) {
      if (auto inc = increase(l, smp.value)) {
        const std::string_view decision = l.get(names::kDecision);
        if (decision != names::kDecisionDenied) counts[tm].admitted += *inc;
        counts[tm].requests += *inc;
        counts[tm].rated = true;
      }
    } else if (is_family(n, names::kShadowDecisions)) {
      if (l.get(names::kDecision) != names::kShadowRejected) continue;
      if (auto inc = increase(l, smp.value))
        shadow_rejected[std::string(l.get(names::kRule))] += *inc;
    } else if (n == names::kGatewayQuotaBurnRatio) {
      burns_[{std::string(l.get(names::kApiKeyHash)), tm.second}] = smp.value;
    } else if (!has_gateway_hits) {
      for (const ForeignHitsCounter& f : foreign_hits_counters()) {
        if (!is_family(n, f.family) || (!f.code_label.empty() && l.get(f.code_label) != "429"))
          continue;
        if (auto inc = increase(l, smp.value)) {
          const std::string tier =
              f.tier_label.empty() ? f.family : std::string(l.get(f.tier_label));
          foreign_hits[{tier, f.family}] += *inc;
        }
        break;
      }
    }
  }
  // Foreign 429s become gateway_rate_limit_hits_total{tier, source_metric}, cumulative since
  // the source started, so the default rules read them.
  for (const auto& [tier_family, inc] : foreign_hits) {
    const auto& [tier, family] = tier_family;
    metrics::Labels l{{"__name__", std::string(names::kGatewayRateLimitHits)},
                      {"tier", tier},
                      {"source_metric", family}};
    double& total = foreign_totals_[l];
    total += inc;
    series_->append(l, {t, total});
    counts[{tier, ""}].hits += inc;
    counts[{tier, ""}].rated = true;
  }

  for (const auto& [key_model, burn] : burns_) {
    metrics::Labels l{{"__name__", std::string(dashboard_series::kKeyQuotaBurn)},
                      {"api_key", key_model.first},
                      {"model", key_model.second}};
    series_->append(l, {t, burn});
  }

  if (dt > 0) {
    std::map<std::string, double> tier_hits;
    double all_hits = 0, all_requests = 0;
    for (const auto& [tm, c] : counts) {
      if (!c.rated) continue;
      const auto& [tier, model] = tm;
      series_->append(
          {{"__name__", std::string(live_series::kRejectedRate)}, {"tier", tier}, {"model", model}},
          {t, c.hits / dt});
      series_->append(
          {{"__name__", std::string(live_series::kAdmittedRate)}, {"tier", tier}, {"model", model}},
          {t, c.admitted / dt});
      tier_hits[tier] += c.hits;
      all_hits += c.hits;
      all_requests += c.requests;
      TierModel& row = rows_[tm];
      row.rejected_per_s = c.hits / dt;
      row.admitted_per_s = c.admitted / dt;
      row.requests_per_s = c.requests > 0 ? c.requests / dt : (c.hits + c.admitted) / dt;
    }
    for (const auto& [tier, hits] : tier_hits) {
      series_->append(
          {{"__name__", std::string(dashboard_series::kTierRejectedRate)}, {"tier", tier}},
          {t, hits / dt});
    }
    // What each rule's shadow config would refuse, beside its tier's 429s (the same gateway).
    for (const auto& [rule, refused] : shadow_rejected) {
      series_->append({{"__name__", std::string(dashboard_series::kTierShadowRejectedRate)},
                       {"tier", rule},
                       {"source", "metrics"}},
                      {t, refused / dt});
    }
    rejected_total_ += all_hits;
    if (all_requests > 0) {
      series_->append({{"__name__", std::string(dashboard_series::kRejectedRatio)}},
                      {t, all_hits / all_requests});
    }
  }
  for (auto& [tm, row] : rows_) row.quota_burn = 0;
  for (const auto& [key_model, burn] : burns_) {
    for (auto& [tm, row] : rows_) {
      if (tm.second == key_model.second) row.quota_burn = std::max(row.quota_burn, burn);
    }
  }
  last_scrape_ms_ = t;
}

void MetricsLiveSource::contribute(DashboardSnapshot& s) const {
  // One row per (tier, model): a gateway's metrics carry no per-key levels (keys appear only
  // hashed, in the quota burn), so the rows hold the tier's rates.
  for (const auto& [tm, r] : rows_) {
    KeyRow row;
    row.api_key = "(all keys)";
    row.tier = tm.first;
    row.model = tm.second;
    row.algorithm = "gateway metrics";
    row.parameters = "rates from " + options_.url.to_string();
    row.requests_per_s = r.requests_per_s;
    row.rejected_per_s = r.rejected_per_s;
    row.quota_burn = r.quota_burn;
    row.spend_reported = false;  // limitscope_spend_dollars_total is per tier, not per row's keys
    row.last_seen_ms = last_scrape_ms_;
    s.keys.push_back(std::move(row));
  }
}

}  // namespace limitscope
