// limitscope-cli bench-probe: what following N limiter keys live costs (issues #7 and #22).
// Starts a private redis-server with N token-bucket hashes, then
// - times a refresh of every tracked key (as the dashboard reads them: TIME + one HMGET each,
//   no PTTL) beside a plain pipelined reader of the same keys (TIME + HMGETs, no arithmetic),
//   interleaved run by run so a busy machine slows both alike; wall, client CPU and server time;
// - runs the dashboard's live source on real time for --seconds, emptying --emptied keys at
//   random moments: dashboard CPU per second, server CPU per second (INFO cpu), and the time
//   from a key becoming empty to its appearing in the top rows (p50, p99).
// With --own the keys are our own schema instead (token-bucket states of one rule, 16-byte
// strings), and a key is emptied by decisions of the limiter, which list it in the rule's
// pressure index: the dashboard finds it there instead of waiting for its SCAN pass.
// Exit 0 on success, 2 on bad usage.

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "app/cli/bench_probe_cluster.h"
#include "app/cli/bench_probe_dashboard.h"
#include "app/cli/bench_probe_own.h"
#include "app/cli/commands.h"
#include "app/cli/json_output.h"
#include "app/cli/redis_options.h"
#include "core/common/cpu_clock.h"
#include "core/probe/redis_probe.h"
#include "core/redis/redis_limiter.h"
#include "core/redis/rule_config.h"
#include "core/redis/server_info.h"
#include "process/local_server.h"

namespace limitscope::cli {

namespace {

constexpr const char* kName = "bench-probe";
constexpr const char* kPrefix = "rl:free-";
constexpr double kCapacity = 60;
constexpr const char* kOwnRule = "bench";

double thread_cpu_ms() {
  return static_cast<double>(ThreadCpuClock::instance().thread_cpu().count()) / 1e6;
}

struct Timing {
  std::vector<double> wall_ms;
  std::vector<double> cpu_ms;  // this thread's CPU (the client side)
  double server_us = 0;        // INFO commandstats, summed over the runs
  double p50() const { return quantile(wall_ms, 0.5); }
  double p99() const { return quantile(wall_ms, 0.99); }
  double cpu_p50() const { return quantile(cpu_ms, 0.5); }
  double server_us_per_run() const {
    return wall_ms.empty() ? 0 : server_us / static_cast<double>(wall_ms.size());
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

// One timed run of `refresh` (which returns a Status), its server time added from
// commandstats.
template <class F>
Status timed(redis::Connection& admin, Timing& t, F&& refresh) {
  auto before = server_usec(admin);
  if (!before) return make_error(before.error());
  SteadyClock& clock = SteadyClock::instance();
  const double cpu0 = thread_cpu_ms();
  const Nanos t0 = clock.now();
  if (Status refreshed = refresh(); !refreshed.ok()) return refreshed;
  t.wall_ms.push_back(static_cast<double>((clock.now() - t0).count()) / 1e6);
  t.cpu_ms.push_back(thread_cpu_ms() - cpu0);
  auto after = server_usec(admin);
  if (!after) return make_error(after.error());
  t.server_us += *after - *before;
  return {};
}

Status seed_keys(redis::Connection& admin, long long keys) {
  // Token buckets as a gateway writes them: tokens as a float string, ts in epoch ms. Levels
  // between half and full, so the keys emptied later are the ones under most pressure.
  const auto now_ms = std::to_string(SteadyClock::instance().wall().count() / 1'000'000);
  redis::CommandBatch seed;
  for (long long i = 0; i < keys; ++i) {
    seed.add({"HSET", kPrefix + std::to_string(i), "tokens",
              std::to_string(30 + i % 30) + ".17499999999999447", "ts", now_ms});
    if (seed.size() == 10000 || i + 1 == keys) {
      if (auto r = admin.pipeline(seed); !r) return make_error(r.error().message);
      seed.clear();
    }
  }
  return {};
}

// The same N keys in our own schema (bench_probe_own.h), rule kOwnRule.
Status seed_own_keys(redis::Connection& admin, long long keys) {
  const redis::KeySchema schema;
  auto set = redis::set_config(admin, schema, kOwnRule, redis::single_limit(own_bench_params()),
                               redis::ChangeInfo{"bench-probe", "seed", std::nullopt});
  if (!set) return make_error(set.error().message);
  const double now_us = static_cast<double>(SteadyClock::instance().wall().count() / 1000);
  redis::CommandBatch seed;
  for (long long i = 0; i < keys; ++i) {
    seed.add(own_seed_command(schema, kOwnRule, i, now_us));
    if (seed.size() == 10000 || i + 1 == keys) {
      if (auto r = admin.pipeline(seed); !r) return make_error(r.error().message);
      seed.clear();
    }
  }
  return {};
}

// Empties one own-schema key as traffic does: the burst in one call.
Status drain_own_key(redis::Connection& c, const std::string& state_key) {
  const redis::KeySchema schema;
  const auto burst = own_drain_burst(state_key.substr(schema.state_key(kOwnRule, "").size()));
  auto done = redis::RedisLimiter(schema).decide_batch(c, kOwnRule, burst, burst.size());
  if (!done) return make_error(done.error().message);
  for (const auto& d : *done) {
    if (!d) return make_error(d.error().message);
  }
  return {};
}

}  // namespace

int run_bench_probe(const CommandArgs& argv) {
  std::vector<OptionSpec> specs{
      {"keys", "N", "limiter keys in the server (default 10000)"},
      {"runs", "R", "refreshes to time (default 20; 0: none, only the dashboard run)"},
      {"seconds", "S", "length of the dashboard run (default 30; 0: no dashboard run)"},
      {"emptied", "E", "keys emptied at random moments during it (default 20)"},
      {"seed", "N", "random seed of those moments (default 1)"},
      {"own", "", "our own schema, emptied by decisions (the pressure index lists them)"},
      {"no-index", "", "the dashboard run without reading the pressure index (SCAN alone)"},
      {"cluster", "", "instead: --own's dashboard run on a private 3-master cluster"},
      {"json", "", "print the figures as JSON"},
  };
  const Expected<Args> command_line = Args::parse(
      kName, "time the live refresh of N keys beside a plain reader, then a dashboard run", specs,
      argv);
  if (const auto exit = early_exit(command_line, kName)) return *exit;
  const Args& args = *command_line;
  auto keys = integer_option(args, "keys", 10000, 1, 5'000'000);
  if (!keys) return usage_error(kName, keys.error());
  auto runs = integer_option(args, "runs", 20, 0, 10000);
  if (!runs) return usage_error(kName, runs.error());
  auto seconds = integer_option(args, "seconds", 30, 0, 3600);
  if (!seconds) return usage_error(kName, seconds.error());
  auto emptied = integer_option(args, "emptied", 20, 0, 1000);
  if (!emptied) return usage_error(kName, emptied.error());
  auto seed = integer_option(args, "seed", 1, 0, 1'000'000'000);
  if (!seed) return usage_error(kName, seed.error());

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
  if (args.has("cluster")) {
    ClusterProbeBench cb;
    cb.keys = *keys;
    cb.seconds = static_cast<double>(*seconds);
    cb.emptied = static_cast<int>(*emptied);
    cb.seed = static_cast<unsigned>(*seed);
    cb.pressure_index = !args.has("no-index");
    cb.json = args.has("json");
    if (*seconds == 0)
      return usage_error(kName, "--cluster measures the dashboard run: --seconds must be above 0");
    return bench_probe_cluster(cb);
  }
  const bool own = args.has("own");
  const std::string key_prefix = own ? redis::KeySchema{}.state_key(kOwnRule, "free-") : kPrefix;
  if (Status seeded = own ? seed_own_keys(*admin, *keys) : seed_keys(*admin, *keys); !seeded.ok()) {
    return usage_error(kName, seeded.error());
  }

  const std::string profiles_json = R"({"profiles": [{"name": "gw", "match": "rl:free-*",
      "kind": "token_bucket_hash", "time_unit": "ms", "capacity": 60, "refill": "1/s"}]})";
  auto profiles = own ? Expected<std::vector<probe::LimiterProfile>>(probe::builtin_profiles())
                      : probe::parse_profiles(profiles_json);
  probe::ProbeOptions po;
  po.match = key_prefix + "*";
  po.max_tracked = static_cast<std::size_t>(*keys);
  po.scan_calls_per_refresh = 0;  // timed refreshes read only; discovery is measured apart
  po.read_ttl = false;            // as the dashboard reads (RedisLiveOptions::read_ttl)
  probe::RedisProbe probe(*profiles, po);
  probe::ProbeOptions with_ttl = po;
  with_ttl.read_ttl = true;
  probe::RedisProbe probe_ttl(*profiles, with_ttl);

  Timing discovery, ours, ttl, plain;
  std::size_t tracked = 0;
  auto fail = [&](const std::string& e) { return usage_error(kName, e); };
  if (*runs > 0) {
    if (Status e = timed(*admin, discovery,
                         [&]() -> Status {
                           auto s = probe.probe_all(*conn);
                           if (!s) return make_error(s.error().message);
                           return {};
                         });
        !e.ok()) {
      return fail(e.error());
    }
    if (auto s = probe_ttl.probe_all(*conn); !s) return fail(s.error().message);
    std::vector<std::string> names;
    names.reserve(static_cast<std::size_t>(*keys));
    for (long long i = 0; i < *keys; ++i) names.push_back(key_prefix + std::to_string(i));
    for (long long run = 0; run < *runs; ++run) {
      Status e = timed(*admin, ours, [&]() -> Status {
        auto s = probe.refresh(*conn);
        if (!s) return make_error(s.error().message);
        tracked = s->keys.size();
        probe.recycle(std::move(s->keys));  // as the dashboard's live source does
        return {};
      });
      // The plain reader: TIME, then one pipeline of HMGET (GET for our strings) over the same
      // keys; no arithmetic.
      if (e.ok()) {
        e = timed(*admin, plain, [&]() -> Status {
          redis::CommandBatch cmds;
          cmds.add({"TIME"});
          for (const auto& n : names) {
            if (own) {
              cmds.add({"GET", n});
            } else {
              cmds.add({"HMGET", n, "tokens", "ts"});
            }
          }
          auto r = conn->pipeline(cmds);
          if (!r) return make_error(r.error().message);
          return {};
        });
      }
      if (e.ok()) {
        e = timed(*admin, ttl, [&]() -> Status {
          auto s = probe_ttl.refresh(*conn);
          if (!s) return make_error(s.error().message);
          return {};
        });
      }
      if (!e.ok()) return fail(e.error());
    }
  }  // *runs > 0

  std::optional<DashboardRunResult> dash;
  if (*seconds > 0) {
    DashboardRunOptions d;
    d.port = url.port;
    if (own) {
      d.empty = [&](const std::string& key) { return drain_own_key(*admin, key); };
    } else {
      d.profiles_file = so.dir + "/profiles.json";
      std::ofstream(d.profiles_file) << profiles_json;
    }
    d.match = key_prefix + "*";
    d.key_prefix = key_prefix;
    d.keys = *keys;
    d.seconds = static_cast<double>(*seconds);
    d.emptied = static_cast<int>(*emptied);
    d.seed = static_cast<unsigned>(*seed);
    d.pressure_index = !args.has("no-index");
    auto r = run_dashboard(*admin, d);
    if (!r) return fail(r.error());
    dash = std::move(*r);
  }

  const double ratio = plain.p50() > 0 ? ours.p50() / plain.p50() : 0;
  const double cpu_ratio = plain.cpu_p50() > 0 ? ours.cpu_p50() / plain.cpu_p50() : 0;
  nlohmann::json j{{"keys", *keys},
                   {"schema", own ? "own" : "foreign"},
                   {"pressure_index", !args.has("no-index")},
                   {"tracked", tracked},
                   {"runs", *runs},
                   {"discovery_ms", discovery.p50()},
                   {"discovery_server_us", discovery.server_us_per_run()},
                   {"refresh_p50_ms", ours.p50()},
                   {"refresh_p99_ms", ours.p99()},
                   {"refresh_cpu_p50_ms", ours.cpu_p50()},
                   {"refresh_server_us", ours.server_us_per_run()},
                   {"refresh_with_ttl_p50_ms", ttl.p50()},
                   {"refresh_with_ttl_server_us", ttl.server_us_per_run()},
                   {"plain_p50_ms", plain.p50()},
                   {"plain_cpu_p50_ms", plain.cpu_p50()},
                   {"plain_server_us", plain.server_us_per_run()},
                   {"refresh_vs_plain", ratio},
                   {"refresh_cpu_vs_plain", cpu_ratio},
                   {"target_refresh_le_25ms", ours.p50() <= 25},
                   {"target_refresh_vs_plain_le_1_5", ratio <= 1.5}};
  if (*runs == 0)
    j = {{"keys", *keys},
         {"schema", own ? "own" : "foreign"},
         {"pressure_index", !args.has("no-index")}};
  if (dash) j["dashboard"] = dashboard_json(*dash, static_cast<int>(*emptied));
  if (args.has("json")) {
    std::cout << json_text(j, 2) << "\n";
    return 0;
  }
  if (*runs == 0) {  // no timed refreshes: the dashboard run alone
    std::printf("%lld keys\n", *keys);
    if (dash) print_dashboard(*dash, static_cast<int>(*emptied));
    return 0;
  }
  std::printf("%lld keys, %zu tracked\n", *keys, tracked);
  std::printf("discovery (full SCAN):   %8.2f ms wall, %9.0f us server\n", discovery.p50(),
              discovery.server_us_per_run());
  std::printf(
      "refresh (dashboard):     %8.2f ms p50, %7.2f ms p99, %7.2f ms CPU, %9.0f us server\n",
      ours.p50(), ours.p99(), ours.cpu_p50(), ours.server_us_per_run());
  std::printf("plain pipelined %s:%*s%8.2f ms p50, %17s %7.2f ms CPU, %9.0f us server\n",
              own ? "GET" : "HMGET", own ? 5 : 3, "", plain.p50(), "", plain.cpu_p50(),
              plain.server_us_per_run());
  std::printf("refresh with PTTL:       %8.2f ms p50, %7.2f ms p99, %19s %9.0f us server\n",
              ttl.p50(), ttl.p99(), "", ttl.server_us_per_run());
  std::printf("refresh / plain: %.2fx wall, %.2fx client CPU; <= 25 ms: %s; <= 1.5x: %s\n", ratio,
              cpu_ratio, ours.p50() <= 25 ? "met" : "NOT met", ratio <= 1.5 ? "met" : "NOT met");
  if (dash) print_dashboard(*dash, static_cast<int>(*emptied));
  return 0;
}

}  // namespace limitscope::cli
