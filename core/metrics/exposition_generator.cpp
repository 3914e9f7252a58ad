#include "core/metrics/exposition_generator.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <string_view>

#include "core/metrics/exposition_writer.h"
#include "core/metrics/metric_names.h"
#include "core/metrics/series_hash_set.h"

namespace limitscope::metrics {

namespace {

constexpr std::array<std::string_view, 3> kTiers = {"free", "pro", "enterprise"};
constexpr std::array<std::string_view, 4> kModels = {"gpt-4.1", "claude-sonnet-4.5",
                                                     "gemini-2.5-flash", "deepseek-v3.2"};
// Series per API key: 9 buckets + _sum + _count, one hits counter, two request counters,
// one quota gauge.
constexpr std::size_t kSeriesPerKey = 15;

struct Key {
  char hash[17];
  std::string_view tier;
  std::string_view model;
};

Key make_key(std::size_t i, std::uint64_t seed) {
  Key k{};
  std::snprintf(k.hash, sizeof k.hash, "%016llx",
                static_cast<unsigned long long>(mix64(seed * 0x9e3779b97f4a7c15ULL + i)));
  k.tier = kTiers[i % kTiers.size()];
  k.model = kModels[(i / kTiers.size()) % kModels.size()];
  return k;
}

}  // namespace

GeneratedExposition generate_gateway_exposition(std::size_t series, std::uint64_t seed) {
  GeneratedExposition g;
  const std::size_t keys = std::max<std::size_t>(1, series / kSeriesPerKey);
  // The quota gauge takes the remainder so the total is exactly `series` (when >= 15).
  const std::size_t gauge_keys = keys + (series > kSeriesPerKey ? series % kSeriesPerKey : 0);
  g.text.reserve(series * 112);
  std::string& out = g.text;
  auto value = [seed](std::size_t i, std::size_t salt) {
    return static_cast<double>(mix64(seed + i * 31 + salt) % 100000);
  };

  const auto& bounds = names::kGatewayTokenBucketUsageBuckets;
  append_help_line(out, names::kGatewayTokenBucketUsage,
                   "Tokens left in the bucket after a rate-limit decision.");
  append_type_line(out, names::kGatewayTokenBucketUsage, MetricType::kHistogram);
  const std::string bucket = std::string(names::kGatewayTokenBucketUsage) + "_bucket";
  const std::string sum = std::string(names::kGatewayTokenBucketUsage) + "_sum";
  const std::string count = std::string(names::kGatewayTokenBucketUsage) + "_count";
  std::array<std::string, bounds.size() + 1> le_text;
  for (std::size_t b = 0; b < bounds.size(); ++b) append_value(le_text[b], bounds[b]);
  le_text.back() = "+Inf";
  for (std::size_t i = 0; i < keys; ++i) {
    const Key k = make_key(i, seed);
    const LabelView labels[] = {{"api_key_hash", k.hash}, {"model", k.model}, {"tier", k.tier}};
    double cumulative = 0;
    for (std::size_t b = 0; b < le_text.size(); ++b) {
      cumulative += value(i, b) / 100;
      const LabelView le{"le", le_text[b]};
      append_sample_line(out, bucket, labels, cumulative, &le);
    }
    append_sample_line(out, sum, labels, cumulative * 37.5);
    append_sample_line(out, count, labels, cumulative);
  }

  append_help_line(out, names::kGatewayRateLimitHits, "Requests answered 429 by the rate limiter.");
  append_type_line(out, names::kGatewayRateLimitHits, MetricType::kCounter);
  for (std::size_t i = 0; i < keys; ++i) {
    const Key k = make_key(i, seed);
    const LabelView labels[] = {{"api_key_hash", k.hash}, {"model", k.model}, {"tier", k.tier}};
    append_sample_line(out, names::kGatewayRateLimitHits, labels, value(i, 100));
  }

  append_help_line(out, names::kRequests, "Rate-limit decisions by outcome.");
  append_type_line(out, names::kRequests, MetricType::kCounter);
  for (std::size_t i = 0; i < keys; ++i) {
    const Key k = make_key(i, seed);
    for (std::string_view d : {names::kDecisionAllowed, names::kDecisionDenied}) {
      const LabelView labels[] = {
          {"api_key_hash", k.hash}, {"decision", d}, {"model", k.model}, {"tier", k.tier}};
      append_sample_line(out, names::kRequests, labels, value(i, d.size()));
    }
  }

  append_help_line(out, names::kGatewayQuotaBurnRatio,
                   "Spend divided by the daily quota (above 1 when over).");
  append_type_line(out, names::kGatewayQuotaBurnRatio, MetricType::kGauge);
  for (std::size_t i = 0; i < gauge_keys; ++i) {
    const Key k = make_key(i, seed);
    const LabelView labels[] = {{"api_key_hash", k.hash}, {"model", k.model}};
    append_sample_line(out, names::kGatewayQuotaBurnRatio, labels, value(i, 200) / 50000);
  }
  g.series = keys * (kSeriesPerKey - 1) + gauge_keys;
  g.families = 4;
  return g;
}

}  // namespace limitscope::metrics
