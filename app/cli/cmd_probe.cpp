// limitscope-cli probe --redis: finds the limiter keys in a Redis (ours and other gateways'
// schemas, by profile) with a full SCAN pass and prints each key's level or window occupancy
// at the server's time. Exit 0 when the probe ran (per-key problems are in the output), 2 on
// bad usage, unreadable profiles or an unreachable server.

#include <iostream>
#include <nlohmann/json.hpp>

#include "app/cli/audit_options.h"
#include "app/cli/commands.h"
#include "app/cli/json_output.h"
#include "app/cli/redis_options.h"
#include "core/limiter/rate.h"
#include "core/probe/endpoint_probe.h"
#include "core/probe/metrics_scrape.h"
#include "core/probe/profile_detect.h"
#include "core/probe/prometheus_client.h"

namespace limitscope::cli {

namespace {

constexpr const char* kName = "probe";

nlohmann::json key_json(const probe::KeyReading& k) {
  nlohmann::json j{
      {"key", k.key}, {"profile", k.profile}, {"kind", std::string(probe::to_string(k.kind))}};
  j["level"] = json_or_null(k.level);
  j["capacity"] = json_or_null(k.capacity);
  j["fill"] = json_or_null(k.fill);
  j["count"] = json_or_null(k.count);
  j["limit"] = json_or_null(k.limit);
  j["occupancy"] = json_or_null(k.occupancy);
  j["ttl_ms"] = json_or_null(k.ttl_ms);
  j["node"] = json_or_null(k.node);
  j["error"] = json_or_null(k.error);
  return j;
}

// probe --metrics: `scrapes` scrapes `interval` apart; prints the last one's series, and the
// derived figures of the last two.
int probe_metrics(const Args& args) {
  auto url = http::parse_http_url(*args.get("metrics"));
  if (!url) return usage_error(kName, "--metrics: " + url.error());
  auto scrapes = integer_option(args, "scrapes", 2, 1, 1000);
  if (!scrapes) return usage_error(kName, scrapes.error());
  const auto interval = duration_option(args, "interval", std::chrono::seconds(1));
  if (!interval) return usage_error(kName, interval.error());
  auto fo = audit_fetch_options(args);
  if (!fo) return usage_error(kName, fo.error());
  SteadyClock& clock = SteadyClock::instance();
  CancelToken never;
  std::vector<probe::Scrape> good;
  std::vector<std::string> errors;
  for (long long i = 0; i < *scrapes; ++i) {
    if (i > 0) clock.wait_until(clock.now() + *interval, never);
    auto s = probe::scrape_metrics(*url, *fo, clock.wall().count() / 1'000'000);
    if (s) {
      good.push_back(std::move(s).value());
    } else {
      errors.push_back(s.error());
    }
  }
  if (good.empty()) return usage_error(kName, errors.back());

  const probe::Scrape& last = good.back();
  std::optional<probe::DerivedFigures> derived;
  if (good.size() >= 2) {
    auto d = probe::derive_figures(good[good.size() - 2], last);
    if (d) derived = *d;
  }
  if (args.has("json")) {
    nlohmann::json j;
    j["series"] = nlohmann::json::array();
    for (const auto& sample : last.samples) {
      nlohmann::json labels = nlohmann::json::object();
      for (const auto& [k, v] : sample.labels.pairs()) {
        if (k != "__name__") labels[k] = v;
      }
      j["series"].push_back({{"name", std::string(sample.labels.metric_name())},
                             {"labels", labels},
                             {"value", sample.value}});
    }
    j["errors"] = errors;
    if (derived) {
      j["derived"] = {{"interval_s", derived->interval_s},
                      {"rejected_per_s", derived->rejected_per_s},
                      {"rejected_per_s_by_tier", derived->rejected_per_s_by_tier},
                      {"rejected_per_s_by_model", derived->rejected_per_s_by_model},
                      {"max_quota_burn", derived->max_quota_burn},
                      {"max_quota_burn_series", derived->max_quota_burn_series},
                      {"counter_reset", derived->counter_reset}};
    } else {
      j["derived"] = nullptr;
    }
    std::cout << json_text(j) << "\n";
  } else {
    std::cout << last.samples.size() << " samples from " << url->to_string() << "\n";
    if (derived) {
      std::cout << "429/s: " << derived->rejected_per_s << " over " << derived->interval_s << " s";
      for (const auto& [tier, r] : derived->rejected_per_s_by_tier)
        std::cout << "  " << tier << " " << r;
      std::cout << "\nmax quota burn: " << derived->max_quota_burn << " "
                << derived->max_quota_burn_series << "\n";
    }
    for (const auto& e : errors) std::cout << "error: " << e << "\n";
  }
  return 0;
}

// probe --prometheus: one instant query (or the server's alerts) through the HTTP API.
int probe_prometheus(const Args& args) {
  auto url = http::parse_http_url(*args.get("prometheus"));
  if (!url) return usage_error(kName, "--prometheus: " + url.error());
  const auto query = args.get("query");
  if (!query && !args.has("alerts"))
    return usage_error(kName, "--prometheus needs --query EXPR or --alerts");
  auto token = bearer_token_option(args);
  if (!token) return usage_error(kName, token.error());
  http::FetchOptions fo;
  fo.bearer_token = std::move(*token);
  probe::PrometheusClient client(*url, fo);
  nlohmann::json j;
  if (query) {
    auto r = client.query(*query);
    if (!r) return usage_error(kName, r.error());
    j["result_type"] = r->result_type;
    j["series"] = nlohmann::json::array();
    for (const auto& s : r->series) {
      nlohmann::json labels = nlohmann::json::object();
      for (const auto& [k, v] : s.labels.pairs()) labels[k] = v;
      j["series"].push_back({{"labels", labels},
                             {"time", static_cast<double>(s.samples.back().t_ms) / 1000.0},
                             {"value", s.samples.back().value}});
    }
    if (r->result_type == "string") j["string"] = r->string_value;
    j["warnings"] = r->warnings;
  }
  if (args.has("alerts")) {
    auto a = client.alerts();
    if (!a) return usage_error(kName, a.error());
    j["alerts"] = nlohmann::json::array();
    for (const auto& alert : *a) {
      nlohmann::json labels = nlohmann::json::object();
      for (const auto& [k, v] : alert.labels.pairs()) labels[k] = v;
      j["alerts"].push_back({{"labels", labels},
                             {"state", alert.state},
                             {"active_at", alert.active_at},
                             {"value", alert.value}});
    }
  }
  if (args.has("json")) {
    std::cout << json_text(j) << "\n";
  } else {
    std::cout << json_text(j, 2) << "\n";
  }
  return 0;
}

}  // namespace

int run_probe(const CommandArgs& argv) {
  std::vector<OptionSpec> specs{
      {"redis", "URL",
       "redis://[user:password@]host:port/db, unix:///path or redis+cluster://host:port,host:port"},
      redis_password_file_spec(),
      {"profiles", "FILE", "schema profiles (JSON), tried before the built-in ones"},
      {"match", "PATTERN", "SCAN MATCH pattern (default *)"},
      {"max-keys", "N", "keep at most N keys, the ones under the most pressure (default 10000)"},
      {"timeout", "D", "connect and command timeout (default 5s)"},
      {"metrics", "URL", "scrape this /metrics endpoint instead (http:// or https://)"},
      {"scrapes", "N", "with --metrics: scrapes to take (default 2; rates need 2)"},
      {"interval", "D", "with --metrics: time between scrapes (default 1s)"},
      {"prometheus", "URL", "query this Prometheus server instead (with --query or --alerts)"},
      {"query", "EXPR", "with --prometheus: a PromQL instant query"},
      {"alerts", "", "with --prometheus: the server's pending and firing alerts"},
      {"bearer-token-env", "VAR", "with --metrics/--prometheus: send the bearer token in $VAR"},
      {"detect", "", "with --redis: propose profiles for keys no profile matches"},
      {"json", "", "print the result as JSON"},
  };
  const Expected<Args> command_line =
      Args::parse(kName, "read limiter keys (any known schema) at the server's time", specs, argv);
  if (const auto exit = early_exit(command_line, kName)) return *exit;
  const Args& args = *command_line;
  const int sources = (args.get("redis") ? 1 : 0) + (args.get("metrics") ? 1 : 0) +
                      (args.get("prometheus") ? 1 : 0);
  if (sources > 1) return usage_error(kName, "give one of --redis, --metrics and --prometheus");
  if (args.get("metrics")) return probe_metrics(args);
  if (args.get("prometheus")) return probe_prometheus(args);
  if (!args.get("redis")) return usage_error(kName, "--redis URL or --metrics URL is required");
  auto options = parse_redis_options(args);
  if (!options) return usage_error(kName, options.error());
  if (!args.get("timeout")) {
    options->connect.connect_timeout = std::chrono::seconds(5);
    options->connect.command_timeout = std::chrono::seconds(5);
  }
  std::vector<probe::LimiterProfile> profiles;
  if (auto file = args.get("profiles")) {
    auto loaded = probe::load_profiles_file(*file);
    if (!loaded) return usage_error(kName, loaded.error());
    profiles = std::move(loaded).value();
  }
  for (auto& p : probe::builtin_profiles()) profiles.push_back(std::move(p));
  probe::ProbeOptions po;
  if (auto m = args.get("match")) po.match = *m;
  auto max_keys = integer_option(args, "max-keys", 10000, 1, 10'000'000);
  if (!max_keys) return usage_error(kName, max_keys.error());
  po.max_tracked = static_cast<std::size_t>(*max_keys);

  // One server, or every master of a cluster (each key read on its own master).
  redis::Endpoint endpoint(options->url, endpoint_options(*options), SteadyClock::instance());
  probe::EndpointProbe probe(std::move(profiles), po);
  auto snap = probe.probe_all(endpoint);
  if (!snap) return usage_error(kName, snap.error().message);

  nlohmann::json proposals = nlohmann::json::array();
  if (args.has("detect")) {
    for (const auto& key : snap->unmatched_examples) {
      std::optional<probe::KeySample> sample;
      auto take = [&](redis::Connection& c) -> redis::Result<void> {
        auto s = probe::sample_key(c, key);
        if (s) sample = std::move(*s);
        return {};
      };
      // A key that cannot be read (the call failed, or sample_key did) leaves `sample` empty
      // and is skipped like one that vanished: --detect proposes profiles for keys it read.
      (void)endpoint.run_for_key(key, take);
      if (!sample) continue;  // vanished or unreadable: nothing to propose
      auto p = probe::propose_profile(*sample, snap->server_time_us);
      if (!p) continue;
      proposals.push_back({{"example", key},
                           {"profile", nlohmann::json::parse(probe::profile_to_json(p->profile))},
                           {"needs", p->needs},
                           {"evidence", p->evidence}});
    }
  }
  if (args.has("json")) {
    nlohmann::json j;
    if (args.has("detect")) j["proposals"] = proposals;
    j["server_time"] = static_cast<double>(snap->server_time_us) / 1e6;
    j["keys"] = nlohmann::json::array();
    for (const auto& k : snap->keys) j["keys"].push_back(key_json(k));
    j["unmatched"] = snap->unmatched;
    j["dropped"] = snap->dropped;
    j["errors"] = snap->errors;
    j["moving"] = snap->moving;
    std::cout << json_text(j) << "\n";
    return 0;
  }
  std::cout << snap->keys.size() << " limiter keys (" << snap->unmatched
            << " other keys), most pressure first:\n";
  for (const auto& k : snap->keys) {
    std::cout << "  " << k.key << "  [" << k.profile << "]  ";
    if (!k.node.empty()) std::cout << "@" << k.node << "  ";
    if (!k.error.empty()) {
      std::cout << "error: " << k.error;
    } else if (k.fill) {
      std::cout << "level " << *k.level << " / " << *k.capacity << " (" << (*k.fill * 100)
                << "% full)";
    } else if (k.occupancy) {
      std::cout << "window " << *k.count << " / " << *k.limit << " (" << (*k.occupancy * 100)
                << "% used)";
    } else if (k.level) {
      std::cout << "stored level " << *k.level << " (no capacity in the profile)";
    }
    if (k.ttl_ms) std::cout << "  ttl " << *k.ttl_ms << " ms";
    std::cout << "\n";
  }
  for (const auto& e : snap->errors) std::cout << "error: " << e << "\n";
  for (const auto& p : proposals) {
    std::cout << "proposed profile (" << p["evidence"].get<std::string>() << "), add "
              << json_text(p["needs"]) << ":\n  " << json_text(p["profile"]) << "\n";
  }
  return 0;
}

}  // namespace limitscope::cli
