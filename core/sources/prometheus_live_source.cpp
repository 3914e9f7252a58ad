#include "core/sources/prometheus_live_source.h"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "core/dashboard/alert_view.h"
#include "core/metrics/metric_names.h"
#include "core/sources/simulation_recorder.h"

namespace limitscope {

namespace names = metrics::names;

namespace {

std::int64_t wall_ms(const Clock& c) {
  return c.wall().count() / 1'000'000;
}

std::int64_t ms(Nanos d) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(d).count();
}

// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil).
std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) {
  y -= m <= 2 ? 1 : 0;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

AlertState state_of(std::string_view s) {
  if (s == "firing") return AlertState::firing;
  if (s == "pending") return AlertState::pending;
  return AlertState::inactive;
}

}  // namespace

std::optional<std::int64_t> parse_rfc3339_ms(std::string_view t) {
  // YYYY-MM-DDTHH:MM:SS[.frac](Z|±HH:MM)
  auto num = [&](std::size_t at, std::size_t len) -> std::optional<int> {
    if (at + len > t.size()) return std::nullopt;
    int v = 0;
    auto [p, ec] = std::from_chars(t.data() + at, t.data() + at + len, v);
    if (ec != std::errc{} || p != t.data() + at + len) return std::nullopt;
    return v;
  };
  if (t.size() < 20 || t[4] != '-' || t[7] != '-' ||
      (t[10] != 'T' && t[10] != 't' && t[10] != ' ') || t[13] != ':' || t[16] != ':') {
    return std::nullopt;
  }
  const auto y = num(0, 4), mo = num(5, 2), d = num(8, 2), h = num(11, 2), mi = num(14, 2),
             s = num(17, 2);
  if (!y || !mo || !d || !h || !mi || !s || *mo < 1 || *mo > 12 || *d < 1 || *d > 31 || *h > 23 ||
      *mi > 59 || *s > 60) {
    return std::nullopt;
  }
  std::size_t i = 19;
  double frac = 0;
  if (i < t.size() && t[i] == '.') {
    double scale = 0.1;
    for (++i; i < t.size() && t[i] >= '0' && t[i] <= '9'; ++i, scale /= 10)
      frac += (t[i] - '0') * scale;
  }
  std::int64_t offset_min = 0;
  if (i < t.size() && (t[i] == 'Z' || t[i] == 'z')) {
    ++i;
  } else if (i < t.size() && (t[i] == '+' || t[i] == '-')) {
    const auto oh = num(i + 1, 2), om = num(i + 4, 2);
    if (!oh || !om || i + 3 >= t.size() || t[i + 3] != ':') return std::nullopt;
    offset_min = (t[i] == '-' ? -1 : 1) * (*oh * 60 + *om);
    i += 6;
  } else {
    return std::nullopt;
  }
  if (i != t.size()) return std::nullopt;
  const std::int64_t secs =
      days_from_civil(*y, static_cast<unsigned>(*mo), static_cast<unsigned>(*d)) * 86400 +
      *h * 3600 + *mi * 60 + *s - offset_min * 60;
  return secs * 1000 + static_cast<std::int64_t>(std::floor(frac * 1000));
}

std::vector<PrometheusPanel> prometheus_panels(const std::string& w) {
  const std::string hits = "rate(" + std::string(names::kGatewayRateLimitHits) + "[" + w + "])";
  const std::string requests = "rate(" + std::string(names::kRequests) + "[" + w + "])";
  const std::string admitted = "rate(" + std::string(names::kRequests) + "{decision!=\"" +
                               std::string(names::kDecisionDenied) + "\"}[" + w + "])";
  return {
      {"sum by (tier) (" + hits + ")", std::string(dashboard_series::kTierRejectedRate), {}},
      {"sum by (tier, model) (" + hits + ")", std::string(live_series::kRejectedRate), {}},
      {"sum by (tier, model) (" + admitted + ")", std::string(live_series::kAdmittedRate), {}},
      {"sum(" + hits + ") / sum(" + requests + ")",
       std::string(dashboard_series::kRejectedRatio),
       {}},
      {std::string(names::kGatewayQuotaBurnRatio),
       std::string(dashboard_series::kKeyQuotaBurn),
       {{std::string(names::kApiKeyHash), "api_key"}}},
      // The raw families the default alert rules read, summed over scrape targets (the rules
      // group by tier and model, not by instance).
      {"sum by (tier, model) (" + std::string(names::kGatewayRateLimitHits) + ")",
       std::string(names::kGatewayRateLimitHits),
       {}},
      {"max by (api_key_hash, model) (" + std::string(names::kGatewayQuotaBurnRatio) + ")",
       std::string(names::kGatewayQuotaBurnRatio),
       {}},
      {"sum by (le, tier, model) (" + std::string(names::kGatewayTokenBucketUsage) + "_bucket)",
       std::string(names::kGatewayTokenBucketUsage) + "_bucket",
       {}},
      // Key names (the dashboard joins them on api_key_hash), whatever gateway exports them.
      {"max by (api_key_hash, name, tier) (" + std::string(names::kKeyInfo) + ")",
       std::string(names::kKeyInfo),
       {}},
      // Fail-open: the circuit state and the decisions made without a limit check.
      {"max by (backend) (" + std::string(names::kCircuitState) + ")",
       std::string(names::kCircuitState),
       {}},
      {"sum by (decision) (" + std::string(names::kRequests) + "{decision=\"" +
           std::string(names::kDecisionDegraded) + "\"})",
       std::string(names::kRequests),
       {}},
  };
}

PrometheusLiveSource::PrometheusLiveSource(PrometheusLiveOptions options, const Clock& clock,
                                           std::shared_ptr<SessionState> series)
    : LiveSource(std::move(series)),
      options_(std::move(options)),
      clock_(clock),
      client_(options_.url, options_.fetch),
      rhythm_(options_.backoff),
      panels_(prometheus_panels(options_.rate_window)) {
  now_ms_ = wall_ms(clock_);
  own_key_rows();
}

int PrometheusLiveSource::advance(Nanos d) {
  if (!rhythm_.due(d)) return 0;
  refresh();
  return 1;
}

void PrometheusLiveSource::refresh() {
  const std::int64_t now = std::max(wall_ms(clock_), now_ms_);
  series_->writing_as("prometheus");
  Status read = query_panels(now);
  if (read.ok()) read = read_alerts();
  if (!read.ok()) {
    last_error_ = read.error();
    const Nanos wait = rhythm_.failed();
    series_->event(now, "prometheus: refresh failed: " + read.error() + " (retry in " +
                            std::to_string(ms(wait)) + " ms)");
    series_->source_down("prometheus", now);
    (void)series_->evaluate(now);
    return;
  }
  series_->source_up("prometheus", now);
  if (rhythm_.worked(options_.refresh_interval)) {
    series_->event(now, std::string("prometheus: ") +
                            (rhythm_.failures() > 0 ? "reconnected to " : "connected to ") +
                            client_.base_url());
  }
  last_error_.clear();
  now_ms_ = now;
  if (const Status e = series_->evaluate(now); !e.ok()) last_error_ = e.error();
  series_->refreshed(now);
}

Status PrometheusLiveSource::query_panels(std::int64_t now) {
  const std::int64_t step = std::max<std::int64_t>(1, ms(options_.step));
  const std::int64_t end = now / step * step;  // whole steps: every refresh reads the same grid
  const std::int64_t start =
      queried_to_ms_ ? *queried_to_ms_ + step : end - ms(options_.backfill) / step * step;
  if (start > end) return {};
  std::map<std::pair<std::string, std::string>, std::pair<double, double>> latest;
  for (const PrometheusPanel& p : panels_) {
    auto r =
        client_.query_range(p.expr, static_cast<double>(start) / 1000.0,
                            static_cast<double>(end) / 1000.0, static_cast<double>(step) / 1000.0);
    if (!r) return make_error(r.error());
    for (const probe::PromSeries& s : r->series) {
      metrics::Labels l = s.labels;
      for (const auto& [from, to] : p.rename) {
        if (l.has(from)) {
          const std::string v(l.get(from));
          l.erase(from);
          l.set(to, v);
        }
      }
      l.set("__name__", p.series);
      for (const metrics::Sample& smp : s.samples) series_->append(l, smp);
      if (s.samples.empty()) continue;
      const auto tm =
          std::make_pair(std::string(l.get(names::kTier)), std::string(l.get(names::kModel)));
      if (p.series == live_series::kAdmittedRate) latest[tm].first = s.samples.back().value;
      if (p.series == live_series::kRejectedRate) latest[tm].second = s.samples.back().value;
    }
  }
  for (const auto& [tm, v] : latest) rates_[tm] = v;
  queried_to_ms_ = end;
  return {};
}

Status PrometheusLiveSource::read_alerts() {
  auto rules = client_.rules();
  if (!rules) return make_error(rules.error());
  auto alerts = client_.alerts();
  if (!alerts) return make_error(alerts.error());
  std::vector<AlertRow> rows;
  std::map<std::string, const probe::PromRule*> by_name;
  for (const probe::PromRule& r : *rules) {
    if (r.type != "alerting") continue;
    by_name[r.name] = &r;
    const std::string health = r.health == "err" ? "error: " + r.last_error : r.health;
    auto [it, fresh] = rule_health_.try_emplace(r.name, health);
    if ((fresh && r.health == "err") || (!fresh && it->second != health)) {
      series_->event(now_ms_, "prometheus: rule " + r.name + " health " + health);
      it->second = health;
    }
  }
  std::map<std::string, bool> has_alert;
  for (const probe::PromAlert& a : *alerts) {
    AlertRow row;
    row.origin = "prometheus";
    metrics::Labels shown = a.labels;
    row.rule = std::string(shown.get("alertname"));
    shown.erase("alertname");
    row.severity = std::string(shown.get("severity"));
    shown.erase("severity");
    row.labels = shown.to_string();
    row.entity = alert_subject(shown, &series_->names());
    row.state = state_of(a.state);
    row.since_ms = parse_rfc3339_ms(a.active_at).value_or(0);
    if (const auto r = by_name.find(row.rule); r != by_name.end()) {
      row.for_ms = static_cast<std::int64_t>(std::llround(r->second->for_s * 1000));
    }
    row.value = a.value;
    row.summary = std::string(a.annotations.get("summary"));
    has_alert[row.rule] = true;
    rows.push_back(std::move(row));
  }
  for (const auto& [name, rule] : by_name) {
    if (has_alert.contains(name)) continue;
    AlertRow row;
    row.origin = "prometheus";
    row.rule = name;
    row.state = AlertState::inactive;
    row.severity = std::string(rule->labels.get("severity"));
    row.summary =
        rule->health == "err" ? "rule error: " + rule->last_error : "server rule: " + rule->query;
    rows.push_back(std::move(row));
  }
  std::stable_sort(rows.begin(), rows.end(), [](const AlertRow& x, const AlertRow& y) {
    const auto rank = [](AlertState st) {
      return st == AlertState::firing ? 0 : st == AlertState::pending ? 1 : 2;
    };
    return rank(x.state) < rank(y.state);
  });
  server_alerts_ = std::move(rows);
  return {};
}

void PrometheusLiveSource::contribute(DashboardSnapshot& s) const {
  // Server-side alerts after the local ones: active local, then the server's.
  std::vector<AlertRow> server = server_alerts_;
  set_pending_progress(server,
                       s.now_ms);  // pending since the server's activeAt, at the snapshot's now
  s.alerts.insert(s.alerts.end(), server.begin(), server.end());
  for (const auto& [tm, v] : rates_) {
    KeyRow row;
    row.api_key = "(all keys)";
    row.tier = tm.first;
    row.model = tm.second;
    row.algorithm = "prometheus";
    row.parameters = "rates over " + options_.rate_window + " from " + client_.base_url();
    row.requests_per_s = std::isnan(v.first) || std::isnan(v.second) ? 0 : v.first + v.second;
    row.rejected_per_s = std::isnan(v.second) ? 0 : v.second;
    row.last_seen_ms = queried_to_ms_.value_or(0);
    row.spend_reported = row.quota_reported = false;  // rates only
    s.keys.push_back(std::move(row));
  }
}

}  // namespace limitscope
