#include "core/probe/rollout_guard.h"

#include "core/probe/metrics_scrape.h"

namespace limitscope::probe {

Expected<std::unique_ptr<RolloutGuard>> RolloutGuard::make(const std::string& expr, const std::string& source_url) {
  auto parsed = metrics::parse_promql(expr);
  if (!parsed) return make_error("guard " + expr + ": " + parsed.error());
  auto url = parse_http_url(source_url);
  if (!url) return make_error("guard source " + source_url + ": " + url.error());
  return std::unique_ptr<RolloutGuard>(new RolloutGuard(std::move(parsed).value(), std::move(url).value()));
}

GuardReading RolloutGuard::check(std::int64_t now_ms) {
  GuardReading g;
  auto scrape = scrape_metrics(url_, FetchOptions{}, now_ms);
  if (!scrape) {
    g.error = scrape.error();
    return g;
  }
  append_scrape(store_, *scrape);
  auto v = metrics::evaluate(*expr_, store_, now_ms);
  if (!v) {
    g.error = v.error();
    return g;
  }
  if (v->kind == metrics::QueryValue::Kind::scalar) {
    g.value = v->scalar;
    g.tripped = v->scalar != 0;
  } else if (!v->vector.empty()) {
    g.value = v->vector.front().value;
    g.tripped = true;
  }
  return g;
}

}  // namespace limitscope::probe
