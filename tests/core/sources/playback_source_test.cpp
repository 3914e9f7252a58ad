// Verifies that a recorded session played back shows what the live run showed: the same
// chart data, alert bands, alert rows, key table and recent decisions, at the end and at any
// cursor position (seek), and that play advances the cursor at the given pace to the end.

#include "core/sources/playback_source.h"

#include <gtest/gtest.h>

#include <sstream>

#include "support/recording_fixture.h"

namespace limitscope {
namespace {

using namespace std::chrono_literals;

ChartView window(std::int64_t now_ms, std::vector<std::string> keys = {}) {
  ChartView v;
  v.end_ms = now_ms;
  v.start_ms = now_ms - 5 * 60 * 1000;
  v.columns = 300;
  v.selected_keys = std::move(keys);
  return v;
}

void expect_same(const DashboardSnapshot& live, const DashboardSnapshot& played) {
  EXPECT_EQ(played.now_ms, live.now_ms);
  ASSERT_EQ(played.charts.size(), live.charts.size());
  for (std::size_t c = 0; c < live.charts.size(); ++c) {
    SCOPED_TRACE(live.charts[c].title);
    ASSERT_EQ(played.charts[c].lines.size(), live.charts[c].lines.size());
    EXPECT_EQ(played.charts[c].thresholds, live.charts[c].thresholds);
    EXPECT_EQ(played.charts[c].points_in, live.charts[c].points_in);
    for (std::size_t l = 0; l < live.charts[c].lines.size(); ++l) {
      const ChartLine& a = live.charts[c].lines[l];
      const ChartLine& b = played.charts[c].lines[l];
      EXPECT_EQ(b.name, a.name);
      EXPECT_EQ(b.selected, a.selected);
      EXPECT_EQ(b.projected_exhaustion_ms, a.projected_exhaustion_ms);
      ASSERT_EQ(b.points.size(), a.points.size()) << a.name;
      for (std::size_t p = 0; p < a.points.size(); ++p) {
        EXPECT_EQ(b.points[p].x, a.points[p].x);
        EXPECT_EQ(b.points[p].y, a.points[p].y);
      }
    }
  }
  ASSERT_EQ(played.alert_intervals.size(), live.alert_intervals.size());
  for (std::size_t i = 0; i < live.alert_intervals.size(); ++i) {
    const AlertInterval& a = live.alert_intervals[i];
    const AlertInterval& b = played.alert_intervals[i];
    EXPECT_EQ(std::tie(b.rule, b.start_ms, b.end_ms, b.firing, b.open),
              std::tie(a.rule, a.start_ms, a.end_ms, a.firing, a.open));
  }
  ASSERT_EQ(played.alerts.size(), live.alerts.size());
  for (std::size_t i = 0; i < live.alerts.size(); ++i) {
    const AlertRow& a = live.alerts[i];
    const AlertRow& b = played.alerts[i];
    EXPECT_EQ(std::tie(b.rule, b.state, b.since_ms, b.value, b.labels, b.severity, b.summary),
              std::tie(a.rule, a.state, a.since_ms, a.value, a.labels, a.severity, a.summary));
  }
  ASSERT_EQ(played.keys.size(), live.keys.size());
  for (std::size_t i = 0; i < live.keys.size(); ++i) {
    const KeyRow& a = live.keys[i];
    const KeyRow& b = played.keys[i];
    EXPECT_EQ(std::tie(b.api_key, b.model, b.tier, b.algorithm, b.parameters, b.capacity),
              std::tie(a.api_key, a.model, a.tier, a.algorithm, a.parameters, a.capacity));
    EXPECT_EQ(std::tie(b.level, b.occupancy, b.requests_per_s, b.rejected_per_s, b.spend,
                       b.quota_burn, b.last_seen_ms),
              std::tie(a.level, a.occupancy, a.requests_per_s, a.rejected_per_s, a.spend,
                       a.quota_burn, a.last_seen_ms));
    EXPECT_EQ(b.sparkline, a.sparkline) << a.api_key;
  }
  EXPECT_EQ(played.incidents, live.incidents);
  ASSERT_EQ(played.decisions.size(), live.decisions.size());
  for (const auto& [key, rows] : live.decisions) {
    const auto& other = played.decisions.at(key);
    ASSERT_EQ(other.size(), rows.size()) << key;
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const DecisionRow& a = rows[i];
      const DecisionRow& b = other[i];
      EXPECT_EQ(std::tie(b.t_ns, b.api_key, b.tier, b.model, b.cost, b.allowed, b.degraded,
                         b.reason, b.remaining, b.retry_after_s, b.attempt, b.llm_tokens, b.spend),
                std::tie(a.t_ns, a.api_key, a.tier, a.model, a.cost, a.allowed, a.degraded,
                         a.reason, a.remaining, a.retry_after_s, a.attempt, a.llm_tokens, a.spend));
    }
  }
}

class RecordedPlayback : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    auto src = test::make_recorded_source();
    ManualClock clock;
    std::stringbuf text;  // outlives the writer, which owns only the stream over it
    ASSERT_EQ(src->start_recording(std::make_unique<std::ostream>(&text), "session.jsonl", clock),
              Status{});
    // Keep the live snapshots at two instants to compare the playback against.
    src->advance(150s);
    mid_ = std::make_unique<DashboardSnapshot>(src->snapshot(window(src->now_ms(), {"pro-batch"})));
    src->advance(150s);
    end_ = std::make_unique<DashboardSnapshot>(
        src->snapshot(window(src->now_ms(), {"pro-batch", "pro-startup"})));
    ASSERT_EQ(src->stop_recording(), Status{});
    recording_ = text.str();
    live_ = std::move(src);
    played_ = play(recording_);  // read once (slow under the sanitizers); tests seek it
    ASSERT_NE(played_, nullptr);
    EXPECT_TRUE(played_->at_end());  // a recording opens at its end
  }
  static void TearDownTestSuite() {
    played_.reset();
    live_.reset();
    mid_.reset();
    end_.reset();
  }

  static std::unique_ptr<PlaybackSource> play(const std::string& text) {
    std::istringstream in(text);
    auto p = PlaybackSource::read(in, "session.jsonl");
    EXPECT_TRUE(p.ok()) << (p.ok() ? "" : p.error());
    return p.ok() ? std::move(*p) : nullptr;
  }

  static inline std::string recording_;
  static inline std::unique_ptr<EmbeddedSimulationSource> live_;
  static inline std::unique_ptr<PlaybackSource> played_;
  static inline std::unique_ptr<DashboardSnapshot> mid_, end_;
};

TEST_F(RecordedPlayback, AtTheEndShowsWhatTheLiveRunShowed) {
  PlaybackSource* p = played_.get();
  ASSERT_NE(p, nullptr);
  p->seek(p->end_ms());
  EXPECT_EQ(p->load_error(), "");
  EXPECT_EQ(p->now_ms(), end_->now_ms);
  const auto snap = p->snapshot(window(p->now_ms(), {"pro-batch", "pro-startup"}));
  // The scenario's burst makes HighRateLimitRejection pend: bands to compare.
  EXPECT_FALSE(end_->alert_intervals.empty());
  EXPECT_FALSE(end_->decisions.at("pro-batch").empty());
  expect_same(*end_, snap);
  EXPECT_EQ(snap.source, "playback: session.jsonl");
}

TEST_F(RecordedPlayback, SeekShowsTheSessionAsItWasThen) {
  PlaybackSource* p = played_.get();
  ASSERT_NE(p, nullptr);
  p->seek(mid_->now_ms);
  expect_same(*mid_, p->snapshot(window(mid_->now_ms, {"pro-batch"})));
  // Nothing after the cursor leaks into the charts, even for a window reaching past it.
  auto late = window(mid_->now_ms + 60'000);
  for (const ChartData& c : p->snapshot(late).charts) {
    for (const ChartLine& l : c.lines) {
      for (const auto& pt : l.points) EXPECT_LE(pt.x, static_cast<double>(mid_->now_ms));
    }
  }
}

TEST_F(RecordedPlayback, PlayMovesTheCursorAtThePaceAndStopsAtTheEnd) {
  PlaybackSource* p = played_.get();
  ASSERT_NE(p, nullptr);
  p->seek(0);  // clamped to the beginning
  EXPECT_EQ(p->now_ms(), p->begin_ms());
  EXPECT_EQ(p->begin_ms(), live_->start_ms());  // recorded from the run's start
  EXPECT_EQ(p->advance(500us), 0);              // less than a millisecond so far: carried over
  EXPECT_EQ(p->advance(3500us), 1);
  EXPECT_EQ(p->now_ms(), p->begin_ms() + 4);
  p->advance(std::chrono::hours(1));
  EXPECT_TRUE(p->at_end());
  EXPECT_EQ(p->now_ms(), end_->now_ms);
  EXPECT_EQ(p->advance(1s), 0);
}

}  // namespace
}  // namespace limitscope
