// Verifies a client's traffic shape (start/stop, bursts, the compressed day) and the checks
// on a client specification.

#include "core/sim/traffic.h"

#include <gtest/gtest.h>

namespace limitscope {
namespace {

using std::chrono::seconds;

TEST(TrafficShape, StartStopAndBursts) {
  TrafficShape t;
  t.rate_per_s = 2;
  t.start = seconds(10);
  t.stop = seconds(50);
  t.bursts.push_back(Burst{seconds(20), seconds(5), 40});
  struct Row {
    std::int64_t at_s;
    double rate;
  };
  for (Row r : {Row{0, 0}, Row{9, 0}, Row{10, 2}, Row{19, 2}, Row{20, 40}, Row{24, 40}, Row{25, 2},
                Row{49, 2}, Row{50, 0}}) {
    EXPECT_EQ(t.rate_at(seconds(r.at_s)), r.rate) << r.at_s;
  }
  EXPECT_EQ(t.max_rate(), 40);
}

TEST(TrafficShape, DayCurveIsLowAtMidnightAndHighAtNoon) {
  TrafficShape t;
  t.rate_per_s = 10;
  t.day_length = seconds(60);
  t.diurnal_amplitude = 0.8;
  EXPECT_NEAR(t.rate_at(Nanos{0}), 2, 1e-9);
  EXPECT_NEAR(t.rate_at(seconds(30)), 18, 1e-9);
  EXPECT_NEAR(t.rate_at(seconds(15)), 10, 1e-9);
  EXPECT_NEAR(t.rate_at(seconds(60)), 2, 1e-9);  // the next day starts again
  EXPECT_DOUBLE_EQ(t.max_rate(), 18);
  for (int s = 0; s < 120; ++s) EXPECT_LE(t.rate_at(seconds(s)), t.max_rate() + 1e-12);
}

TEST(ClientSpecValidate, AcceptsDefaultsAndNamesTheClientOnErrors) {
  ClientSpec good;
  good.api_key = "k1";
  good.models = {default_model_share("gpt-4.1", 1)};
  EXPECT_EQ(validate(good), Status{});

  struct Row {
    const char* what;
    void (*spoil)(ClientSpec&);
  };
  const Row rows[] = {
      {"no models", [](ClientSpec& c) { c.models.clear(); }},
      {"weights", [](ClientSpec& c) { c.models[0].weight = 0; }},
      {"negative weight", [](ClientSpec& c) { c.models[0].weight = -1; }},
      {"tokens", [](ClientSpec& c) { c.models[0].tokens_max = c.models[0].tokens_min - 1; }},
      {"rate", [](ClientSpec& c) { c.traffic.rate_per_s = -1; }},
      {"amplitude", [](ClientSpec& c) { c.traffic.diurnal_amplitude = 1.5; }},
      {"burst",
       [](ClientSpec& c) {
         c.traffic.bursts.push_back(Burst{Nanos{0}, Nanos{1}, -3});
       }},
      {"retries", [](ClientSpec& c) { c.retry.max_retries = -1; }},
  };
  for (const Row& r : rows) {
    ClientSpec c = good;
    r.spoil(c);
    const Status err = validate(c);
    ASSERT_FALSE(err.ok()) << r.what;
    EXPECT_NE(err.error().find("k1"), std::string::npos) << err.error();
  }
  ClientSpec nameless = good;
  nameless.api_key.clear();
  EXPECT_FALSE(validate(nameless).ok());
}

TEST(ModelShare, DefaultTokenRangesPerModel) {
  const ModelShare claude = default_model_share("claude-sonnet-4.5", 2);
  EXPECT_EQ(claude.weight, 2);
  EXPECT_LT(claude.tokens_min, claude.tokens_max);
  const ModelShare other = default_model_share("some-model", 1);
  EXPECT_EQ(other.model, "some-model");
  EXPECT_EQ(other.tokens_min, 300);
  EXPECT_EQ(other.tokens_max, 2000);
}

}  // namespace
}  // namespace limitscope
