#include "core/probe/metrics_scrape.h"

#include "core/metrics/metric_names.h"

namespace limitscope::probe {

Expected<Scrape> parse_scrape(std::string_view body, std::string_view content_type,
                              std::int64_t at_ms, std::string_view source) {
  metrics::ParseOptions options;
  options.content_type = content_type;
  auto parsed = metrics::parse_exposition_collect(body, options, 5);
  if (!parsed.errors.empty()) {
    std::string msg = std::string(source) + ": scrape refused, " +
                      std::to_string(parsed.report.errors) + " parse error(s):";
    for (const auto& e : parsed.errors)
      msg += " line " + std::to_string(e.line) + ": " + e.message + ";";
    msg.pop_back();
    return make_error(msg);
  }
  Scrape s;
  s.at_ms = at_ms;
  s.samples = std::move(parsed.samples);
  s.report = parsed.report;
  return s;
}

Expected<Scrape> scrape_metrics(const http::HttpUrl& url, const http::FetchOptions& options,
                                std::int64_t at_ms) {
  http::FetchOptions o = options;
  if (o.accept.empty()) {
    o.accept = "application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5";
  }
  auto fetched = http::http_get(url, o);
  if (!fetched) return make_error(fetched.error());
  if (fetched->status != 200) {
    std::string start =
        http::redact_credentials(fetched->body.substr(0, 4096), options).substr(0, 200);
    for (char& c : start) {
      if (c == '\n' || c == '\r') c = ' ';
    }
    const bool refused = fetched->status == 401 || fetched->status == 403;
    const bool sent = !options.bearer_token.empty() || !options.basic_user.empty();
    const std::string why = !refused ? ""
                            : sent   ? " (credentials refused)"
                                     : " (no credentials sent; the endpoint needs them)";
    return make_error("GET " + url.to_string() + ": HTTP " + std::to_string(fetched->status) + why +
                      (start.empty() ? "" : ": " + start));
  }
  return parse_scrape(fetched->body, fetched->content_type, at_ms, url.to_string());
}

std::size_t append_scrape(metrics::SeriesStore& store, const Scrape& scrape) {
  std::size_t refused = 0;
  for (const auto& s : scrape.samples) {
    const auto r =
        store.append(s.labels, metrics::Sample{s.timestamp_ms.value_or(scrape.at_ms), s.value});
    if (!r.ok()) ++refused;
  }
  return refused;
}

Expected<DerivedFigures> derive_figures(const Scrape& before, const Scrape& after) {
  if (after.at_ms <= before.at_ms) {
    return make_error("derived figures need two scrapes in time order");
  }
  DerivedFigures d;
  d.interval_s = static_cast<double>(after.at_ms - before.at_ms) / 1000.0;
  std::map<metrics::Labels, double> earlier;
  for (const auto& s : before.samples) {
    if (s.labels.metric_name() == metrics::names::kGatewayRateLimitHits)
      earlier[s.labels] = s.value;
  }
  for (const auto& s : after.samples) {
    const auto name = s.labels.metric_name();
    if (name == metrics::names::kGatewayRateLimitHits) {
      auto it = earlier.find(s.labels);
      double increase = s.value;  // a series new since `before` counts from zero
      if (it != earlier.end()) {
        if (s.value >= it->second) {
          increase = s.value - it->second;
        } else {
          d.counter_reset = true;  // restarted: the whole new value is the increase
        }
      }
      const double rate = increase / d.interval_s;
      d.rejected_per_s += rate;
      d.rejected_per_s_by_tier[std::string(s.labels.get(metrics::names::kTier))] += rate;
      d.rejected_per_s_by_model[std::string(s.labels.get(metrics::names::kModel))] += rate;
    } else if (name == metrics::names::kGatewayQuotaBurnRatio && s.value >= d.max_quota_burn) {
      d.max_quota_burn = s.value;
      d.max_quota_burn_series = s.labels.to_string();
    }
  }
  return d;
}

}  // namespace limitscope::probe
