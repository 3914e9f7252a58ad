// Verifies that RedisLiveSource follows a rule's decision stream on a real redis-server: the
// backlog fills the recent decisions without counting as traffic, new entries become
// admitted/429 rates per key and per rule and the gateway hits counter, the COUNT budget
// spreads a long stream over refreshes (reported as lag), malformed entries are named in the
// event log, and alert rules over the live levels fire; with a /metrics source beside it
// (CompositeLiveSource) both feed one store, one key table and one recording that plays back.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <memory>
#include <set>

#include "core/metrics/metric_names.h"
#include "core/recording/recording_reader.h"
#include "core/redis/redis_limiter.h"
#include "core/redis/rule_config.h"
#include "core/sources/composite_live_source.h"
#include "core/sources/metrics_live_source.h"
#include "core/sources/playback_source.h"
#include "core/sources/redis_live_source.h"
#include "core/sources/simulation_recorder.h"
#include "support/canned_http_server.h"
#include "support/gateway_series.h"
#include "support/limit_params_builders.h"
#include "support/logged_decisions.h"
#include "support/process.h"
#include "support/redis_server.h"
#include "support/series_lookup.h"

namespace limitscope {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
using test::latest;

// Rule "api": 5 tokens, refilled one per hour (so real time between calls refills nothing).
void configure(redis::Connection& c) {
  auto set = redis::set_config(
      c, redis::KeySchema{}, "api",
      redis::single_limit(test::bucket(Algorithm::token_bucket, 5, 1, std::chrono::hours(1))),
      redis::ChangeInfo{"test", "", std::nullopt});
  ASSERT_TRUE(set.ok()) << set.error().message;
}

// `n` logged decisions of `key` on rule "api" (with a model and token count when given, as the
// gateway's --log-decisions logs them). @return how many were refused
int decide_logged(redis::Connection& c, const std::string& key, int n,
                  const std::string& model = {},
                  std::optional<std::uint32_t> tokens = std::nullopt) {
  return test::decide_logged(c, "api", key, n, model, tokens);
}

RedisLiveOptions options_for(const test::RedisServer& server) {
  RedisLiveOptions o;
  o.url.port = server.port();
  o.connect = {milliseconds(300), milliseconds(300)};
  o.profiles = probe::builtin_profiles();
  return o;
}

// The last minute as the dashboard asks for it, with `key` selected (its recent decisions).
template <class Source>
DashboardSnapshot last_minute(const Source& source, const std::string& key = {}) {
  ChartView view;
  view.end_ms = source.now_ms();
  view.start_ms = view.end_ms - 60'000;
  if (!key.empty()) view.selected_keys = {key};
  return source.snapshot(view);
}

// A live source whose samples carry the injected clock's time, opened after one logged decision
// of alice (so her stream exists before the first read) and advanced once.
struct InjectedClockStream {
  explicit InjectedClockStream(
      std::size_t count_per_refresh = DecisionStreamOptions{}.count_per_refresh) {
    configure(c);
    RedisLiveOptions o = options_for(*server);
    o.streams.count_per_refresh = count_per_refresh;
    o.stamp_with_server_time = false;
    decide_logged(c, "alice", 1);
    source = std::make_unique<RedisLiveSource>(o, clock);
    source->advance(Nanos{0});
  }
  std::unique_ptr<test::RedisServer> server = test::RedisServer::start();
  redis::Connection c = connect(*server);
  ManualClock clock{Nanos{0}, Nanos{1'800'000'000'000'000'000}};
  std::unique_ptr<RedisLiveSource> source;
};

TEST(RedisDecisionStreams, BacklogThenRatesPerKeyAndRule) {
  auto server = test::RedisServer::start();
  auto c = connect(*server);
  configure(c);
  ASSERT_EQ(decide_logged(c, "alice", 2), 0);  // before the dashboard connects: backlog

  ManualClock clock(Nanos{0}, Nanos{1'800'000'000'000'000'000});
  RedisLiveSource source(options_for(*server), clock);
  source.advance(Nanos{0});
  ASSERT_TRUE(source.connected()) << source.last_error();
  EXPECT_EQ(source.decisions_read(), 0u) << "the backlog is not new traffic";

  const int refused = decide_logged(c, "alice", 6) + decide_logged(c, "bob", 1);
  EXPECT_EQ(refused, 3);  // alice: 3 tokens left for 6 requests
  clock.advance(seconds(1));
  source.advance(seconds(1));
  EXPECT_EQ(source.decisions_read(), 7u);
  EXPECT_EQ(source.rejections_read(), 3u);
  const auto& store = source.store();
  EXPECT_DOUBLE_EQ(latest(store, metrics::names::kGatewayRateLimitHits, {{"tier", "api"}}), 3.0);
  EXPECT_GT(
      latest(store, dashboard_series::kKeyRejectedRate, {{"api_key", "alice"}, {"tier", "api"}}),
      0.0);
  EXPECT_DOUBLE_EQ(latest(store, dashboard_series::kKeyRejectedRate, {{"api_key", "bob"}}), 0.0);
  EXPECT_GT(latest(store, live_series::kKeyAdmittedRate, {{"api_key", "bob"}}), 0.0);
  EXPECT_GT(latest(store, dashboard_series::kTierRejectedRate, {{"tier", "api"}}), 0.0);
  EXPECT_DOUBLE_EQ(latest(store, dashboard_series::kRejectedRatio, {}), 3.0 / 7.0);

  const DashboardSnapshot snap = last_minute(source, "alice");
  ASSERT_EQ(snap.decisions.count("alice"), 1u);
  const auto& recent = snap.decisions.at("alice");
  ASSERT_EQ(recent.size(), 8u) << "backlog and new entries";
  EXPECT_FALSE(recent.front().allowed) << "newest first: the last of alice's requests was refused";
  EXPECT_EQ(recent.front().tier, "api");
  EXPECT_TRUE(recent.back().allowed);
  EXPECT_EQ(recent.front().llm_tokens, -1) << "logged without tokens: unknown, not 0";
  bool alice_row = false;
  for (const auto& k : snap.keys) {
    if (k.api_key != "alice") continue;
    alice_row = true;
    EXPECT_GT(k.rejected_per_s, 0);
    EXPECT_GT(k.requests_per_s, k.rejected_per_s);
  }
  EXPECT_TRUE(alice_row);
}

// The 429s in view add up every refusal read, the key's first refresh of them included (its
// first rate sample stands for the interval before it): what the incident summary says.
TEST(RedisDecisionStreams, TheKeysFirstRefreshOf429sCountsInView) {
  InjectedClockStream s;  // alice: 1 of her 5 tokens taken before the first read
  ASSERT_TRUE(s.source->connected()) << s.source->last_error();
  const int first = decide_logged(s.c, "alice", 7);  // 4 admitted, 3 refused
  s.clock.advance(seconds(1));
  s.source->advance(seconds(1));
  const int second = decide_logged(s.c, "alice", 2);
  s.clock.advance(seconds(1));
  s.source->advance(seconds(1));
  ASSERT_EQ(first, 3);
  ASSERT_EQ(second, 2);
  ASSERT_EQ(s.source->rejections_read(), 5u);
  const DashboardSnapshot snap = last_minute(*s.source);
  bool row = false;
  for (const KeyRow& k : snap.keys) {
    if (k.api_key != "alice") continue;
    row = true;
    ASSERT_TRUE(k.rejected_in_view.has_value());
    EXPECT_DOUBLE_EQ(*k.rejected_in_view, 5) << "the first refresh's 429s were not counted";
    EXPECT_DOUBLE_EQ(k.peak_rejected_per_s.value_or(0), 3);
  }
  EXPECT_TRUE(row);
}

// A key's first rate samples: the zero at the start of its first read interval reaches the
// recording, before the interval's decisions (appended after them, it was kept out: a
// recording's lines are in time order).
TEST(RedisDecisionStreams, AKeysFirstZeroRateIsRecorded) {
  auto server = test::RedisServer::start();
  auto c = connect(*server);
  configure(c);
  decide_logged(c, "alice", 1);  // the stream exists before the first read
  ManualClock clock(Nanos{0}, Nanos{1'800'000'000'000'000'000});
  RedisLiveSource source(options_for(*server),
                         clock);  // stamped with the server's TIME, as decisions are
  source.advance(Nanos{0});
  ASSERT_TRUE(source.connected()) << source.last_error();
  const std::string path = test::temp_path("first-zero-rate.jsonl");
  ASSERT_EQ(source.start_recording(path, clock), Status{});
  const std::int64_t since = source.now_ms();
  ASSERT_EQ(decide_logged(c, "bob", 2), 0);
  clock.advance(seconds(1));
  source.advance(seconds(1));
  ASSERT_EQ(source.decisions_read(), 2u);
  const std::int64_t t = source.now_ms();
  ASSERT_GT(t, since);
  ASSERT_EQ(source.stop_recording(), Status{});

  std::ifstream in(path);
  const RecordingLoad load = read_recording(in, path);
  ASSERT_TRUE(load.error.empty()) << load.error;
  EXPECT_EQ(load.recording.requests.size(), 2u);
  std::optional<std::uint32_t> bob;
  for (std::uint32_t id = 0; id < load.recording.series.size(); ++id) {
    const metrics::Labels& l = load.recording.series[id];
    if (l.metric_name() == live_series::kKeyAdmittedRate && l.get("api_key") == "bob") bob = id;
  }
  ASSERT_TRUE(bob.has_value()) << "bob's admitted rate is recorded";
  std::vector<std::pair<std::int64_t, double>> samples;
  for (const RecordedSamples& line : load.recording.samples) {
    for (const auto& [id, v] : line.values) {
      if (id == *bob) samples.emplace_back(line.t_ms, v);
    }
  }
  const std::vector<std::pair<std::int64_t, double>> expected{
      {since, 0.0}, {t, 2.0 / (static_cast<double>(t - since) / 1000.0)}};
  EXPECT_EQ(samples, expected) << "the zero at the interval's start, then the interval's rate";
}

// Two refreshes within one millisecond of the clock that stamps samples: the second still
// reads (stamped 1 ms after the first) instead of being dropped as "the clock went back".
TEST(RedisDecisionStreams, ARefreshWithinTheSameMillisecondStillReads) {
  InjectedClockStream s;  // the injected clock does not move here
  redis::Connection& c = s.c;
  ManualClock& clock = s.clock;
  RedisLiveSource& source = *s.source;
  ASSERT_TRUE(source.connected()) << source.last_error();
  const std::int64_t first = source.now_ms();

  EXPECT_EQ(decide_logged(c, "alice", 4), 0);
  source.advance(seconds(1));  // the refresh is due; the clock still reads the same instant
  EXPECT_EQ(source.decisions_read(), 4u);
  EXPECT_EQ(source.now_ms(), first + 1);

  clock.step_wall(-seconds(10));  // a clock stepped back for real: skipped
  decide_logged(c, "alice", 1);
  source.advance(seconds(1));
  EXPECT_EQ(source.decisions_read(), 4u);
  EXPECT_EQ(source.now_ms(), first + 1);
}

// The details pane's recent decisions carry the model and tokens the gateway logged, so a
// recording of the session prices them (docs/recording.md).
TEST(RedisDecisionStreams, LoggedModelAndTokensReachTheRecentDecisions) {
  InjectedClockStream s;
  redis::Connection& c = s.c;
  ManualClock& clock = s.clock;
  RedisLiveSource& source = *s.source;
  decide_logged(c, "alice", 1, "gpt-4.1", 1234);
  clock.advance(seconds(1));
  source.advance(seconds(1));
  ASSERT_EQ(source.decisions_read(), 1u);
  const DashboardSnapshot snap = last_minute(source, "alice");
  ASSERT_EQ(snap.decisions.count("alice"), 1u);
  const auto& recent = snap.decisions.at("alice");
  ASSERT_EQ(recent.size(), 2u);
  EXPECT_EQ(recent.front().model, "gpt-4.1");
  EXPECT_EQ(recent.front().llm_tokens, 1234);
  EXPECT_EQ(recent.back().model, "");
  EXPECT_EQ(recent.back().llm_tokens, -1);
}

TEST(RedisDecisionStreams, CountBudgetSpreadsALongStreamAndBadEntriesAreNamed) {
  InjectedClockStream s(4);  // refreshes a second apart on the injected clock
  redis::Connection& c = s.c;
  ManualClock& clock = s.clock;
  RedisLiveSource& source = *s.source;

  decide_logged(c, "alice", 10);
  ASSERT_TRUE(c.command({"XADD", "limitscope:{api}:decisions", "*", "t", "soon", "key", "x",
                         "allowed", "1"})
                  .ok());
  std::vector<std::uint64_t> read;
  for (int i = 0; i < 4; ++i) {
    clock.advance(seconds(1));
    source.advance(seconds(1));
    read.push_back(source.decisions_read());
    if (i == 0) {
      EXPECT_NE(source.last_error().find("behind"), std::string::npos) << source.last_error();
    }
  }
  EXPECT_EQ(read, (std::vector<std::uint64_t>{4, 8, 10, 10}));
  bool named = false;
  for (const auto& e : source.events())
    named = named || e.text.find("field t is not a time") != std::string::npos;
  EXPECT_TRUE(named) << "a malformed entry is named in the event log";
}

TEST(RedisDecisionStreams, AlertRulesOverLiveLevelsFire) {
  auto server = test::RedisServer::start();
  auto c = connect(*server);
  configure(c);
  decide_logged(c, "alice", 5);  // empty bucket
  SessionOptions so;
  so.rules_text = R"(groups:
  - name: live
    interval: 1s
    rules:
      - alert: KeyEmpty
        expr: limitscope_key_level_ratio < 0.1
        labels: {severity: warning}
)";
  auto series = SessionState::create(so);
  ASSERT_TRUE(series.ok()) << series.error();
  ManualClock clock(Nanos{0}, Nanos{1'800'000'000'000'000'000});
  RedisLiveOptions o = options_for(*server);
  o.stamp_with_server_time = false;  // times from the injected clock
  RedisLiveSource source(o, clock, *series);
  source.advance(Nanos{0});
  clock.advance(seconds(1));
  source.advance(seconds(1));
  const DashboardSnapshot snap = source.snapshot(ChartView{});
  bool firing = false;
  for (const auto& a : snap.alerts) {
    firing = firing || (a.rule == "KeyEmpty" && a.state == AlertState::firing &&
                        a.labels.find("api_key=\"alice\"") != std::string::npos);
  }
  EXPECT_TRUE(firing) << "the alert table lists the rule over Redis levels";
}

TEST(RedisDecisionStreams, CompositeWithMetricsRecordsOneSessionThatPlaysBack) {
  auto server = test::RedisServer::start();
  auto c = connect(*server);
  configure(c);
  decide_logged(c, "alice", 1);
  test::CannedHttpServer gateway;
  gateway.respond(
      {200, "text/plain; version=0.0.4", test::gateway_requests_exposition(10), false, 0});

  auto series = SessionState::create();
  ASSERT_TRUE(series.ok());
  ManualClock clock(Nanos{0}, Nanos{1'800'000'000'000'000'000});
  RedisLiveOptions ro = options_for(*server);
  ro.stamp_with_server_time = false;
  MetricsLiveOptions mo;
  mo.url = *http::parse_http_url(gateway.url());
  std::vector<std::unique_ptr<LiveSource>> parts;
  parts.push_back(std::make_unique<RedisLiveSource>(ro, clock, *series));
  parts.push_back(std::make_unique<MetricsLiveSource>(mo, clock, *series));
  CompositeLiveSource source(*series, std::move(parts));
  EXPECT_EQ(source.advance(Nanos{0}), 2);

  const std::string path = test::temp_path("live-session.jsonl");
  ASSERT_EQ(source.start_recording(path, clock), Status{});
  for (int i = 1; i <= 3; ++i) {
    decide_logged(c, "alice", 2);
    gateway.respond({200, "text/plain; version=0.0.4",
                     test::gateway_requests_exposition(10 + 4 * i), false, 0});
    clock.advance(seconds(1));
    EXPECT_EQ(source.advance(seconds(1)), 2);
  }
  const DashboardSnapshot snap = last_minute(source);
  EXPECT_EQ(snap.connection, "connected");
  EXPECT_NE(snap.source.find("redis: "), std::string::npos);
  EXPECT_NE(snap.source.find(" + metrics: "), std::string::npos);
  bool redis_row = false, metrics_row = false;
  for (const auto& k : snap.keys) {
    redis_row = redis_row || k.api_key == "alice";
    metrics_row = metrics_row || (k.tier == "free" && k.rejected_per_s == 4.0);
  }
  EXPECT_TRUE(redis_row && metrics_row) << "one key table from both parts";
  std::set<std::string> tiers;
  for (const auto& ch : snap.charts) {
    if (ch.kind != ChartKind::rejections) continue;
    for (const auto& l : ch.lines) tiers.insert(l.name);
  }
  EXPECT_EQ(tiers, (std::set<std::string>{"api", "free"}))
      << "429s of the stream and of the scrape";
  ASSERT_EQ(source.stop_recording(), Status{});

  auto played = PlaybackSource::open(path);
  ASSERT_TRUE(played.ok()) << played.error();
  EXPECT_TRUE((*played)->load_error().empty()) << (*played)->load_error();
  EXPECT_EQ((*played)->recording().header.source, source.name());
  EXPECT_EQ((*played)->recording().requests.size(), 6u)
      << "the stream's decisions are request lines";
  const DashboardSnapshot back = (*played)->snapshot(snap.view);  // the same window
  EXPECT_EQ(back.keys.size(), snap.keys.size());
}

}  // namespace
}  // namespace limitscope
