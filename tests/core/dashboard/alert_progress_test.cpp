// Verifies that a pending alert shows its progress toward its rule's `for` ("pending 3m of
// 10m") wherever its state is shown: the session's alert rows at the snapshot's now, the
// incident summary, and a recording played back at its cursor.

#include <gtest/gtest.h>

#include <sstream>

#include "core/dashboard/incident_summary.h"
#include "core/sources/playback_source.h"
#include "core/sources/session_state.h"

namespace limitscope {
namespace {

constexpr std::int64_t kMin = 60'000;
constexpr std::int64_t kT0 = 1'800'000'000'000 - 1'800'000'000'000 % kMin;  // on a minute

constexpr const char* kRules = R"(groups:
  - name: g
    interval: 1m
    rules:
      - alert: TooHigh
        expr: x > 1
        for: 10m
)";

const AlertRow& only_alert(const DashboardSnapshot& s) {
  if (s.alerts.size() != 1)
    throw std::logic_error("expected one alert, got " + std::to_string(s.alerts.size()));
  return s.alerts[0];
}

TEST(AlertProgress, DurationsReadAtAGlance) {
  const std::pair<std::int64_t, const char*> cases[] = {
      {0, "0s"},         {999, "0s"},         {45'000, "45s"},
      {180'000, "3m"},   {192'000, "3m12s"},  {3'600'000, "1h"},
      {3'605'000, "1h"}, {3'900'000, "1h5m"}, {90'061'000, "1d1h"},
      {-5'000, "0s"},
  };
  for (const auto& [ms, text] : cases) EXPECT_EQ(short_duration(ms), text) << ms;
}

TEST(AlertProgress, PendingSaysHowFarItIsTowardItsFor) {
  SessionOptions o;
  o.rules_text = kRules;
  o.rules_source = "progress.yml";
  auto made = SessionState::create(o);
  ASSERT_TRUE(made.ok()) << made.error();
  SessionState& s = **made;
  std::stringbuf text;  // outlives the writer, which owns only the stream over it
  ManualClock clock;
  const metrics::Labels x{{"__name__", "x"}, {"api_key", "k"}};
  ASSERT_TRUE(s.append(x, {kT0, 5}));
  ASSERT_EQ(
      s.start_recording(std::make_unique<std::ostream>(&text), "mem.jsonl", "test", kT0, clock),
      Status{});
  for (std::int64_t m = 0; m <= 3; ++m) {
    ASSERT_TRUE(m == 0 || s.append(x, {kT0 + m * kMin, 5}));
    (void)s.evaluate(kT0 + m * kMin);
  }
  DashboardSnapshot at3;
  s.fill(at3, ChartView{kT0, kT0 + 3 * kMin, 100, 8, {}}, kT0 + 3 * kMin);
  const AlertRow& a = only_alert(at3);
  EXPECT_EQ(a.state, AlertState::pending);
  EXPECT_EQ(a.for_ms, 10 * kMin);
  EXPECT_EQ(a.pending_ms, 3 * kMin);
  EXPECT_EQ(alert_state_text(a), "pending 3m of 10m");
  EXPECT_NE(incident_summary_markdown(at3).find("| pending 3m of 10m |"), std::string::npos)
      << incident_summary_markdown(at3);

  // Half a minute later, before the next evaluation: the progress follows the snapshot's now.
  DashboardSnapshot later;
  s.fill(later, ChartView{kT0, kT0 + 3 * kMin + 30'000, 100, 8, {}}, kT0 + 3 * kMin + 30'000);
  EXPECT_EQ(alert_state_text(only_alert(later)), "pending 3m30s of 10m");

  // A rule without `for` is never shown as pending; a firing alert says only that.
  for (std::int64_t m = 4; m <= 10; ++m) {
    ASSERT_TRUE(s.append(x, {kT0 + m * kMin, 5}));
    (void)s.evaluate(kT0 + m * kMin);
  }
  DashboardSnapshot fired;
  s.fill(fired, ChartView{kT0, kT0 + 10 * kMin, 100, 8, {}}, kT0 + 10 * kMin);
  EXPECT_EQ(alert_state_text(only_alert(fired)), "firing");
  ASSERT_EQ(s.stop_recording(kT0 + 10 * kMin), Status{});

  // The recording keeps the rule's `for`: playback shows the same progress at its cursor.
  std::istringstream in(text.str());
  auto played = PlaybackSource::read(in, "mem.jsonl");
  ASSERT_TRUE(played.ok()) << played.error();
  (*played)->seek(kT0 + 3 * kMin + 30'000);
  const DashboardSnapshot p = (*played)->snapshot(ChartView{kT0, kT0 + 10 * kMin, 100, 8, {}});
  EXPECT_EQ(alert_state_text(only_alert(p)), "pending 3m30s of 10m");
}

}  // namespace
}  // namespace limitscope
