// limitscope-cli bench-sweep: the tuner's benchmark (issue #8): a sweep of N events × C
// configurations timed against the plain replay of each configuration, in the same run. The
// plain replays of all C configurations would take minutes, so `--plain` of them (spread over
// the grid) are timed and the per-configuration time is multiplied by C; those cells are also
// checked to equal the sweep's. `--priced` gives every request a model and a token count and
// prices the sweep (spend and the worst key's spend per minute in every cell, compared too).
// Exit 0 when they are equal, 1 when not, 2 on bad usage.

#include <cmath>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <random>

#include "app/cli/commands.h"
#include "app/cli/json_output.h"
#include "app/cli/redis_options.h"
#include "core/tuner/sweep.h"

namespace limitscope::cli {

namespace {

constexpr const char* kName = "bench-sweep";

// A reproducible trace: Poisson arrivals over `keys` keys with a few heavy hitters.
trace::Trace synthetic_trace(long long events, long long keys, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::exponential_distribution<double> gap(2000.0);  // 2,000 requests per second overall
  std::uniform_int_distribution<long long> any(0, keys - 1);
  std::uniform_int_distribution<long long> heavy(0, std::min<long long>(keys, 10) - 1);
  std::bernoulli_distribution pick_heavy(0.3);
  std::uniform_int_distribution<int> cost(1, 4);
  std::uniform_int_distribution<std::uint32_t> tokens(100, 8000);
  trace::Trace t;
  std::vector<std::uint32_t> ids;
  for (long long k = 0; k < keys; ++k) ids.push_back(t.key_id("k" + std::to_string(k)));
  const std::uint16_t models[] = {t.model_id("gpt-4.1"), t.model_id("deepseek-v3.2")};
  t.events.reserve(static_cast<std::size_t>(events));
  t.tokens.reserve(static_cast<std::size_t>(events));
  double now = 0;
  for (long long i = 0; i < events; ++i) {
    now += gap(rng);
    trace::TraceEvent e;
    e.t_ns = static_cast<std::int64_t>(now * 1e9);
    e.key = ids[static_cast<std::size_t>(pick_heavy(rng) ? heavy(rng) : any(rng))];
    e.cost = cost(rng);
    e.model = models[e.key % 2];
    t.events.push_back(e);
    t.tokens.push_back(tokens(rng));
  }
  return t;
}

}  // namespace

int run_bench_sweep(const CommandArgs& argv) {
  std::vector<OptionSpec> specs{
      {"events", "N", "trace length (default 1000000)"},
      {"keys", "K", "distinct keys (default 1000)"},
      {"configs", "C", "grid size, a square number (default 1024 = 32 × 32)"},
      {"plain", "P", "configurations replayed plainly for the comparison (default 16)"},
      {"threads", "T", "sweep threads (default 2)"},
      {"priced", "", "price the requests (default policy): spend per cell and per key-minute"},
      {"json", "", "print the figures as JSON"},
  };
  const Expected<Args> command_line =
      Args::parse(kName, "time a sweep against plain replays per configuration", specs, argv);
  if (const auto exit = early_exit(command_line, kName)) return *exit;
  const Args& args = *command_line;
  auto events = integer_option(args, "events", 1'000'000, 1, 100'000'000);
  auto keys = integer_option(args, "keys", 1000, 1, 1'000'000);
  auto configs = integer_option(args, "configs", 1024, 1, 65536);
  auto plain = integer_option(args, "plain", 16, 1, 65536);
  auto threads = integer_option(args, "threads", 2, 1, 256);
  for (const auto* e : {&events, &keys, &configs, &plain, &threads}) {
    if (!*e) return usage_error(kName, e->error());
  }
  const int side = static_cast<int>(std::lround(std::sqrt(static_cast<double>(*configs))));
  if (static_cast<long long>(side) * side != *configs)
    return usage_error(kName, "--configs must be a square number");

  const trace::Trace trace = synthetic_trace(*events, *keys, 42);
  tuner::SweepSpec spec;
  spec.base.algorithm = Algorithm::token_bucket;
  spec.x = {1, 64, side};
  spec.y = {1, 32, side};
  spec.threads = static_cast<int>(*threads);
  const tuner::PricingOptions pricing{&default_policy(), std::nullopt};
  const bool priced = args.has("priced");
  if (priced) spec.pricing = &pricing;
  tuner::ReplayOptions replay_options;
  if (priced) replay_options.pricing = &pricing;

  SteadyClock& clock = SteadyClock::instance();
  const Nanos t0 = clock.now();
  auto result = tuner::sweep(trace, spec);
  const double sweep_s = static_cast<double>((clock.now() - t0).count()) / 1e9;
  if (!result) return usage_error(kName, result.error());

  const long long n_plain = std::min(*plain, *configs);
  bool equal = true;
  const Nanos t1 = clock.now();
  for (long long i = 0; i < n_plain; ++i) {
    const auto idx = static_cast<std::size_t>(i * *configs / n_plain);
    const auto& cell = result->cells[idx];
    auto r = tuner::replay(trace, cell.params, replay_options);
    if (!r || r->total.admitted != cell.total.admitted ||
        r->total.rejected != cell.total.rejected ||
        r->total.admitted_spend != cell.total.admitted_spend ||
        r->spend.worst_key_per_min != cell.worst_key_spend_per_min) {
      equal = false;
    }
  }
  const double plain_s = static_cast<double>((clock.now() - t1).count()) / 1e9;
  const double plain_all_s = plain_s / static_cast<double>(n_plain) * static_cast<double>(*configs);
  const double ratio = sweep_s > 0 ? plain_all_s / sweep_s : 0;

  if (args.has("json")) {
    nlohmann::json j{{"events", *events},
                     {"keys", *keys},
                     {"configs", *configs},
                     {"threads", *threads},
                     {"priced", priced},
                     {"sweep_s", sweep_s},
                     {"plain_per_config_s", plain_s / static_cast<double>(n_plain)},
                     {"plain_all_estimated_s", plain_all_s},
                     {"speedup", ratio},
                     {"plain_configs_timed", n_plain},
                     {"cells_equal_plain_replay", equal},
                     {"target_sweep_le_2s", sweep_s <= 2},
                     {"target_speedup_ge_10", ratio >= 10}};
    std::cout << json_text(j, 2) << "\n";
  } else {
    std::printf("%lld events x %lld configurations (%lld keys), %lld threads%s\n", *events,
                *configs, *keys, *threads, priced ? ", priced" : "");
    std::printf("sweep:               %8.3f s (target <= 2 s: %s)\n", sweep_s,
                sweep_s <= 2 ? "met" : "NOT met");
    std::printf("plain replay:        %8.3f s per configuration (%lld timed), %.1f s for all\n",
                plain_s / static_cast<double>(n_plain), n_plain, plain_all_s);
    std::printf("speedup:             %8.1fx (target >= 10x: %s); sampled cells equal: %s\n", ratio,
                ratio >= 10 ? "met" : "NOT met", equal ? "yes" : "NO");
  }
  return equal ? 0 : 1;
}

}  // namespace limitscope::cli
