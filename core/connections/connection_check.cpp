#include "core/connections/connection_check.h"

#include <set>

#include "core/common/number_format.h"
#include "core/probe/limiter_profile.h"
#include "core/probe/metrics_scrape.h"
#include "core/probe/prometheus_client.h"
#include "core/redis/client_options.h"
#include "core/redis/connection.h"
#include "core/redis/endpoint.h"

namespace limitscope::connections {
namespace {

CheckResult failure(std::string kind, std::string message) {
  CheckResult r;
  r.error_kind = std::move(kind);
  r.message = std::move(message);
  return r;
}

CheckResult redis_failure(const redis::RedisError& e) {
  return failure(std::string(redis::to_string(e.kind)), e.message);
}

// "redis_version:7.0.15" out of INFO server.
std::string info_field(const std::string& info, const std::string& name) {
  const auto at = info.find(name + ":");
  if (at == std::string::npos) return {};
  const auto from = at + name.size() + 1;
  return info.substr(from, info.find_first_of("\r\n", from) - from);
}

// Keys SCAN found, by whether a limiter profile matches them.
struct ScanTally {
  std::set<std::string> limiter;
  std::set<std::string> other;
  std::size_t calls = 0;
  bool complete = true;  ///< every SCAN walked its whole keyspace
};

// A bounded SCAN of one server: enough to say whether limiter keys are there, never a walk of
// a huge keyspace (the count is a lower bound when the budget runs out first).
redis::Result<void> scan_keys(redis::Connection& c, const std::string& match, const CheckOptions& o,
                              const std::vector<probe::LimiterProfile>& profiles,
                              ScanTally& tally) {
  std::string cursor = "0";
  for (std::size_t calls = 0; calls < o.scan_calls;) {
    auto r = c.command({"SCAN", cursor, "MATCH", match, "COUNT", std::to_string(o.scan_count)});
    ++calls;
    ++tally.calls;
    if (!r) return r.error();
    if (!r->is_array() || r->elements.size() != 2 || !r->elements[1].is_array()) {
      return redis::make_redis_error(redis::ErrorKind::protocol, "SCAN answered " + r->describe());
    }
    for (const redis::Value& k : r->elements[1].elements) {
      (probe::match_profile(profiles, k.str) != nullptr ? tally.limiter : tally.other)
          .insert(k.str);
    }
    cursor = r->elements[0].str;
    if (cursor == "0") return {};
  }
  tally.complete = false;
  return {};
}

std::string keys_text(const ScanTally& tally, const std::string& match,
                      const std::string& calls_scope) {
  return (tally.complete ? "" : "at least ") + std::to_string(tally.limiter.size()) +
         " limiter keys, " + std::to_string(tally.other.size()) + " other" +
         (match == "*" ? "" : " matching " + match) +
         (tally.complete
              ? ""
              : " (first " + std::to_string(tally.calls) + " SCAN calls" + calls_scope + ")");
}

// PING, INFO and the bounded SCAN on every master (one server: on it; a cluster's map read
// first, each master holding its own keys). A master that does not answer fails the check,
// named: the dashboard would miss its keys.
CheckResult check_redis(const ResolvedConnection& t, const CheckOptions& o, Clock& clock) {
  std::vector<probe::LimiterProfile> profiles;
  if (!t.saved.profiles.empty()) {
    auto loaded = probe::load_profiles_file(t.saved.profiles);
    if (!loaded) return failure("profiles", loaded.error());
    profiles = std::move(*loaded);
  }
  for (auto& p : probe::builtin_profiles()) profiles.push_back(std::move(p));

  redis::EndpointOptions eo = redis::EndpointOptions::with({o.timeout, o.timeout});
  eo.retry_budget = o.timeout;
  redis::Endpoint endpoint(t.redis_url, eo, clock);
  const std::string match = t.saved.scan_match.empty() ? "*" : t.saved.scan_match;
  double slowest_ping_ms = 0;
  std::string version;
  ScanTally tally;
  auto each =
      endpoint.on_each_master([&](redis::Connection& c, const std::string&) -> redis::Result<void> {
        const Nanos before = clock.now();
        auto pong = c.command({"PING"});
        const Nanos after = clock.now();
        if (!pong) return pong.error();
        if (pong->str != "PONG")
          return redis::make_redis_error(redis::ErrorKind::protocol,
                                         "PING answered " + pong->describe());
        slowest_ping_ms = std::max(
            slowest_ping_ms, std::chrono::duration<double, std::milli>(after - before).count());
        if (version.empty()) {
          auto info = c.command({"INFO", "server"});
          if (!info) return info.error();
          version = info_field(info->str, "redis_version");
        }
        return scan_keys(c, match, o, profiles, tally);
      });
  if (!each) return redis_failure(each.error());
  for (const redis::NodeResult& n : *each) {
    if (!n.result.ok()) return redis_failure(n.result.error());
  }
  const std::size_t masters = each->size();
  const int covered = endpoint.covered_slots();
  const bool cluster = endpoint.is_cluster();
  CheckResult res;
  res.ok = true;
  res.message = "PING " + fixed_text(slowest_ping_ms, 1) + " ms" +
                (cluster ? " (slowest master)" : "") +
                (version.empty() ? "" : " · Redis " + version) +
                (cluster ? " · cluster of " + std::to_string(masters) + " masters" : "") +
                (covered == redis::kClusterSlotCount
                     ? ""
                     : ", " + std::to_string(covered) + " of 16384 slots served") +
                " · " + keys_text(tally, match, cluster ? " over all masters" : "");
  res.figures = {{"ping_ms", fixed_text(slowest_ping_ms, 3)}, {"redis_version", version}};
  if (cluster) {
    res.figures.emplace_back("masters", std::to_string(masters));
    res.figures.emplace_back("slots_covered", std::to_string(covered));
  }
  res.figures.emplace_back("limiter_keys", std::to_string(tally.limiter.size()));
  res.figures.emplace_back("other_keys", std::to_string(tally.other.size()));
  res.figures.emplace_back("scan_complete", tally.complete ? "1" : "0");
  return res;
}

http::FetchOptions fetch_options(const ResolvedConnection& t, const CheckOptions& o) {
  http::FetchOptions f = t.fetch;
  f.connect_timeout = o.timeout;
  f.read_timeout = o.timeout;
  f.retries = 0;  // the operator presses the button again
  return f;
}

// One GET: transport failures and statuses other than 200 are told apart from bodies that do
// not parse, so the operator knows whether to look at the network, the auth or the endpoint.
Expected<http::FetchResult> get(const http::HttpUrl& url, const http::FetchOptions& f,
                                CheckResult& failed) {
  auto fetched = http::http_get(url, f);
  if (!fetched) {
    failed = failure("transport", fetched.error());
    return make_error(fetched.error());
  }
  return fetched;
}

// The start of an error body, on one line, with any credential the server echoed hidden.
std::string body_start(const std::string& body, const http::FetchOptions& f) {
  std::string head = http::redact_credentials(body.substr(0, 4096), f).substr(0, 200);
  for (char& ch : head) {
    if (ch == '\n' || ch == '\r') ch = ' ';
  }
  return head;
}

CheckResult check_metrics(const ResolvedConnection& t, const CheckOptions& o, const Clock& clock) {
  CheckResult failed;
  auto fetched = get(t.http_url, fetch_options(t, o), failed);
  if (!fetched) return failed;
  const std::string where = "GET " + t.http_url.to_string();
  if (fetched->status != 200) {
    return failure("http", where + ": HTTP " + std::to_string(fetched->status) + ": " +
                               body_start(fetched->body, t.fetch));
  }
  const auto at_ms = std::chrono::duration_cast<std::chrono::milliseconds>(clock.wall()).count();
  auto scrape =
      probe::parse_scrape(fetched->body, fetched->content_type, at_ms, t.http_url.to_string());
  if (!scrape) return failure("parse", scrape.error());
  const std::size_t families = scrape->report.families.size();
  CheckResult res;
  res.ok = true;
  res.message = std::to_string(scrape->samples.size()) + " series in " + std::to_string(families) +
                " metrics from " + t.http_url.to_string();
  res.figures = {{"series", std::to_string(scrape->samples.size())},
                 {"metrics", std::to_string(families)}};
  return res;
}

CheckResult check_prometheus(const ResolvedConnection& t, const CheckOptions& o) {
  http::HttpUrl url = t.http_url;
  // A path prefix (Prometheus behind a proxy at /prom) is kept, as PrometheusClient does.
  std::string prefix = url.path.substr(0, url.path.find('?'));
  while (!prefix.empty() && prefix.back() == '/') prefix.pop_back();
  url.path = prefix + "/api/v1/query?query=up";
  CheckResult failed;
  auto fetched = get(url, fetch_options(t, o), failed);
  if (!fetched) return failed;
  const std::string where = "GET " + url.to_string();
  auto up = probe::parse_query_response(fetched->body, where);
  if (fetched->status != 200) {
    // Prometheus explains a refusal in an error document; a proxy answers with anything.
    return failure("http", where + ": HTTP " + std::to_string(fetched->status) + ": " +
                               (up ? body_start(fetched->body, t.fetch) : up.error()));
  }
  if (!up) return failure("parse", up.error());
  std::size_t targets_up = 0;
  for (const auto& s : up->series) {
    if (!s.samples.empty() && s.samples.back().value == 1) ++targets_up;
  }
  CheckResult res;
  res.ok = true;
  res.message = "query up: " + std::to_string(up->series.size()) + " targets, " +
                std::to_string(targets_up) + " up, at " + t.http_url.to_string();
  res.figures = {{"targets", std::to_string(up->series.size())},
                 {"targets_up", std::to_string(targets_up)}};
  return res;
}

}  // namespace

std::string CheckResult::figure(const std::string& name) const {
  for (const auto& [k, v] : figures) {
    if (k == name) return v;
  }
  return {};
}

CheckOptions check_options(ConnectionKind kind) {
  CheckOptions o;
  if (kind == ConnectionKind::redis) o.timeout = redis::kDefaultTimeout;
  return o;
}

CheckResult check_connection(const ResolvedConnection& target, const CheckOptions& options,
                             Clock& clock) {
  switch (target.saved.kind) {
    case ConnectionKind::redis:
      return check_redis(target, options, clock);
    case ConnectionKind::metrics:
      return check_metrics(target, options, clock);
    case ConnectionKind::prometheus:
      return check_prometheus(target, options);
  }
  return failure("usage", "unknown connection kind");
}

}  // namespace limitscope::connections
