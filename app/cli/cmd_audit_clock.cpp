// limitscope-cli audit clock: each gateway's wall clock against Redis TIME and this
// workstation (docs/audits.md). Exit 0 no skew above the threshold, 1 a skewed gateway (or one
// whose clock could not be read), 2 bad usage or an unreachable Redis.

#include <cmath>
#include <iostream>
#include <nlohmann/json.hpp>

#include "app/cli/audit_options.h"
#include "app/cli/commands.h"
#include "app/cli/json_output.h"
#include "app/cli/redis_options.h"
#include "core/audit/clock_audit.h"
#include "core/limiter/rate.h"
#include "core/redis/connection.h"
#include "core/redis/redis_url.h"

namespace limitscope::cli {

namespace {

constexpr const char* kName = "audit clock";

nlohmann::json offset_json(const std::optional<audit::ClockOffset>& o) {
  if (!o) return nullptr;
  return {{"offset_s", o->offset_s}, {"uncertainty_s", o->uncertainty_s}};
}

nlohmann::json to_json(const audit::ClockAudit& a) {
  nlohmann::json j;
  j["threshold_s"] = a.threshold_s;
  j["skewed"] = a.skewed;
  j["errors"] = a.errors;
  j["redis_vs_workstation"] = offset_json(a.redis_vs_workstation);
  j["redis_reference"] = json_or_null(a.redis_reference);
  j["redis_nodes"] = nlohmann::json::array();
  for (const auto& n : a.redis_nodes) {
    j["redis_nodes"].push_back({{"node", n.node},
                                {"vs_workstation", offset_json(n.vs_workstation)},
                                {"vs_reference_s", json_or_null(n.vs_reference_s)},
                                {"uncertainty_s", n.uncertainty_s},
                                {"skewed", n.skewed},
                                {"error", json_or_null(n.error)}});
  }
  j["gateways"] = nlohmann::json::array();
  for (const auto& g : a.gateways) {
    j["gateways"].push_back({{"gateway", g.gateway},
                             {"source", json_or_null(g.source)},
                             {"vs_workstation", offset_json(g.vs_workstation)},
                             {"date_vs_workstation", offset_json(g.date_vs_workstation)},
                             {"vs_redis_s", json_or_null(g.vs_redis_s)},
                             {"uncertainty_s", g.uncertainty_s},
                             {"skewed", g.skewed},
                             {"error", json_or_null(g.error)}});
  }
  return j;
}

void print_text(const audit::ClockAudit& a) {
  if (a.redis_vs_workstation) {
    std::cout << "redis TIME vs this workstation: " << a.redis_vs_workstation->offset_s << " s (+-"
              << a.redis_vs_workstation->uncertainty_s << ")";
    if (a.redis_nodes.size() > 1) std::cout << " [reference: " << a.redis_reference << "]";
    std::cout << "\n";
  }
  if (a.redis_nodes.size() > 1) {
    for (const auto& n : a.redis_nodes) {
      std::cout << (n.skewed ? "SKEW " : (n.error.empty() ? "ok   " : "???  ")) << "redis "
                << n.node;
      if (n.vs_reference_s)
        std::cout << "  vs reference " << *n.vs_reference_s << " s (+-" << n.uncertainty_s << ")";
      if (!n.error.empty()) std::cout << "  error: " << n.error;
      std::cout << "\n";
    }
  }
  for (const auto& g : a.gateways) {
    std::cout << (g.skewed ? "SKEW " : (g.source.empty() ? "???  " : "ok   ")) << g.gateway;
    if (g.vs_workstation) {
      std::cout << "  [" << g.source << "] vs workstation " << g.vs_workstation->offset_s << " s";
    }
    if (g.vs_redis_s) std::cout << ", vs redis " << *g.vs_redis_s << " s";
    if (g.vs_workstation) std::cout << " (+-" << g.uncertainty_s << ")";
    if (!g.error.empty()) std::cout << "  error: " << g.error;
    std::cout << "\n";
  }
  std::cout << a.skewed << " of "
            << a.gateways.size() + (a.redis_nodes.size() > 1 ? a.redis_nodes.size() : 0)
            << (a.redis_nodes.size() > 1 ? " gateways and Redis masters" : " gateways")
            << " skewed beyond " << a.threshold_s << " s\n";
}

}  // namespace

int run_audit_clock(const CommandArgs& argv) {
  std::vector<OptionSpec> specs{
      {"metrics", "URL[,URL...]", "each gateway's /metrics (its time gauge and Date header)"},
      {"redis", "URL",
       "the Redis the gateways share (its TIME is the limiter's clock; a cluster: every master's)"},
      redis_password_file_spec(),
      {"threshold", "D", "warn when a gateway is off by more than this (default 1s)"},
  };
  const std::vector<OptionSpec> fetch = audit_fetch_specs();
  specs.insert(specs.end(), fetch.begin(), fetch.end());
  specs.push_back({"json", "", "print the result as JSON"});
  const Expected<Args> command_line =
      Args::parse(kName, "gateway clocks against Redis TIME and this workstation", specs, argv);
  if (const auto exit = early_exit(command_line, kName)) return *exit;
  const Args& args = *command_line;
  if (!args.has("metrics")) return usage_error(kName, "--metrics URL[,URL...] is required");
  auto urls = metrics_urls(args);
  if (!urls) return usage_error(kName, urls.error());
  auto fo = audit_fetch_options(args);
  if (!fo) return usage_error(kName, fo.error());
  const auto threshold = duration_option(args, "threshold", std::chrono::seconds(1));
  if (!threshold) return usage_error(kName, threshold.error());
  SteadyClock& workstation = SteadyClock::instance();
  std::vector<audit::RedisClockReading> redis_clocks;
  if (args.get("redis")) {
    auto url = parse_redis_url_option(args);
    if (!url) return usage_error(kName, url.error());
    // A cluster: every master's TIME (each decides its own keys by its own clock).
    auto read = audit::read_redis_clocks(*url, {}, workstation);
    if (!read) return usage_error(kName, "--redis: " + read.error());
    redis_clocks = std::move(*read);
  }
  std::vector<audit::GatewayClockReading> readings;
  for (const auto& url : *urls)
    readings.push_back(audit::read_gateway_clock(url, *fo, workstation));
  const audit::ClockAudit a =
      audit::audit_clocks(readings, redis_clocks, static_cast<double>(threshold->count()) / 1e9);
  if (args.has("json")) {
    std::cout << json_text(to_json(a)) << "\n";
  } else {
    print_text(a);
  }
  return a.skewed > 0 || a.errors > 0 ? 1 : 0;
}

}  // namespace limitscope::cli
