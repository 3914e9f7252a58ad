// Alert evaluation cost: the three default rules (resources/alerts/default-rules.yml) over
// 10,000 realistic gateway series holding 1 h of 15 s samples. Target: <= 10 ms per
// evaluation of the whole group (DESIGN.md: the dashboard evaluates every 15 s on a worker).

#include <benchmark/benchmark.h>
#include <re2/re2.h>

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>

#include "bench/summary.h"
#include "core/metrics/alert_engine.h"
#include "core/metrics/go_regexp.h"
#include "core/metrics/rule_file.h"
#include "core/metrics/series_store.h"

namespace limitscope::bench {
namespace {

using metrics::Labels;
using metrics::Sample;

constexpr std::int64_t kStep = 15'000;     // ms between samples
constexpr std::int64_t kSpan = 3'600'000;  // 1 h of samples
constexpr int kGateways = 20;
constexpr const char* kTiers[] = {"free", "pro", "enterprise"};
constexpr const char* kModels[] = {"gpt-4.1", "claude-sonnet-4.5", "gemini-2.5-flash",
                                   "deepseek-v3.2"};
constexpr const char* kLe[] = {"0", "5", "10", "50", "100", "500", "1000", "5000", "+Inf"};
constexpr int kKeys = 1900;  // quota gauges: 1,900 keys x 4 models = 7,600 series

struct Fixture {
  std::unique_ptr<metrics::SeriesStore> store;
  std::vector<metrics::RuleGroup> groups;
  std::size_t series = 0;
};

// Deterministic pseudo-random numbers in [0, 1).
struct Lcg {
  std::uint64_t s = 0x9e3779b97f4a7c15ULL;
  double next() {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<double>(s >> 11) / 9007199254740992.0;
  }
};

// 240 counters (hits), 2,160 histogram buckets, 7,600 quota gauges = 10,000 series. About
// 1 in 12 tier/model pairs is overloaded (rejecting, bucket nearly empty) and 1 in 20 keys
// burns above 80% of its quota, so the rules produce alerts and templates run.
Fixture& fixture() {
  static Fixture f = [] {
    Fixture x;
    metrics::SeriesStoreOptions so;
    so.samples_per_series = static_cast<std::size_t>(kSpan / kStep) + 64;
    so.max_series = 20'000;
    x.store = std::make_unique<metrics::SeriesStore>(so);
    Lcg rng;
    for (int g = 0; g < kGateways; ++g) {
      for (const char* tier : kTiers) {
        for (const char* model : kModels) {
          const bool overloaded = rng.next() < 1.0 / 12;
          const std::string inst = "gw-" + std::to_string(g);
          Labels hits{{"__name__", "gateway_rate_limit_hits_total"},
                      {"tier", tier},
                      {"model", model},
                      {"instance", inst}};
          std::vector<Labels> buckets;
          for (const char* le : kLe) {
            buckets.push_back(Labels{{"__name__", "gateway_token_bucket_usage_bucket"},
                                     {"tier", tier},
                                     {"model", model},
                                     {"instance", inst},
                                     {"le", le}});
          }
          double hit_total = 0;
          std::vector<double> bucket_total(std::size(kLe), 0);
          for (std::int64_t t = 0; t <= kSpan; t += kStep) {
            hit_total += overloaded ? 15 + 10 * rng.next() : rng.next() < 0.1 ? 1 : 0;
            x.store->append(hits, Sample{t, hit_total});
            const double decisions = 100 + 50 * rng.next();
            // Where the decisions' remaining tokens land: low when overloaded.
            for (std::size_t b = 0; b < std::size(kLe); ++b) {
              const double share = overloaded ? (b >= 1 ? 1.0 : 0.3)
                                              : (b >= 5 ? 1.0 : 0.01 * static_cast<double>(b));
              bucket_total[b] += decisions * share;
              x.store->append(buckets[b], Sample{t, bucket_total[b]});
            }
          }
          x.series += 1 + std::size(kLe);
        }
      }
    }
    for (int k = 0; k < kKeys; ++k) {
      char hash[16];
      std::snprintf(hash, sizeof hash, "%08x", static_cast<unsigned>(k * 2654435761u));
      for (const char* model : kModels) {
        Labels burn{
            {"__name__", "gateway_quota_burn_ratio"}, {"api_key_hash", hash}, {"model", model}};
        const bool hot = rng.next() < 0.05;
        double ratio = hot ? 0.6 : 0.05 * rng.next();
        for (std::int64_t t = 0; t <= kSpan; t += kStep) {
          ratio += hot ? 0.0015 : 0.0001 * rng.next();
          x.store->append(burn, Sample{t, ratio});
        }
        ++x.series;
      }
    }
    auto rules = metrics::load_rule_file(std::string(LIMITSCOPE_RESOURCES_DIR) +
                                         "/alerts/default-rules.yml");
    if (!rules.ok()) {
      std::fprintf(stderr, "alert_eval_bench: %s\n", rules.error().c_str());
      std::abort();
    }
    x.groups = std::move(rules->groups);
    return x;
  }();
  return f;
}

// One evaluation of the default group per iteration, at successive 15 s slots inside the data
// (30 min .. 55 min), as the dashboard's scheduler would run it.
void BM_AlertEvalDefaultRules(benchmark::State& state) {
  Fixture& f = fixture();
  metrics::AlertEngine engine(*f.store, f.groups);
  std::int64_t t = 30 * 60'000;
  std::size_t alerts = 0;
  for (auto _ : state) {
    engine.evaluate_all(t);
    t += kStep;
    if (t > 55 * 60'000) t = 30 * 60'000;  // earlier slots again: state moves back, cost does not
  }
  for (const auto& a : engine.snapshot()->alerts)
    alerts += a.state != metrics::AlertState::inactive ? 1 : 0;
  state.counters["series"] = static_cast<double>(f.series);
  state.counters["alerts"] = static_cast<double>(alerts);
  std::size_t errors = 0;
  for (const auto& r : engine.snapshot()->rules) errors += r.last_error.empty() ? 0 : 1;
  state.counters["rule_errors"] = static_cast<double>(errors);
}
BENCHMARK(BM_AlertEvalDefaultRules)->Unit(benchmark::kMillisecond)->Iterations(100);

// The same three expressions through PromQL alone: what the engine adds (templates, state,
// ALERTS series, snapshot) is the difference to BM_AlertEvalDefaultRules.
void BM_DefaultRuleQueriesOnly(benchmark::State& state) {
  Fixture& f = fixture();
  std::int64_t t = 30 * 60'000;
  for (auto _ : state) {
    for (const auto& rule : f.groups.at(0).rules) {
      auto v = metrics::evaluate(*rule.expr, *f.store, t);
      benchmark::DoNotOptimize(v);
    }
    t += kStep;
    if (t > 55 * 60'000) t = 30 * 60'000;
  }
}
BENCHMARK(BM_DefaultRuleQueriesOnly)->Unit(benchmark::kMillisecond)->Iterations(100);

// A template's reReplaceAll on one label value, as each alert's expansion runs it: the pattern
// kept compiled (goregexp), beside compiling it at every call as before (the peer, same run).
constexpr const char* kTemplatePattern = "^gw-(?P<n>[0-9]+)\\.(\\w+)$";
constexpr const char* kTemplateText = "gw-12.eu_west";
void BM_TemplateReplaceAll(benchmark::State& state) {
  for (auto _ : state) {
    auto out = metrics::goregexp::replace_all(kTemplatePattern, "$2 #${n}", kTemplateText);
    benchmark::DoNotOptimize(out);
  }
}
BENCHMARK(BM_TemplateReplaceAll);
void BM_TemplateReplaceAllCompiledEachCall(benchmark::State& state) {
  for (auto _ : state) {
    re2::RE2 re(kTemplatePattern);
    std::string out = kTemplateText;
    re2::RE2::GlobalReplace(&out, re, "\\2 #\\1");
    benchmark::DoNotOptimize(out);
  }
}
BENCHMARK(BM_TemplateReplaceAllCompiledEachCall);

void print_alert_summary() {
  const Result* kept = find_result("BM_TemplateReplaceAll");
  const Result* each = find_result("BM_TemplateReplaceAllCompiledEachCall");
  if (kept != nullptr && each != nullptr) {
    std::printf(
        "  a template's reReplaceAll on one label value: %.2f us CPU with the pattern kept "
        "compiled, %.2f us compiling it at each call (%.1fx)\n",
        kept->cpu_ns_per_iter / 1e3, each->cpu_ns_per_iter / 1e3,
        each->cpu_ns_per_iter / kept->cpu_ns_per_iter);
  }
  const Result* r = find_result("BM_AlertEvalDefaultRules/iterations:100");
  if (r == nullptr) return;
  const double ms = r->ns_per_iter / 1e6;
  std::printf(
      "  default rules (3) over %.0f series, 1 h of 15 s samples: %.2f ms per evaluation "
      "(CPU %.2f ms); target <= 10 ms: %s (%.2fx of target); %.0f alerts pending/firing; "
      "%.0f rule errors\n",
      r->counters.count("series") ? r->counters.at("series") : 0.0, ms, r->cpu_ns_per_iter / 1e6,
      ms <= 10 ? "met" : "NOT met", ms / 10,
      r->counters.count("alerts") ? r->counters.at("alerts") : 0.0,
      r->counters.count("rule_errors") ? r->counters.at("rule_errors") : 0.0);
  if (const Result* q = find_result("BM_DefaultRuleQueriesOnly/iterations:100")) {
    std::printf(
        "  of which PromQL alone: %.2f ms (CPU %.2f ms); engine overhead (templates, state, "
        "ALERTS series, snapshot): %.2f ms CPU\n",
        q->ns_per_iter / 1e6, q->cpu_ns_per_iter / 1e6,
        (r->cpu_ns_per_iter - q->cpu_ns_per_iter) / 1e6);
  }
}

const SummarySection kAlertSection("Alert rule evaluation", 50, print_alert_summary);

}  // namespace
}  // namespace limitscope::bench
