// Verifies the synthetic gateway exposition: exactly the requested series, and clean under
// the parser (so benchmarks time the success path).

#include "core/metrics/exposition_generator.h"

#include <gtest/gtest.h>

#include "core/metrics/exposition_parser.h"

namespace limitscope::metrics {
namespace {

class Generated : public ::testing::TestWithParam<std::size_t> {};

TEST_P(Generated, ParsesCleanWithTheRequestedSeries) {
  const auto g = generate_gateway_exposition(GetParam());
  const auto p = parse_exposition_collect(g.text);
  ASSERT_TRUE(p.errors.empty()) << p.errors[0].line << ": " << p.errors[0].message;
  EXPECT_EQ(g.series, GetParam());
  EXPECT_EQ(p.report.series, GetParam());
  EXPECT_EQ(p.report.families.size(), g.families);
}

INSTANTIATE_TEST_SUITE_P(Sizes, Generated, ::testing::Values(15, 16, 29, 1000, 20011));

TEST(Generated, IsDeterministicPerSeed) {
  EXPECT_EQ(generate_gateway_exposition(100, 7).text, generate_gateway_exposition(100, 7).text);
  EXPECT_NE(generate_gateway_exposition(100, 7).text, generate_gateway_exposition(100, 8).text);
}

}  // namespace
}  // namespace limitscope::metrics
