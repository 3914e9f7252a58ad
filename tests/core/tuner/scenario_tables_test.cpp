// Verifies the Tuner's scenario tables: the outage table's rows carry the what-if's own figures
// (admitted, 429s served, over-admission, extra spend) per mode, flag the modes that admit
// beyond the limit and name the worst in the verdict; the routing table compares the trace as
// it was with the routed one and says what routing saves and what it costs in 429s.

#include "core/tuner/scenario_tables.h"

#include <gtest/gtest.h>

#include "overload_trace.h"
#include "support/limit_params_builders.h"

namespace limitscope::tuner {
namespace {

// One key asking 10 requests/s for 20 minutes from 13:50, each of 1000 tokens on gpt-4.1.
trace::Trace overload(std::uint32_t tokens = 1000) {
  return test::overload_until(test::kOverload14h + 600'000'000'000, tokens);
}

TEST(ScenarioTables, OutageRowsAreTheWhatIfsFigures) {
  const trace::Trace t = overload();
  auto w = test::priced_outage(t, "5m@14:00");
  ASSERT_TRUE(w.ok()) << w.error();
  const ResultTable table = outage_table(*w);
  ASSERT_EQ(table.rows.size(), 4u);
  EXPECT_EQ(table.rows[0].cells[0], "no outage");
  EXPECT_EQ(table.rows[0].cells[1], std::to_string(w->baseline.admitted));
  for (std::size_t i = 0; i < 3; ++i) {
    const OutageModeResult& m = w->modes[i];
    const auto& cells = table.rows[i + 1].cells;
    EXPECT_EQ(cells[0], to_string(m.mode));
    EXPECT_EQ(cells[1], std::to_string(m.total.admitted));
    EXPECT_EQ(cells[2], std::to_string(m.total.rejected));
    EXPECT_EQ(cells[3], std::to_string(m.in_outage.rejected));
    EXPECT_EQ(cells[4], format_signed(m.over_admitted_requests));
    EXPECT_EQ(cells[6], format_dollars(m.extra_spend));
    EXPECT_EQ(table.rows[i + 1].flagged, m.over_admitted_requests > 0);
  }
  // Fail-open admits all 3000 requests of the window where the limit admits about 300.
  EXPECT_TRUE(table.rows[1].flagged);
  EXPECT_FALSE(table.rows[2].flagged);  // fail-closed refuses, it never over-admits
  EXPECT_TRUE(table.problem);
  EXPECT_NE(table.verdict.find("fail-open admits +"), std::string::npos) << table.verdict;
  EXPECT_NE(table.verdict.find("fail-closed serves " +
                               std::to_string(w->modes[1].in_outage.rejected) + " 429s"),
            std::string::npos)
      << table.verdict;
  EXPECT_TRUE(table.notes.empty());
}

TEST(ScenarioTables, RoutingComparesTheTraceAsItWasWithRouted) {
  const trace::Trace t = overload(100);
  const Policy& policy = default_policy();
  PricingOptions pricing{&policy, std::nullopt};
  auto w = whatif_routing(t, test::bucket(Algorithm::token_bucket, 100, 10), {500, "deepseek-v3.2"},
                          pricing);
  ASSERT_TRUE(w.ok()) << w.error();
  const ResultTable table = routing_table(*w);
  ASSERT_EQ(table.rows.size(), 2u);
  EXPECT_EQ(table.rows[0].cells[1], std::to_string(w->as_was.admitted));
  EXPECT_EQ(table.rows[1].cells[2], std::to_string(w->routed.rejected));
  EXPECT_EQ(table.rows[1].cells[4], format_dollars(w->routed.admitted_spend));
  EXPECT_EQ(w->requests_routed, t.events.size());
  EXPECT_GT(w->spend_saved, 0);
  EXPECT_NE(table.verdict.find("spend saved " + format_dollars(w->spend_saved)), std::string::npos)
      << table.verdict;
  EXPECT_NE(table.verdict.find("429s " + format_signed(w->extra_429s)), std::string::npos)
      << table.verdict;
  EXPECT_EQ(table.problem, w->extra_429s > 0);
}

TEST(ScenarioTables, MoneyAndSignsRead) {
  EXPECT_EQ(format_dollars(0.4234), "$0.42");
  EXPECT_EQ(format_dollars(1234.4), "$1234");
  EXPECT_EQ(format_dollars(-3.1), "-$3.10");
  EXPECT_EQ(format_signed(3), "+3");
  EXPECT_EQ(format_signed(-2), "-2");
  EXPECT_EQ(format_signed(0), "0");
  EXPECT_EQ(format_seconds(0.00042), "0.4 ms");
  EXPECT_EQ(format_seconds(-2.5), "-2.50 s");
  EXPECT_EQ(format_seconds(95), "95 s");
  EXPECT_EQ(format_seconds(-0.00004), "0.0 ms");
}

}  // namespace
}  // namespace limitscope::tuner
