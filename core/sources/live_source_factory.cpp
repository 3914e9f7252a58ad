#include "core/sources/live_source_factory.h"

#include <algorithm>
#include <fstream>
#include <sstream>

#include "core/limiter/rate.h"
#include "core/sources/composite_live_source.h"
#include "core/sources/metrics_live_source.h"
#include "core/sources/prometheus_live_source.h"
#include "core/sources/redis_live_source.h"

namespace limitscope {

namespace {

// The options of an HTTP-polled source (`flag` names it in errors) on `url` with `auth`.
template <class Options>
Expected<Options> http_options(const char* flag, const std::string& url,
                               const http::HttpAuth& auth) {
  auto parsed = http::parse_http_url(url);
  if (!parsed) return make_error(std::string(flag) + ": " + parsed.error());
  Options o;
  o.url = *parsed;
  auth.apply_to(o.fetch);
  return o;
}

}  // namespace

Expected<Nanos> check_live_interval(Nanos interval, std::string_view what) {
  if (interval < kMinLiveInterval || interval > kMaxLiveInterval) {
    return make_error(std::string(what) + " " + format_duration(interval) + ": expected " +
                      format_duration(kMinLiveInterval) + " to " +
                      format_duration(kMaxLiveInterval));
  }
  return interval;
}

Expected<std::unique_ptr<LiveSource>> open_live_source(const LiveSpec& spec, Clock& clock) {
  if (spec.empty()) return make_error("no live source given (--redis, --metrics or --prometheus)");
  // Checked before anything connects, like every other input.
  if (spec.metrics_interval) {
    if (auto ok = check_live_interval(*spec.metrics_interval, "--metrics scrape_interval"); !ok)
      return make_error(ok.error());
  }
  if (spec.prometheus_interval) {
    if (auto ok = check_live_interval(*spec.prometheus_interval, "--prometheus scrape_interval");
        !ok)
      return make_error(ok.error());
  }
  SessionOptions so;
  // A live session may follow 10,000 keys for a day: 20 minutes of per-key history at one
  // refresh a second, and the series of keys not read for an hour go (docs/live-sources.md).
  so.key_samples_per_series = kLiveKeySamples;
  so.idle_series_ms = kLiveIdleSeriesMs;
  so.recording_rows = kLiveRecordingRows;
  if (!spec.rules_file.empty()) {
    std::ifstream in(spec.rules_file, std::ios::binary);
    if (!in) return make_error(spec.rules_file + ": cannot open the rule file");
    std::ostringstream text;
    text << in.rdbuf();
    so.rules_text = text.str();
    so.rules_source = spec.rules_file;
  }
  auto series = SessionState::create(so);
  if (!series) return make_error(series.error());
  if (!spec.key_names_file.empty()) {
    auto names = load_key_names_file(spec.key_names_file);
    if (!names) return make_error("--key-names: " + names.error());
    (*series)->set_names(std::move(*names));
  }
  const int parts = (spec.redis_url.empty() ? 0 : 1) + (spec.metrics_url.empty() ? 0 : 1) +
                    (spec.prometheus_url.empty() ? 0 : 1);

  std::vector<std::unique_ptr<LiveSource>> made;
  if (!spec.redis_url.empty()) {
    auto url = redis::parse_redis_url(spec.redis_url);
    if (!url) return make_error("--redis: " + url.error());
    RedisLiveOptions o;
    o.url = *url;
    if (!spec.redis_scan_match.empty()) o.probe.match = spec.redis_scan_match;
    o.probe.pressure_index = spec.redis_pressure_index;
    if (!spec.profiles_file.empty()) {
      auto loaded = probe::load_profiles_file(spec.profiles_file);
      if (!loaded) return make_error(loaded.error());
      o.profiles = std::move(*loaded);
    }
    for (auto& p : probe::builtin_profiles()) o.profiles.push_back(std::move(p));
    o.stamp_with_server_time = parts == 1;
    made.push_back(std::make_unique<RedisLiveSource>(std::move(o), clock, *series));
  }
  if (!spec.metrics_url.empty()) {
    auto o = http_options<MetricsLiveOptions>("--metrics", spec.metrics_url, spec.metrics_auth);
    if (!o) return make_error(o.error());
    if (spec.metrics_interval) o->scrape_interval = *spec.metrics_interval;
    made.push_back(std::make_unique<MetricsLiveSource>(std::move(*o), clock, *series));
  }
  if (!spec.prometheus_url.empty()) {
    auto o = http_options<PrometheusLiveOptions>("--prometheus", spec.prometheus_url,
                                                 spec.prometheus_auth);
    if (!o) return make_error(o.error());
    if (spec.prometheus_interval) {
      o->refresh_interval = *spec.prometheus_interval;
      o->step = std::clamp<Nanos>(*spec.prometheus_interval, std::chrono::seconds(1),
                                  std::chrono::minutes(1));
    }
    made.push_back(std::make_unique<PrometheusLiveSource>(std::move(*o), clock, *series));
  }
  if (made.size() == 1) return std::move(made.front());
  return std::unique_ptr<LiveSource>(
      std::make_unique<CompositeLiveSource>(*series, std::move(made)));
}

}  // namespace limitscope
