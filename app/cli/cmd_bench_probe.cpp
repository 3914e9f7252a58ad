// limitscope-cli bench-probe: the cost of refreshing N tracked limiter keys (issue #7's
// benchmark): wall time per refresh and the server time it takes (INFO commandstats), beside a
// plain pipelined client reading the same keys (one HMGET each) in the same run. Starts a
// private redis-server with N token-bucket hashes. Exit 0 on success, 2 on bad usage.

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "app/cli/commands.h"
#include "app/cli/json_output.h"
#include "app/cli/redis_options.h"
#include "core/probe/redis_probe.h"
#include "core/redis/local_server.h"
#include "core/redis/server_info.h"

namespace limitscope::cli {

namespace {

constexpr const char* kName = "bench-probe";

struct Timing {
  std::vector<double> wall_ms;
  double server_us_per_refresh = 0;
  double median() const {
    std::vector<double> v = wall_ms;
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
  }
  double p99() const {
    std::vector<double> v = wall_ms;
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[std::min(v.size() - 1, v.size() * 99 / 100)];
  }
};

Expected<double> server_usec(redis::Connection& c) {
  auto text = c.command({"INFO", "commandstats"});
  if (!text) return make_error(text.error().message);
  auto info = redis::parse_server_info(text->str);
  if (!info) return make_error(info.error());
  double total = 0;
  for (const auto& [name, stat] : info->commands) {
    if (name != "info" && name != "config") total += static_cast<double>(stat.usec);
  }
  return total;
}

template <class F>
Expected<Timing> measure(redis::Connection& admin, int runs, F&& refresh) {
  Timing t;
  if (auto r = admin.command({"CONFIG", "RESETSTAT"}); !r) return make_error(r.error().message);
  SteadyClock& clock = SteadyClock::instance();
  for (int i = 0; i < runs; ++i) {
    const Nanos t0 = clock.now();
    if (auto err = refresh(); !err.empty()) return make_error(err);
    t.wall_ms.push_back(static_cast<double>((clock.now() - t0).count()) / 1e6);
  }
  auto usec = server_usec(admin);
  if (!usec) return make_error(usec.error());
  t.server_us_per_refresh = *usec / runs;
  return t;
}

}  // namespace

int run_bench_probe(const CommandArgs& argv) {
  std::vector<OptionSpec> specs{
      {"keys", "N", "limiter keys to track (default 10000)"},
      {"runs", "R", "refreshes to time (default 20)"},
      {"json", "", "print the figures as JSON"},
  };
  Args args(kName, "time a refresh of N tracked keys beside a plain pipelined reader", specs, argv);
  if (args.help_requested()) {
    std::cout << args.usage();
    return 0;
  }
  if (!args.ok()) return usage_error(kName, args.error());
  auto keys = integer_option(args, "keys", 10000, 1, 5'000'000);
  if (!keys) return usage_error(kName, keys.error());
  auto runs = integer_option(args, "runs", 20, 1, 10000);
  if (!runs) return usage_error(kName, runs.error());

  redis::LocalRedisServer::Options so;
  so.dir = "/tmp/limitscope-bench-probe-" + std::to_string(getpid());
  auto server = redis::LocalRedisServer::start(so);
  if (!server) return usage_error(kName, server.error());
  redis::RedisUrl url;
  url.port = (*server)->port();
  const redis::ConnectOptions co{std::chrono::seconds(2), std::chrono::seconds(30)};
  auto admin = redis::Connection::open(url, co);
  auto conn = redis::Connection::open(url, co);
  if (!admin || !conn) return usage_error(kName, "cannot connect to the private redis-server");

  // N token buckets as a gateway writes them: tokens as a float string, ts in epoch ms.
  const auto now_ms = std::to_string(SteadyClock::instance().wall().count() / 1'000'000);
  std::vector<std::string> names;
  std::vector<std::vector<std::string>> seed;
  for (long long i = 0; i < *keys; ++i) {
    names.push_back("rl:free-" + std::to_string(i));
    seed.push_back({"HSET", names.back(), "tokens", std::to_string(i % 60) + ".17499999999999447",
                    "ts", now_ms});
    if (seed.size() == 10000 || i + 1 == *keys) {
      if (auto r = admin->pipeline(seed); !r) return usage_error(kName, r.error().message);
      seed.clear();
    }
  }

  auto profiles = probe::parse_profiles(R"({"profiles": [{"name": "gw", "match": "rl:free-*",
      "kind": "token_bucket_hash", "time_unit": "ms", "capacity": 60, "refill": "1/s"}]})");
  probe::ProbeOptions po;
  po.match = "rl:free-*";
  po.max_tracked = static_cast<std::size_t>(*keys);
  po.scan_calls_per_refresh = 0;  // timed refreshes read only; discovery is measured apart
  probe::RedisProbe probe(*profiles, po);
  probe::ProbeOptions levels_only = po;
  levels_only.read_ttl = false;
  probe::RedisProbe probe_levels(*profiles, levels_only);

  auto discovery = measure(*admin, 1, [&]() -> std::string {
    auto s = probe.probe_all(*conn);
    return s ? "" : s.error().message;
  });
  if (!discovery) return usage_error(kName, discovery.error());
  if (auto s = probe_levels.probe_all(*conn); !s) return usage_error(kName, s.error().message);
  std::size_t tracked = 0;
  auto ours = measure(*admin, static_cast<int>(*runs), [&]() -> std::string {
    auto s = probe.refresh(*conn);
    if (!s) return s.error().message;
    tracked = s->keys.size();
    return "";
  });
  if (!ours) return usage_error(kName, ours.error());
  auto levels = measure(*admin, static_cast<int>(*runs), [&]() -> std::string {
    auto s = probe_levels.refresh(*conn);
    return s ? "" : s.error().message;
  });
  if (!levels) return usage_error(kName, levels.error());
  // The plain reader: TIME, then one pipeline of HMGET over the same keys; no arithmetic.
  auto plain = measure(*admin, static_cast<int>(*runs), [&]() -> std::string {
    std::vector<std::vector<std::string>> cmds{{"TIME"}};
    for (const auto& n : names) cmds.push_back({"HMGET", n, "tokens", "ts"});
    auto r = conn->pipeline(cmds);
    return r ? "" : r.error().message;
  });
  if (!plain) return usage_error(kName, plain.error());

  const double ratio = plain->median() > 0 ? ours->median() / plain->median() : 0;
  if (args.has("json")) {
    nlohmann::json j{{"keys", *keys},
                     {"tracked", tracked},
                     {"runs", *runs},
                     {"discovery_ms", discovery->median()},
                     {"discovery_server_us", discovery->server_us_per_refresh},
                     {"refresh_p50_ms", ours->median()},
                     {"refresh_p99_ms", ours->p99()},
                     {"refresh_server_us", ours->server_us_per_refresh},
                     {"refresh_without_ttl_p50_ms", levels->median()},
                     {"refresh_without_ttl_server_us", levels->server_us_per_refresh},
                     {"plain_p50_ms", plain->median()},
                     {"plain_server_us", plain->server_us_per_refresh},
                     {"refresh_vs_plain", ratio},
                     {"target_refresh_le_25ms", ours->median() <= 25},
                     {"target_refresh_without_ttl_le_25ms", levels->median() <= 25}};
    std::cout << json_text(j, 2) << "\n";
  } else {
    std::printf("%lld keys, %zu tracked\n", *keys, tracked);
    std::printf("discovery (full SCAN):   %8.2f ms wall, %9.0f us server\n", discovery->median(),
                discovery->server_us_per_refresh);
    std::printf("refresh (ours):          %8.2f ms p50, %6.2f ms p99, %9.0f us server\n",
                ours->median(), ours->p99(), ours->server_us_per_refresh);
    std::printf("refresh without PTTL:    %8.2f ms p50, %6.2f ms p99, %9.0f us server\n",
                levels->median(), levels->p99(), levels->server_us_per_refresh);
    std::printf("plain pipelined HMGET:   %8.2f ms p50, %17s %9.0f us server\n", plain->median(),
                "", plain->server_us_per_refresh);
    std::printf("ours / plain: %.2fx; target <= 25 ms per refresh: %s (without PTTL: %s)\n",
                ratio, ours->median() <= 25 ? "met" : "NOT met",
                levels->median() <= 25 ? "met" : "NOT met");
  }
  return 0;
}

}  // namespace limitscope::cli
