// limitscope-cli audit replicas: effective vs configured limits over several gateway replicas
// (docs/audits.md). Exit 0 no leak, 1 a leak found, 2 bad usage, input or unreachable source.

#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>

#include "app/cli/audit_options.h"
#include "app/cli/commands.h"
#include "app/cli/json_output.h"
#include "app/cli/redis_options.h"
#include "core/audit/replica_audit.h"
#include "core/audit/replica_sources.h"
#include "core/limiter/rate.h"

namespace limitscope::cli {

namespace {

constexpr const char* kName = "audit replicas";

Expected<audit::ReplicaSources> sources_of(const Args& args) {
  audit::ReplicaSources sources;
  auto fo = audit_fetch_options(args);
  if (!fo) return make_error(fo.error());
  sources.fetch = *fo;
  if (args.has("prometheus")) {
    auto url = http::parse_http_url(*args.get("prometheus"));
    if (!url) return make_error("--prometheus: " + url.error());
    sources.prometheus = *url;
    auto window = duration_option(args, "window", sources.prometheus_window);
    if (!window) return make_error(window.error());
    sources.prometheus_window = *window;
    return sources;
  }
  auto urls = metrics_urls(args);
  if (!urls) return make_error(urls.error());
  sources.metrics = std::move(*urls);
  if (!args.has("since-start")) {
    auto interval = duration_option(args, "interval", std::chrono::seconds(30));
    if (!interval) return make_error(interval.error());
    sources.interval = *interval;
  }
  return sources;
}

nlohmann::json to_json(const audit::ReplicaAudit& a, const std::vector<audit::ReplicaWindow>& ws) {
  nlohmann::json j;
  j["replicas"] = a.replicas;
  j["window_s"] = a.window_s;
  j["tolerance"] = a.tolerance;
  j["leak"] = a.leaks > 0;
  j["leaks"] = a.leaks;
  j["likely_cause"] = json_or_null(a.likely_cause);
  j["sources"] = nlohmann::json::array();
  for (const auto& w : ws) {
    j["sources"].push_back({{"replica", w.replica},
                            {"window_s", w.window_s},
                            {"degraded_decisions", w.degraded_decisions}});
  }
  j["tiers"] = nlohmann::json::array();
  for (const auto& t : a.tiers) {
    j["tiers"].push_back({{"tier", t.tier},
                          {"limit", t.limit},
                          {"keys", t.keys},
                          {"admitted_per_s", t.admitted_per_s},
                          {"max_ratio", t.max_ratio},
                          {"leaks", t.leaks}});
  }
  j["keys"] = nlohmann::json::array();
  for (const auto& k : a.keys) {
    j["keys"].push_back({{"api_key_hash", k.api_key_hash},
                         {"name", json_or_null(k.name)},
                         {"model", k.model},
                         {"tier", k.tier},
                         {"limit", k.limit},
                         {"configured_per_s", k.configured_per_s},
                         {"bound_cost", k.bound_cost},
                         {"admitted_cost", k.admitted_cost},
                         {"admitted_per_s", k.admitted_per_s},
                         {"ratio", k.ratio},
                         {"replicas_admitting", k.replicas_admitting},
                         {"max_replica_ratio", k.max_replica_ratio},
                         {"leak", k.leak}});
  }
  j["notes"] = a.notes;
  return j;
}

void print_text(const audit::ReplicaAudit& a) {
  std::cout << a.replicas << " replicas, window " << a.window_s << " s, tolerance "
            << a.tolerance * 100 << "%\n";
  for (const auto& k : a.keys) {
    std::cout << "  " << (k.leak ? "LEAK " : "ok   ") << (k.name.empty() ? k.api_key_hash : k.name)
              << " " << k.model << " [" << k.tier << ": " << k.limit << "]  admitted "
              << k.admitted_cost << " of at most " << k.bound_cost << " (" << std::setprecision(3)
              << k.ratio << "x) through " << k.replicas_admitting << " replicas\n";
  }
  for (const auto& t : a.tiers) {
    std::cout << "tier " << t.tier << ": " << t.keys << " keys, " << t.admitted_per_s
              << " cost/s admitted, worst " << t.max_ratio << "x, " << t.leaks << " leaks\n";
  }
  if (!a.likely_cause.empty()) std::cout << "likely cause: " << a.likely_cause << "\n";
  for (const auto& n : a.notes) std::cout << "note: " << n << "\n";
}

}  // namespace

int run_audit_replicas(const CommandArgs& argv) {
  std::vector<OptionSpec> specs{
      {"metrics", "URL[,URL...]", "each replica's /metrics (http:// or https://)"},
      {"interval", "D", "with --metrics: time between the two scrapes (default 30s)"},
      {"since-start", "", "with --metrics: one scrape, counting since each gateway started"},
      {"prometheus", "URL", "a Prometheus server scraping the replicas (one per instance)"},
      {"window", "D", "with --prometheus: the window looked back over (default 5m)"},
      {"policy", "FILE", "the policy the replicas run (default: the embedded one)"},
      key_names_spec(),
      {"tolerance", "X", "flag a leak above bound x (1 + X) (default 0.2)"},
  };
  const std::vector<OptionSpec> fetch = audit_fetch_specs();
  specs.insert(specs.end(), fetch.begin(), fetch.end());
  specs.push_back({"json", "", "print the result as JSON"});
  const Expected<Args> command_line = Args::parse(
      kName, "effective vs configured limits summed over gateway replicas", specs, argv);
  if (const auto exit = early_exit(command_line, kName)) return *exit;
  const Args& args = *command_line;
  if (args.has("metrics") == args.has("prometheus")) {
    return usage_error(kName, "give one of --metrics URL[,URL...] and --prometheus URL");
  }
  auto policy = audit_policy(args);
  if (!policy) return usage_error(kName, policy.error());
  auto tolerance = number_option(args, "tolerance", 0.2, 0);
  if (!tolerance) return usage_error(kName, tolerance.error());
  auto names = audit_key_names(args, *policy);
  if (!names) return usage_error(kName, names.error());
  auto sources = sources_of(args);
  if (!sources) return usage_error(kName, sources.error());
  CancelToken never;
  auto read = audit::read_replicas(*sources, *policy, SteadyClock::instance(), never);
  if (!read) return usage_error(kName, read.error());
  // The file's names over those the gateways export; the policy's over both (audit_replicas).
  KeyNames shown = std::move(read->key_info);
  shown.merge(*names);
  const std::vector<audit::ReplicaWindow>& windows = read->windows;
  const audit::ReplicaAudit a = audit::audit_replicas(windows, *policy, {*tolerance, &shown});
  if (args.has("json")) {
    std::cout << json_text(to_json(a, windows)) << "\n";
  } else {
    print_text(a);
  }
  return a.leaks > 0 ? 1 : 0;
}

}  // namespace limitscope::cli
