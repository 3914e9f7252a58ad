// Verifies SessionState, the one session model every source feeds: its revision moves with
// what a snapshot would show and only then (so the worker publishes only on a change), and
// the simulation, a recording played back and a live source all keep their store, alerts,
// decisions and recording in it, with a ChangeStamp that stays put while nothing happens.
// Time is injected everywhere (simulated time, ManualClock); nothing sleeps.

#include "core/sources/session_state.h"

#include <gtest/gtest.h>

#include <sstream>

#include "core/common/sha256.h"
#include "core/sources/metrics_live_source.h"
#include "core/sources/playback_source.h"
#include "core/sources/simulation_recorder.h"
#include "support/canned_http_server.h"
#include "support/recording_fixture.h"

namespace limitscope {
namespace {

using namespace std::chrono_literals;

// A whole minute, so 1 s steps stay inside one evaluation slot of the 15 s and 1 m groups.
constexpr std::int64_t kT0 = 1'800'000'040'000;

const metrics::Labels kLevel{{"__name__", std::string(dashboard_series::kKeyLevel)},
                             {"api_key", "acme"},
                             {"tier", "free"},
                             {"model", "gpt-4.1"}};

std::shared_ptr<SessionState> make_session(SessionOptions o = {}) {
  auto made = SessionState::create(o);
  EXPECT_TRUE(made.ok()) << (made.ok() ? "" : made.error());
  return made.ok() ? std::move(*made) : nullptr;
}

DecisionRow refusal(std::int64_t t_ms) {
  DecisionRow d;
  d.t_ns = t_ms * 1'000'000;
  d.api_key = "acme";
  d.tier = "free";
  d.model = "gpt-4.1";
  d.cost = 8;
  d.reason = "exhausted";
  d.retry_after_s = 0.5;
  return d;
}

TEST(SessionState, RevisionMovesWithEveryChangeASnapshotShowsAndOnlyThen) {
  auto s = make_session();
  ASSERT_NE(s, nullptr);
  std::uint64_t r = s->revision();
  const auto moved = [&] {
    const bool m = s->revision() != r;
    r = s->revision();
    return m;
  };
  ASSERT_TRUE(s->append(kLevel, {kT0, 0.5}));
  EXPECT_TRUE(moved()) << "a sample";
  EXPECT_FALSE(s->append(kLevel, {kT0 - 1, 0.4})) << "time went back";
  EXPECT_FALSE(moved()) << "a refused sample changes nothing";

  (void)s->evaluate(kT0);
  EXPECT_TRUE(moved()) << "the first evaluation";
  (void)s->evaluate(kT0 + 1000);
  EXPECT_FALSE(moved()) << "no group due one second later";

  s->writing_as("redis");
  ASSERT_TRUE(s->append(kLevel, {kT0 + 1000, 0.4}));
  EXPECT_TRUE(moved());
  s->source_down("redis", kT0 + 2000);
  EXPECT_TRUE(moved()) << "an outage begins";
  s->source_down("redis", kT0 + 3000);
  EXPECT_FALSE(moved()) << "still down: nothing new";
  s->source_up("redis", kT0 + 4000);
  EXPECT_TRUE(moved()) << "the outage ends";
  s->source_up("redis", kT0 + 5000);
  EXPECT_FALSE(moved());

  s->set_incidents({"runaway client"});
  EXPECT_TRUE(moved());
  s->set_incidents({"runaway client"});
  EXPECT_FALSE(moved()) << "the same incidents";
  s->event(kT0 + 5000, "redis: connected");
  EXPECT_TRUE(moved());
  s->decision(refusal(kT0 + 5000), kT0 + 5000);
  EXPECT_TRUE(moved());
  s->refreshed(kT0 + 5000);
  EXPECT_FALSE(moved()) << "no gateway metrics, no names, no recording: nothing to show";

  // Equal revisions, equal snapshots.
  DashboardSnapshot a, b;
  const ChartView v{kT0, kT0 + 5000, 100, 8, {"acme"}};
  s->fill(a, v, kT0 + 5000);
  s->fill(b, v, kT0 + 5000);
  ASSERT_EQ(a.decisions.at("acme").size(), 1u);
  EXPECT_EQ(a.decisions.at("acme")[0].retry_after_s, 0.5);
  EXPECT_EQ(a.incidents, std::vector<std::string>{"runaway client"});
  EXPECT_EQ(a.events.size(), b.events.size());
  EXPECT_EQ(a.charts.size(), b.charts.size());
  EXPECT_EQ(a.start_ms, kT0) << "the first sample";
}

TEST(SessionState, ADeclaredStartAndRuleSetsAreTheSourcesChoice) {
  SessionOptions o;
  o.start_ms = kT0 - 60'000;
  o.live_rules = false;
  auto s = make_session(o);
  ASSERT_NE(s, nullptr);
  ASSERT_TRUE(s->append(kLevel, {kT0, 0.5}));
  DashboardSnapshot snap;
  s->fill(snap, ChartView{kT0, kT0, 100, 8, {}}, kT0);
  EXPECT_EQ(snap.start_ms, kT0 - 60'000);
  // The rules are known before any evaluation: the charts are bound from the start.
  bool live_rule = false, default_rule = false;
  for (const ChartData& c : snap.charts) {
    for (const std::string& r : c.rules) {
      live_rule = live_rule || r == "LimiterKeyNearlyEmpty";
      default_rule = default_rule || r == "HighRateLimitRejection";
    }
  }
  EXPECT_TRUE(default_rule);
  EXPECT_FALSE(live_rule) << "live_rules = false leaves the Redis-level rules out";
}

TEST(SessionState, TheSimulationFeedsItAndItsStampMovesOnlyWithSteps) {
  auto sim = test::make_recorded_source();
  ASSERT_NE(sim, nullptr);
  const DashboardSource& src = *sim;
  const ChangeStamp before = src.change_stamp();
  EXPECT_EQ(sim->advance(500ms), 0) << "half a step";
  EXPECT_EQ(src.change_stamp(), before) << "nothing ran: nothing to publish";
  ASSERT_GT(sim->advance(120s), 0);
  EXPECT_NE(src.change_stamp(), before);
  EXPECT_GT(src.session().store().sample_count(), 0u) << "the steps went to the session's store";
  // Its quota series carry the gateway's api_key_hash: the session names each hash by its key.
  const std::string* named = src.session().names().find(api_key_hash("pro-batch"));
  ASSERT_NE(named, nullptr);
  EXPECT_EQ(*named, "pro-batch");

  // Its decisions are the session's, each 429 with its reason, limit, cost and Retry-After.
  bool refused = false;
  for (const auto& [key, rows] :
       sim->snapshot(ChartView{0, sim->now_ms(), 100, 8, {"pro-batch", "pro-startup"}}).decisions) {
    EXPECT_EQ(rows.size(), src.session().decisions().newest_first(key).size());
    for (const DecisionRow& d : rows) {
      if (d.allowed) continue;
      refused = true;
      EXPECT_FALSE(d.reason.empty());
      EXPECT_EQ(d.limit, "requests") << "the simulation limits requests only";
      EXPECT_GT(d.cost, 0);
      EXPECT_TRUE(retry_after_header_s(d).has_value() == d.retry_after_s.has_value());
    }
  }
  EXPECT_TRUE(refused) << "the burst scenario refuses within two minutes";
  const ChangeStamp after = src.change_stamp();
  EXPECT_EQ(sim->inject(IncidentKind::runaway_client, 60s), Status{});
  EXPECT_EQ(src.change_stamp(), after) << "injected, not yet stepped";
}

TEST(SessionState, PlaybackFeedsItAndItsStampMovesWithTheCursor) {
  auto sim = test::make_recorded_source();
  ASSERT_NE(sim, nullptr);
  ManualClock clock;
  std::stringbuf text;
  ASSERT_EQ(sim->start_recording(std::make_unique<std::ostream>(&text), "mem.jsonl", clock),
            Status{});
  sim->advance(90s);
  ASSERT_EQ(sim->stop_recording(), Status{});
  std::istringstream in(text.str());
  auto played = PlaybackSource::read(in, "mem.jsonl");
  ASSERT_TRUE(played.ok()) << played.error();
  PlaybackSource& p = **played;
  EXPECT_GT(p.session().store().sample_count(), 0u);
  EXPECT_FALSE(p.recordable());
  EXPECT_FALSE(p.start_recording("/nonexistent/x.jsonl", clock).ok())
      << "a recording is not recorded again";

  const ChangeStamp at_end = p.change_stamp();
  EXPECT_EQ(p.advance(1s), 0) << "at the end";
  EXPECT_EQ(p.change_stamp(), at_end);
  p.fast_forward(30s);
  EXPECT_EQ(p.now_ms(), p.begin_ms() + 30'000);
  EXPECT_NE(p.change_stamp(), at_end);
  p.fast_forward(0s);
  EXPECT_EQ(p.change_stamp(), at_end) << "fast forward by nothing: the end";
}

TEST(SessionState, ALiveSourceFeedsItAndItsStampMovesOnlyWithARefresh) {
  test::CannedHttpServer server;
  server.respond({200, "text/plain; version=0.0.4",
                  "# TYPE gateway_rate_limit_hits_total counter\n"
                  "gateway_rate_limit_hits_total{tier=\"free\",model=\"gpt-4.1\"} 5\n",
                  false, 0});
  ManualClock clock(Nanos{0}, std::chrono::milliseconds(kT0));
  MetricsLiveOptions o;
  o.url = *http::parse_http_url(server.url());
  o.fetch.retries = 0;
  o.scrape_interval = 1s;
  MetricsLiveSource source(o, clock);
  ASSERT_EQ(source.advance(Nanos{0}), 1);
  ASSERT_TRUE(source.connected()) << source.last_error();
  EXPECT_TRUE(source.real_time());
  const ChangeStamp first = source.change_stamp();
  EXPECT_GT(first.revision, 0u);

  clock.advance(400ms);
  EXPECT_EQ(source.advance(400ms), 0) << "before the scrape interval";
  EXPECT_EQ(source.change_stamp(), first) << "no refresh: no snapshot";

  clock.advance(600ms);
  EXPECT_EQ(source.advance(600ms), 1);
  EXPECT_NE(source.change_stamp(), first) << "a scrape recorded new samples";

  // Fast forward on live time is a refresh now, not a skip.
  const ChangeStamp second = source.change_stamp();
  clock.advance(1s);
  EXPECT_EQ(source.fast_forward(Nanos{0}), 1);
  EXPECT_NE(source.change_stamp(), second);
  EXPECT_FALSE(source.inject(IncidentKind::burst, 60s).ok()) << "incidents are the simulation's";
}

}  // namespace
}  // namespace limitscope
