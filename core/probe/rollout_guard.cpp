#include "core/probe/rollout_guard.h"

#include "core/probe/metrics_scrape.h"

namespace limitscope::probe {

namespace {

// Alerting-rule semantics: a sample trips, a scalar trips when not 0.
GuardReading read_value(bool scalar, std::optional<double> first) {
  return GuardReading{scalar ? (first && *first != 0) : first.has_value(), first};
}

}  // namespace

RolloutGuard::RolloutGuard(std::string expr, metrics::ExprPtr parsed, http::HttpUrl url,
                           http::FetchOptions options, bool prometheus)
    : expr_(std::move(expr)),
      parsed_(std::move(parsed)),
      url_(std::move(url)),
      options_(std::move(options)) {
  if (prometheus) prometheus_.emplace(url_, options_);
}

Expected<std::unique_ptr<RolloutGuard>> RolloutGuard::make(const std::string& expr,
                                                           const std::string& source,
                                                           const http::HttpAuth& auth) {
  const bool prometheus = source.starts_with(kPrometheusSource);
  const std::string url_text = prometheus ? source.substr(kPrometheusSource.size()) : source;
  metrics::ExprPtr parsed;
  if (!prometheus) {
    auto p = metrics::parse_promql(expr);
    if (!p) return make_error("guard " + expr + ": " + p.error());
    parsed = std::move(p).value();
  } else if (expr.empty()) {
    return make_error("guard: an empty expression");
  }
  auto url = http::parse_http_url(url_text);
  if (!url) return make_error("guard source " + url_text + ": " + url.error());
  http::FetchOptions options;
  auth.apply_to(options);
  return std::unique_ptr<RolloutGuard>(new RolloutGuard(
      expr, std::move(parsed), std::move(url).value(), std::move(options), prometheus));
}

Expected<GuardReading> RolloutGuard::check(std::int64_t now_ms) {
  if (prometheus_) {
    auto r = prometheus_->query(expr_);
    if (!r) return make_error(r.error());
    if (r->result_type != "scalar" && r->result_type != "vector") {
      return make_error("guard " + expr_ + ": Prometheus returned a " + r->result_type +
                        ", not an instant vector or scalar");
    }
    std::optional<double> first;
    if (!r->series.empty() && !r->series.front().samples.empty())
      first = r->series.front().samples.front().value;
    return read_value(r->result_type == "scalar", first);
  }
  auto scrape = scrape_metrics(url_, options_, now_ms);
  if (!scrape) return make_error(scrape.error());
  append_scrape(store_, *scrape);
  auto v = metrics::evaluate(*parsed_, store_, now_ms);
  if (!v) return make_error(v.error());
  const bool scalar = v->kind == metrics::QueryValue::Kind::scalar;
  std::optional<double> first;
  if (scalar)
    first = v->scalar;
  else if (!v->vector.empty())
    first = v->vector.front().value;
  return read_value(scalar, first);
}

redis::GuardFn guard_once(RolloutGuard& guard, const std::int64_t& now_ms,
                          std::optional<Expected<redis::GuardCheck>>& memo) {
  return [&guard, &now_ms, &memo] {
    if (!memo) memo = guard.check(now_ms);
    return *memo;
  };
}

}  // namespace limitscope::probe
