// limitscope-cli hammer: many threads deciding on one key as fast as they can, to check that
// the shared limiter never over-admits under contention. Prints admitted, rejected, errors and
// the server-time span of the run (TIME before the first and after the last decision), which
// bounds what a bucket may admit: C + r·span. Exit 0 when every decision was made by Redis,
// 1 when some were errors or degraded, 2 on bad usage.

#include <atomic>
#include <iostream>
#include <nlohmann/json.hpp>
#include <thread>

#include "app/cli/commands.h"
#include "app/cli/json_output.h"
#include "app/cli/redis_options.h"
#include "core/limiter/rate.h"
#include "core/redis/guarded_limiter.h"

namespace limitscope::cli {

namespace {

constexpr const char* kName = "hammer";

}  // namespace

int run_hammer(const CommandArgs& argv) {
  auto specs = redis_option_specs();
  specs.push_back({"key", "KEY", "the one key every thread decides on"});
  specs.push_back({"threads", "T", "threads, each with its own connection (default 4)"});
  specs.push_back({"requests", "N", "decisions in total (default 10000)"});
  specs.push_back({"duration", "D", "stop after this long even if N are not done"});
  specs.push_back({"cost", "N", "cost of each request (default 1)"});
  specs.push_back({"json", "", "print the result as JSON"});
  const Expected<Args> command_line = Args::parse(
      kName, "contend on one key from many threads and count the outcomes", specs, argv);
  if (const auto exit = early_exit(command_line, kName)) return *exit;
  const Args& args = *command_line;
  auto parsed = parse_rule_key_options(args);
  if (!parsed) return usage_error(kName, parsed.error());
  const RedisOptions& options = parsed->redis;
  auto threads = integer_option(args, "threads", 4, 1, 256);
  if (!threads) return usage_error(kName, threads.error());
  auto requests = integer_option(args, "requests", 10000, 1, 1'000'000'000);
  if (!requests) return usage_error(kName, requests.error());
  std::optional<Nanos> duration;
  if (auto text = args.get("duration")) {
    auto d = parse_duration(*text);
    if (!d) return usage_error(kName, "--duration: " + d.error());
    duration = *d;
  }

  SteadyClock& clock = SteadyClock::instance();
  RedisRuleClient client(options, static_cast<std::size_t>(*threads) + 1);
  redis::GuardedLimiter& limiter = client.limiter;

  const auto start_us = client.server_time_us(options.rule);
  const Nanos started = clock.now();
  const Nanos stop_at = duration ? started + *duration : Nanos::max();
  std::atomic<long long> next{0};
  std::atomic<long long> admitted{0}, rejected{0}, degraded{0}, errors{0};
  std::vector<std::thread> pool_threads;
  for (long long t = 0; t < *threads; ++t) {
    pool_threads.emplace_back([&] {
      while (next.fetch_add(1, std::memory_order_relaxed) < *requests) {
        if (clock.now() >= stop_at) break;
        const auto r = limiter.decide(options.rule, parsed->key, parsed->cost);
        if (r.guarded.decision.reason == DenyReason::backend_error ||
            r.guarded.decision.reason == DenyReason::backend_forbidden) {
          ++errors;
        } else if (r.guarded.degraded) {
          ++degraded;
        } else if (r.guarded.decision.allowed) {
          ++admitted;
        } else {
          ++rejected;
        }
      }
    });
  }
  for (auto& t : pool_threads) t.join();
  const double elapsed_s = static_cast<double>((clock.now() - started).count()) / 1e9;
  const auto end_us = client.server_time_us(options.rule);

  const long long decided = admitted + rejected;
  const auto stats = limiter.stats(options.rule);
  if (args.has("json")) {
    nlohmann::json j{
        {"admitted", admitted.load()},
        {"rejected", rejected.load()},
        {"errors", errors.load()},
        {"degraded", degraded.load()},
        {"elapsed_s", elapsed_s},
        {"decisions_per_s", elapsed_s > 0 ? static_cast<double>(decided) / elapsed_s : 0.0},
        {"threads", *threads},
        {"breaker_opened", stats.breaker.opened_total}};
    j["server_start_us"] = json_or_null(start_us);
    j["server_end_us"] = json_or_null(end_us);
    std::cout << json_text(j) << "\n";
  } else {
    std::cout << "admitted " << admitted << ", rejected " << rejected << ", errors " << errors
              << ", degraded " << degraded << " in " << elapsed_s << " s ("
              << (elapsed_s > 0 ? static_cast<double>(decided) / elapsed_s : 0.0)
              << " decisions/s)\n";
  }
  return errors == 0 && degraded == 0 ? 0 : 1;
}

}  // namespace limitscope::cli
