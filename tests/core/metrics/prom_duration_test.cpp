// Verifies Prometheus duration parsing and formatting (model.Duration's rules).

#include "core/metrics/prom_duration.h"

#include <gtest/gtest.h>

namespace limitscope::metrics {
namespace {

struct ParseRow {
  const char* text;
  std::int64_t ms;
};

TEST(PromDuration, ParsesValidSpellings) {
  const ParseRow rows[] = {
      {"0", 0},
      {"0s", 0},
      {"500ms", 500},
      {"10s", 10'000},
      {"5m", 300'000},
      {"1h30m", 5'400'000},
      {"1d", 86'400'000},
      {"1w", 604'800'000},
      {"1y", 31'536'000'000},
      {"1h0m5s", 3'605'000},
      {"2d3h4m5s6ms", 183'845'006},
  };
  for (const auto& r : rows) {
    auto d = parse_prom_duration(r.text);
    ASSERT_TRUE(d.ok()) << r.text << ": " << d.error();
    EXPECT_EQ(*d, r.ms) << r.text;
  }
}

TEST(PromDuration, RefusesWhatPrometheusRefuses) {
  for (const char* text : {"", "1.5s", "5", "m", "30m1h", "1m1m", "-5m", "5 m", "1sec", "10mss"}) {
    auto d = parse_prom_duration(text);
    EXPECT_FALSE(d.ok()) << text;
  }
  EXPECT_EQ(parse_prom_duration("").error(), "empty duration string");
  EXPECT_EQ(parse_prom_duration("1.5s").error(), "not a valid duration string: \"1.5s\"");
  EXPECT_FALSE(parse_prom_duration("99999999999999999999y").ok());
}

TEST(PromDuration, FormatsAsPrometheus) {
  const ParseRow rows[] = {
      {"0s", 0},           {"500ms", 500},      {"1m30s", 90'000},      {"1h30m", 5'400'000},
      {"1w", 604'800'000}, {"8d", 691'200'000}, {"1y", 31'536'000'000}, {"1d1s", 86'401'000}};
  for (const auto& r : rows) EXPECT_EQ(format_prom_duration(r.ms), r.text);
  EXPECT_EQ(format_prom_duration(-60'000), "-1m");
}

}  // namespace
}  // namespace limitscope::metrics
