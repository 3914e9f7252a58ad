// Verifies that a recording keeps what the live session saw during an outage, so its playback
// shows the same picture without re-evaluating anything: the sources and their outages (the
// charts' no-data bands), the gateway's fail-open (the UNPROTECTED banner and its count), the
// alerts as the panel showed them ("no data" included) and the event log, each as of the
// cursor; and that the step line's new fields are optional (a step without them reads as before).

#include <gtest/gtest.h>

#include <sstream>

#include "core/metrics/metric_names.h"
#include "core/sources/playback_source.h"
#include "core/sources/session_state.h"
#include "core/sources/simulation_recorder.h"
#include "support/gateway_series.h"
#include "support/snapshot_charts.h"

namespace limitscope {
namespace {

constexpr std::int64_t kT0 = 1'800'000'000'000;  // ms since the epoch

using test::chart;

const AlertRow* alert(const DashboardSnapshot& s, const std::string& rule) {
  for (const AlertRow& a : s.alerts) {
    if (a.rule == rule) return &a;
  }
  return nullptr;
}

bool logged(const DashboardSnapshot& s, const std::string& text) {
  for (const SourceEvent& e : s.events) {
    if (e.text == text) return true;
  }
  return false;
}

TEST(PlaybackOutage, APlaybackShowsTheBandsBannerAlertsAndLogTheLiveSessionShowed) {
  auto made = SessionState::create();
  ASSERT_TRUE(made.ok()) << made.error();
  SessionState& session = **made;
  // What the live sources report of themselves (LiveSource::add_status).
  session.set_sources([&session] {
    std::vector<SourceStatus> out;
    for (const char* kind : {"metrics", "redis"}) {
      SourceStatus st;
      st.kind = kind;
      st.name = std::string(kind) + ": somewhere";
      st.outages = session.outages(kind);
      st.down = !st.outages.empty() && !st.outages.back().end_ms;
      st.metrics = session.metrics_of(kind);
      out.push_back(std::move(st));
    }
    return out;
  });
  const metrics::Labels level{{"__name__", std::string(dashboard_series::kKeyLevel)},
                              {"api_key", "014badae33b80a3786c4b116e54d1c66"},
                              {"tier", "gw-free"},
                              {"model", "gpt-4.1"}};
  const metrics::Labels degraded = test::degraded_requests_labels();
  const metrics::Labels circuit = test::redis_circuit_labels();
  ManualClock clock;
  std::stringbuf text;
  ASSERT_EQ(session.start_recording(std::make_unique<std::ostream>(&text), "mem", "redis + metrics",
                                    kT0, clock),
            Status{});
  session.event(kT0, "redis: connected");
  // Two minutes of a nearly empty key (LimiterKeyNearlyEmpty fires), the gateway protected.
  std::int64_t t = kT0;
  double total = 0;
  const auto second = [&](bool redis_up, double circuit_state, double degraded_per_s) {
    if (redis_up) {
      session.writing_as("redis");
      ASSERT_TRUE(session.append(level, {t, 0.02}));
    }
    session.writing_as("metrics");
    total += degraded_per_s;
    ASSERT_TRUE(session.append(circuit, {t, circuit_state}));
    ASSERT_TRUE(session.append(degraded, {t, total}));
    (void)session.evaluate(t);
    session.refreshed(t);
    t += 1000;
  };
  for (int i = 0; i < 120; ++i) second(true, 0, 0);
  const std::int64_t before_ms = t - 1000;
  // Redis dies: the gateway fails open, 40 requests a second admitted without a check.
  const std::int64_t down_at = t;
  session.source_down("redis", down_at);
  session.event(down_at, "redis: refresh failed: connection refused");
  for (int i = 0; i < 90; ++i) second(false, 2, 40);
  const std::int64_t end = t - 1000;
  const ChartView view{kT0, end, 100, 8, {}};
  DashboardSnapshot live;
  session.fill(live, view, end);
  ASSERT_EQ(session.stop_recording(end), Status{});

  // The live picture the test compares against.
  ASSERT_EQ(chart(live, ChartKind::bucket_levels).no_data.size(), 1u);
  ASSERT_TRUE(live.protection.unprotected);
  ASSERT_NE(alert(live, "LimiterKeyNearlyEmpty"), nullptr);
  ASSERT_EQ(alert(live, "LimiterKeyNearlyEmpty")->state, AlertState::no_data);

  std::istringstream in(text.str());
  auto played = PlaybackSource::read(in, "mem");
  ASSERT_TRUE(played.ok()) << played.error();
  EXPECT_EQ((*played)->load_error(), "");
  PlaybackSource& p = **played;
  p.seek(end);
  const DashboardSnapshot at_end = p.snapshot(view);
  const NoDataBand& band = chart(at_end, ChartKind::bucket_levels).no_data.at(0);
  EXPECT_EQ(chart(at_end, ChartKind::bucket_levels).no_data.size(), 1u);
  EXPECT_EQ(band.source, "redis");
  EXPECT_EQ(band.start_ms, down_at);
  EXPECT_TRUE(band.open);
  EXPECT_TRUE(chart(at_end, ChartKind::quota_burn).no_data.empty())
      << "redis does not feed quota burn";
  ASSERT_EQ(at_end.sources.size(), 2u);
  EXPECT_EQ(at_end.sources[1].kind, "redis");
  EXPECT_EQ(at_end.sources[1].name, "redis: somewhere");
  EXPECT_TRUE(at_end.sources[1].down);
  EXPECT_FALSE(at_end.sources[0].down);
  EXPECT_TRUE(at_end.protection.unprotected);
  EXPECT_EQ(at_end.protection.since_ms, live.protection.since_ms);
  EXPECT_DOUBLE_EQ(at_end.protection.admitted_unchecked, live.protection.admitted_unchecked);
  ASSERT_NE(alert(at_end, "LimiterKeyNearlyEmpty"), nullptr);
  EXPECT_EQ(alert(at_end, "LimiterKeyNearlyEmpty")->state, AlertState::no_data)
      << "recorded as the panel showed it";
  EXPECT_EQ(alert(at_end, "LimiterKeyNearlyEmpty")->since_ms, down_at);
  EXPECT_TRUE(logged(at_end, "redis: connected"));
  EXPECT_TRUE(logged(at_end, "redis: refresh failed: connection refused"));

  // Before the outage: no band, protected, the alert firing, the failure not yet logged.
  p.seek(before_ms);
  const DashboardSnapshot before = p.snapshot(ChartView{kT0, before_ms, 100, 8, {}});
  EXPECT_TRUE(chart(before, ChartKind::bucket_levels).no_data.empty());
  EXPECT_FALSE(before.protection.unprotected);
  ASSERT_EQ(before.sources.size(), 2u);
  EXPECT_FALSE(before.sources[1].down);
  ASSERT_NE(alert(before, "LimiterKeyNearlyEmpty"), nullptr);
  EXPECT_EQ(alert(before, "LimiterKeyNearlyEmpty")->state, AlertState::firing);
  EXPECT_TRUE(logged(before, "redis: connected"));
  EXPECT_FALSE(logged(before, "redis: refresh failed: connection refused"));

  // Sources and protection are written when they change, not at every step.
  std::size_t steps = 0, with_sources = 0;
  std::istringstream lines(text.str());
  for (std::string line; std::getline(lines, line);) {
    if (line.find("\"type\":\"step\"") == std::string::npos) continue;
    ++steps;
    if (line.find("\"sources\":") != std::string::npos) ++with_sources;
  }
  EXPECT_GT(steps, 200u);
  EXPECT_LE(with_sources, 4u) << "the sources repeated on every step";
}

// A step line of a recording made before these fields existed, and malformed ones.
TEST(PlaybackOutage, TheStepLinesStatusFieldsAreOptionalAndChecked) {
  const std::string head =
      "{\"type\":\"header\",\"format\":\"limitscope-recording\",\"version\":1,\"source\":\"s\","
      "\"start_ms\":0,"
      "\"recording_started_ms\":0}\n";
  const auto load = [&](const std::string& step) {
    std::istringstream in(head + step + "\n");
    return read_recording(in, "rec");
  };
  const RecordingLoad old =
      load(R"({"type":"step","t_ms":1000,"keys":[],"incidents":[],"dropped_samples":0})");
  EXPECT_EQ(old.error, "");
  ASSERT_EQ(old.recording.steps.size(), 1u);
  EXPECT_EQ(old.recording.steps[0].sources, nullptr);
  EXPECT_EQ(old.recording.steps[0].protection, nullptr);

  const RecordingLoad full = load(
      R"({"type":"step","t_ms":1000,"keys":[],"incidents":[],"dropped_samples":0,)"
      R"("sources":[{"kind":"redis","name":"redis: r","metrics":["limitscope_key_level_ratio"],"outages":[[500,null]]}],)"
      R"("protection":{"unprotected":true,"since_ms":600,"admitted_unchecked":12,"circuit_state":2,"intervals":[[600,null,12]]},)"
      R"("events":[[500,"redis: refresh failed"]]})");
  EXPECT_EQ(full.error, "");
  ASSERT_EQ(full.recording.steps.size(), 1u);
  ASSERT_NE(full.recording.steps[0].sources, nullptr);
  EXPECT_TRUE(full.recording.steps[0].sources->at(0).down);
  EXPECT_EQ(full.recording.steps[0].protection->intervals.at(0).admitted_unchecked, 12);
  EXPECT_EQ(full.recording.steps[0].events_through, 1u);
  EXPECT_EQ(full.recording.events.at(0).text, "redis: refresh failed");

  const std::pair<const char*, const char*> bad[] = {
      {R"("sources":[{"kind":"redis","name":"r","metrics":[],"outages":[[900,500]]}])",
       "outage ends before it starts"},
      {R"("sources":{})", "\"sources\" must be an array"},
      {R"("protection":{"unprotected":true})", "missing \"since_ms\""},
      {R"("events":[[1,2]])", "each event must be [t_ms, text]"},
  };
  for (const auto& [field, why] : bad) {
    const RecordingLoad l = load(
        std::string(R"({"type":"step","t_ms":1000,"keys":[],"incidents":[],"dropped_samples":0,)") +
        field + "}");
    EXPECT_NE(l.error.find("rec:2: step line: "), std::string::npos) << l.error;
    EXPECT_NE(l.error.find(why), std::string::npos) << l.error;
  }
}

}  // namespace
}  // namespace limitscope
