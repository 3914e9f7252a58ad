// Verifies the Tuner's setting form without Qt: a rate is entered in its own period when it is
// one offered (else the shortest in which one cost unit arrives) and read back exactly; a
// change of period keeps the number; a window is read back to the nanosecond; each field's
// message is its own first problem and follows the trace's largest cost; the field names and the
// fixed window's note follow the algorithm; the sliders map decades evenly and round to three
// digits; and a session's two forms are checked against the adopted trace's largest cost.
#include "core/tuner/setting_form.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <memory>

#include "core/tuner/tuner_session.h"
#include "support/limit_params_builders.h"

namespace limitscope::tuner {
namespace {

using test::bucket;
using test::window;

constexpr Algorithm kBucket = Algorithm::token_bucket;
constexpr Algorithm kWindow = Algorithm::sliding_log;

TEST(SettingForm, StartsAsATokenBucketOf100Refilling10PerSecond) {
  const SettingForm form;
  EXPECT_EQ(form.params().describe(), bucket(kBucket, 100, 10).describe());
  EXPECT_TRUE(form.valid());
}

TEST(SettingForm, ARateIsEnteredInItsOwnPeriodAndReadBackExactly) {
  const struct {
    Rate rate;
    int period;  // index into rate_periods()
    double shown;
  } rows[] = {
      {Rate{100, std::chrono::minutes(1)}, 1, 100},    {Rate{1, std::chrono::hours(1)}, 2, 1},
      {Rate{50000, std::chrono::hours(24)}, 3, 50000}, {Rate::per_sec(12.5), 0, 12.5},
      {Rate{1, std::chrono::seconds(2)}, 1, 30},   // not offered: the shortest with >= 1 unit
      {Rate{1, std::chrono::hours(48)}, 3, 0.5}};  // below one a day: the longest
  for (const auto& row : rows) {
    SettingForm form;
    form.show(bucket(kBucket, 60, row.rate.amount, row.rate.period));
    EXPECT_EQ(form.rate_period(), row.period) << row.rate.to_string();
    EXPECT_EQ(form.value(1), row.shown) << row.rate.to_string();
    EXPECT_DOUBLE_EQ(form.params().refill.per_second(), row.rate.per_second())
        << row.rate.to_string();
  }
  EXPECT_EQ(rate_periods()[2].label, "/ h");
}

TEST(SettingForm, AChangeOfPeriodKeepsTheNumber) {
  SettingForm form;
  form.show(bucket(kBucket, 60, 30, std::chrono::minutes(1)));
  form.set_rate_period(2);
  EXPECT_EQ(form.params().refill.to_string(), "30/h");
  form.set_rate_period(7);  // out of range: ignored
  EXPECT_EQ(form.rate_period(), 2);
}

TEST(SettingForm, AWindowIsReadBackToTheNanosecondAndKeepsTheRatePeriod) {
  SettingForm form;
  form.show(bucket(kBucket, 60, 100, std::chrono::minutes(1)));
  form.show(window(kWindow, 10, std::chrono::milliseconds(1500)));
  EXPECT_EQ(form.value(0), 1.5);
  EXPECT_EQ(form.value(1), 10);
  EXPECT_EQ(form.rate_period(), 1);
  EXPECT_FALSE(form.has_rate_period());
  EXPECT_EQ(form.params().window, std::chrono::milliseconds(1500));
  form.set_value(0, 0.0000000015);  // 1.5 ns
  EXPECT_EQ(form.params().window, Nanos{2});
  form.set_value(0, std::nan(""));
  EXPECT_EQ(form.params().window, Nanos{0});
}

TEST(SettingForm, EachFieldShowsItsOwnFirstProblemAgainstTheLargestCost) {
  SettingForm form;
  form.show(bucket(kBucket, 5, 1));
  EXPECT_EQ(form.problem_text(0), "");
  form.set_largest_cost(8);
  EXPECT_FALSE(form.valid());
  EXPECT_NE(form.problem_text(0).find("below the largest cost in the trace (8)"), std::string::npos)
      << form.problem_text(0);
  EXPECT_EQ(form.problem_text(1), "");
  form.set_value(1, -1);  // values stay as entered, never clamped
  EXPECT_EQ(form.value(1), -1);
  EXPECT_NE(form.problem_text(1).find("the refill rate must be greater than 0"), std::string::npos)
      << form.problem_text(1);
  form.set_value(0, 8);
  form.set_value(1, 1);
  EXPECT_TRUE(form.valid());

  form.show(window(kWindow, 5, std::chrono::microseconds(10)));
  EXPECT_NE(form.problem_text(0).find("at least 1 ms"), std::string::npos) << form.problem_text(0);
  EXPECT_NE(form.problem_text(1).find("the limit 5 is below"), std::string::npos)
      << form.problem_text(1);
}

TEST(SettingForm, TheFieldNamesAndTheNoteFollowTheAlgorithm) {
  const struct {
    Algorithm algorithm;
    const char* first;
    const char* second;
    bool note;
  } rows[] = {{Algorithm::token_bucket, "Capacity (cost)", "Refill (cost)", false},
              {Algorithm::gcra, "Capacity (cost)", "Refill (cost)", false},
              {Algorithm::leaky_bucket, "Queue depth", "Drain (cost)", false},
              {Algorithm::sliding_log, "Window (s)", "Limit (cost / window)", false},
              {Algorithm::fixed_window, "Window (s)", "Limit (cost / window)", true}};
  SettingForm form;
  for (const auto& row : rows) {
    form.set_algorithm(row.algorithm);  // the numbers stay
    EXPECT_EQ(form.field_label(0), row.first);
    EXPECT_EQ(form.field_label(1), row.second);
    EXPECT_EQ(form.value(0), 100);
    EXPECT_EQ(form.note().empty(), !row.note) << to_string(row.algorithm);
  }
  EXPECT_EQ(form.note(), "A fixed window admits up to twice the limit across a window boundary.");
  EXPECT_EQ(editable_algorithms().size(), 6u);
}

TEST(SettingForm, SlidersMapDecadesEvenlyAndRoundToThreeDigits) {
  EXPECT_EQ(slider_position(0.01), 0);
  EXPECT_EQ(slider_position(-5), 0);
  EXPECT_EQ(slider_position(std::nan("")), 0);
  EXPECT_EQ(slider_position(1e6), kSliderSteps);
  EXPECT_EQ(slider_position(1e9), kSliderSteps);         // clamped to the slider's end
  EXPECT_EQ(slider_position(10), kSliderSteps * 3 / 8);  // 3 of the 8 decades
  EXPECT_DOUBLE_EQ(slider_value(0), 0.01);
  EXPECT_DOUBLE_EQ(slider_value(kSliderSteps), 1e6);
  EXPECT_DOUBLE_EQ(slider_value(kSliderSteps * 3 / 8), 10);
  EXPECT_DOUBLE_EQ(slider_value(500), 100);
  EXPECT_DOUBLE_EQ(slider_value(501), 102);  // 101.85...: three significant digits
  for (int pos : {1, 137, 420, 999}) EXPECT_EQ(slider_position(slider_value(pos)), pos) << pos;
}

TEST(SettingForm, ASessionsSettingsAreCheckedAgainstTheAdoptedTracesLargestCost) {
  TunerSession session;
  session.setting(TunerSession::current).show(bucket(kBucket, 5, 1));
  session.setting(TunerSession::candidate).show(bucket(kBucket, 20, 1));
  EXPECT_TRUE(session.setting(TunerSession::current).valid());
  auto trace = std::make_shared<trace::Trace>();
  trace->add(0, "k", 12);
  TraceFacts facts;
  facts.largest_cost = 12;
  session.adopt(trace, facts);
  EXPECT_EQ(session.setting(TunerSession::current).largest_cost(), 12);
  EXPECT_FALSE(session.setting(TunerSession::current).valid());
  EXPECT_TRUE(session.setting(TunerSession::candidate).valid());
}

}  // namespace
}  // namespace limitscope::tuner
