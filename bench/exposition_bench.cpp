// Exposition figures: parse speed (MB/s, samples/s) of the streaming visitor API and the
// collecting API on a generated gateway-like exposition, and the registry's render cost.
// Target: >= 200 MB/s for the visitor parse (docs/benchmarks.md, "Exposition parsing").

#include <benchmark/benchmark.h>

#include <cstdio>
#include <string>

#include "bench/summary.h"
#include "core/metrics/exposition_generator.h"
#include "core/metrics/exposition_parser.h"
#include "core/metrics/metrics_registry.h"
#include "core/metrics/standard_metrics.h"

namespace limitscope::bench {
namespace {

const metrics::GeneratedExposition& exposition(std::size_t series) {
  static const auto big = metrics::generate_gateway_exposition(100'000);
  static const auto small = metrics::generate_gateway_exposition(10'000);
  return series == 100'000 ? big : small;
}

class NullVisitor final : public metrics::ExpositionVisitor {
 public:
  void on_sample(const metrics::SampleView& s) override { benchmark::DoNotOptimize(s.value); }
  void on_error(const metrics::ParseError&) override { ++errors; }
  std::size_t errors = 0;
};

void BM_ParseExposition(benchmark::State& state) {
  const auto& g = exposition(static_cast<std::size_t>(state.range(0)));
  NullVisitor v;
  for (auto _ : state) {
    auto report = metrics::parse_exposition(g.text, v);
    benchmark::DoNotOptimize(report.samples);
  }
  if (v.errors != 0) state.SkipWithError("generated exposition has parse errors");
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * g.text.size()));
  state.counters["samples_per_second"] = benchmark::Counter(
      static_cast<double>(state.iterations() * g.series), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_ParseExposition)->Arg(100'000)->Unit(benchmark::kMillisecond);

void BM_ParseExpositionCollect(benchmark::State& state) {
  const auto& g = exposition(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) {
    auto parsed = metrics::parse_exposition_collect(g.text);
    benchmark::DoNotOptimize(parsed.samples.data());
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * g.text.size()));
  state.counters["samples_per_second"] = benchmark::Counter(
      static_cast<double>(state.iterations() * g.series), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_ParseExpositionCollect)->Arg(10'000)->Unit(benchmark::kMillisecond);

// A gateway registry with 1,000 API keys: what one /metrics scrape costs the gateway.
void BM_RegistryRender(benchmark::State& state) {
  metrics::MetricsRegistry registry;
  auto m = *metrics::register_gateway_metrics(registry);
  const char* tiers[] = {"free", "pro", "enterprise"};
  const char* models[] = {"gpt-4.1", "claude-sonnet-4.5", "gemini-2.5-flash", "deepseek-v3.2"};
  for (int i = 0; i < 1000; ++i) {
    const char* tier = tiers[i % 3];
    const char* model = models[i % 4];
    m.rate_limit_hits->with({tier, model}).inc();
    m.token_bucket_usage->with({tier, model}).observe(i % 700);
    m.quota_burn_ratio->with({"key" + std::to_string(i), model}).set(i / 1000.0);
  }
  std::size_t bytes = 0;
  for (auto _ : state) {
    std::string text = registry.render();
    bytes = text.size();
    benchmark::DoNotOptimize(text.data());
  }
  state.counters["bytes_per_scrape"] = static_cast<double>(bytes);
}
BENCHMARK(BM_RegistryRender)->Unit(benchmark::kMicrosecond);

void print_exposition_summary() {
  const Result* parse = find_result("BM_ParseExposition/100000");
  if (parse != nullptr) {
    const double mb = static_cast<double>(exposition(100'000).text.size()) / 1e6;
    const double mb_s = mb / (parse->ns_per_iter / 1e9);
    const double cpu_mb_s = mb / (parse->cpu_ns_per_iter / 1e9);
    std::printf(
        "parse (visitor), %.1f MB, 100,000 series: %.0f MB/s wall, %.0f MB/s CPU "
        "(target >= 200 MB/s)\n",
        mb, mb_s, cpu_mb_s);
  }
  if (const Result* c = find_result("BM_ParseExpositionCollect/10000")) {
    const double mb = static_cast<double>(exposition(10'000).text.size()) / 1e6;
    std::printf("parse (collect into Labels), 10,000 series: %.0f MB/s CPU\n",
                mb / (c->cpu_ns_per_iter / 1e9));
  }
  if (const Result* r = find_result("BM_RegistryRender")) {
    std::printf("render gateway registry (1,000 keys): %.0f us per scrape\n",
                r->cpu_ns_per_iter / 1e3);
  }
}

const SummarySection kExpositionSection("Exposition parsing", 40, print_exposition_summary);

}  // namespace
}  // namespace limitscope::bench
