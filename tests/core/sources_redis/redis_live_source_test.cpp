// Verifies RedisLiveSource on a real redis-server: refreshes paced by advance(), levels of our
// own and foreign keys recorded as the dashboard's series and shown in the key table, and a
// server killed and restarted: the event log says so, the history recorded before is kept, and
// recording resumes once the reconnect backoff (on the injected clock) has passed. A saved
// connection's scan_match, through open_live_source, narrows the dashboard's discovery.
#include "core/sources/redis_live_source.h"

#include <gtest/gtest.h>

#include <limits>

#include "core/redis/redis_limiter.h"
#include "core/redis/rule_config.h"
#include "core/sources/live_source_factory.h"
#include "core/sources/simulation_recorder.h"
#include "support/limit_params_builders.h"
#include "support/redis_server.h"

namespace limitscope {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

void seed(const test::RedisServer& server) {
  auto c = connect(server);
  const redis::KeySchema schema;
  auto set = redis::set_config(c, schema, "api",
                               redis::single_limit(test::bucket(Algorithm::token_bucket, 10, 1)),
                               redis::ChangeInfo{"test", "", std::nullopt});
  ASSERT_TRUE(set.ok()) << set.error().message;
  const redis::RedisLimiter limiter(schema);
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(limiter.decide(c, "api", "alice", 1).ok());
  ASSERT_TRUE(c.command({"SET", "rlflx:bob", "30", "PX", "600000"}).ok());
}

RedisLiveOptions options_for(const test::RedisServer& server) {
  RedisLiveOptions o;
  o.url.port = server.port();
  o.connect = {milliseconds(300), milliseconds(300)};
  o.backoff.initial = milliseconds(500);
  o.backoff.jitter = 0;
  auto flex = probe::parse_profiles(
      R"({"profiles": [{"name": "flex", "match": "rlflx:*", "kind": "counter_ttl", "limit": 60}]})");
  o.profiles = *flex;
  for (auto& p : probe::builtin_profiles()) o.profiles.push_back(p);
  return o;
}

const KeyRow* row_of(const DashboardSnapshot& s, const std::string& key) {
  for (const auto& r : s.keys) {
    if (r.api_key == key) return &r;
  }
  return nullptr;
}

TEST(RedisLiveSource, RecordsLevelsAsDashboardSeries) {
  auto server = test::RedisServer::start();
  seed(*server);
  ManualClock clock(Nanos{0}, Nanos{1'800'000'000'000'000'000});
  RedisLiveSource source(options_for(*server), clock);
  EXPECT_EQ(source.advance(milliseconds(10)), 1) << "the first advance refreshes at once";
  EXPECT_EQ(source.advance(milliseconds(500)), 0);
  EXPECT_EQ(source.advance(milliseconds(500)), 1);
  ASSERT_TRUE(source.connected()) << source.snapshot(ChartView{}).last_error;

  ChartView view;
  view.end_ms = source.now_ms();
  view.start_ms = view.end_ms - 60'000;
  const auto snap = source.snapshot(view);
  EXPECT_EQ(snap.connection, "connected");
  EXPECT_NE(snap.source.find("redis: redis://127.0.0.1:"), std::string::npos);
  const KeyRow* alice = row_of(snap, "alice");
  ASSERT_NE(alice, nullptr);
  EXPECT_EQ(alice->tier, "api");
  EXPECT_EQ(alice->algorithm, "token-bucket");  // the rule's algorithm, not the profile's name
  EXPECT_NEAR(alice->level, 0.6, 0.01);         // 6 of 10 tokens (plus a little refill)
  EXPECT_GE(alice->sparkline.size(), 1u);
  const KeyRow* bob = row_of(snap, "rlflx:bob");
  ASSERT_NE(bob, nullptr);
  EXPECT_DOUBLE_EQ(*bob->occupancy, 0.5);
  for (const auto& r : source.readings()) {
    EXPECT_FALSE(r.ttl_ms.has_value()) << "TTLs are read only when asked";
  }

  const auto level = metrics::LabelMatcher::make("__name__", metrics::MatchOp::equal,
                                                 std::string(dashboard_series::kKeyLevel));
  ASSERT_TRUE(level.ok());
  const auto series = source.store().select(std::span(&*level, 1), 0, INT64_MAX);
  ASSERT_EQ(series.size(), 1u);
  EXPECT_EQ(series[0].labels.get("api_key"), "alice");
  // Two refreshes within one server millisecond record one sample (timestamps are strictly
  // increasing); the sparkline follows the recorded samples.
  EXPECT_GE(series[0].samples.size(), 1u);
  EXPECT_EQ(series[0].samples.size(), alice->sparkline.size());
  bool plotted = false;
  for (const auto& chart : snap.charts) {
    for (const auto& line : chart.lines) plotted = plotted || line.api_key == "alice";
  }
  EXPECT_TRUE(plotted) << "alice's level is on a chart";
}

TEST(RedisLiveSource, ReadsTtlsWhenAsked) {
  auto server = test::RedisServer::start();
  seed(*server);
  ManualClock clock(Nanos{0}, Nanos{1'800'000'000'000'000'000});
  RedisLiveOptions o = options_for(*server);
  o.read_ttl = true;
  RedisLiveSource source(o, clock);
  source.advance(seconds(1));
  ASSERT_TRUE(source.connected());
  bool bob = false;
  for (const auto& r : source.readings()) {
    if (r.key == "rlflx:bob") {
      bob = true;
      ASSERT_TRUE(r.ttl_ms.has_value());
      EXPECT_GT(*r.ttl_ms, 0);
      EXPECT_LE(*r.ttl_ms, 600000);
    }
  }
  EXPECT_TRUE(bob);
}

TEST(RedisLiveSource, KeepsHistoryAcrossADisconnectAndReconnects) {
  auto server = test::RedisServer::start();
  seed(*server);
  ManualClock clock(Nanos{0}, Nanos{1'800'000'000'000'000'000});
  RedisLiveSource source(options_for(*server), clock);
  source.advance(seconds(1));
  ASSERT_TRUE(source.connected());
  const std::size_t before = source.store().sample_count();
  ASSERT_GT(before, 0u);

  server->kill();
  source.advance(seconds(1));  // the pooled connection breaks
  EXPECT_FALSE(source.connected());
  source.advance(seconds(1));  // reconnecting fails: a 500 ms backoff starts
  EXPECT_EQ(source.snapshot(ChartView{}).connection, "reconnecting");
  EXPECT_FALSE(source.snapshot(ChartView{}).last_error.empty());
  // Kept, each series ended by one staleness marker (no data from then on; no value added).
  std::size_t values = 0, stale = 0;
  for (const auto& series : source.store().select({}, std::numeric_limits<std::int64_t>::min(),
                                                  std::numeric_limits<std::int64_t>::max())) {
    for (const auto& smp : series.samples) ++(metrics::is_stale_marker(smp.value) ? stale : values);
  }
  EXPECT_EQ(values, before) << "history is kept";
  EXPECT_EQ(values + stale, source.store().sample_count());
  EXPECT_GT(stale, 0u);
  EXPECT_FALSE(source.snapshot(ChartView{}).sources.front().outages.empty());

  server->restart();
  seed(*server);
  // The injected clock has not moved since the failed reconnect: this refresh is answered
  // from the backoff gate, without a connection attempt.
  source.advance(seconds(1));
  EXPECT_FALSE(source.connected());
  clock.advance(milliseconds(500));
  source.advance(seconds(1));
  EXPECT_TRUE(source.connected()) << source.snapshot(ChartView{}).last_error;
  EXPECT_GT(source.store().sample_count(), before);

  std::vector<std::string> texts;
  for (const auto& e : source.events()) texts.push_back(e.text);
  ASSERT_GE(texts.size(), 3u);
  EXPECT_NE(texts[0].find("connected to"), std::string::npos);
  EXPECT_NE(texts[1].find("refresh failed"), std::string::npos) << texts[1];
  EXPECT_EQ(texts.size(), 3u) << "a second failure while disconnected is not logged again";
  EXPECT_NE(texts.back().find("connected to"), std::string::npos);
}

TEST(RedisLiveSource, ScanMatchLeavesOtherKeysUnlisted) {
  auto server = test::RedisServer::start();
  {
    auto c = connect(*server);
    const redis::KeySchema schema;
    const redis::RedisLimiter limiter(schema);
    for (const char* rule : {"api", "batch"}) {
      auto set = redis::set_config(
          c, schema, rule, redis::single_limit(test::bucket(Algorithm::token_bucket, 10, 1)),
          redis::ChangeInfo{"test", "", std::nullopt});
      ASSERT_TRUE(set.ok()) << set.error().message;
    }
    ASSERT_TRUE(limiter.decide(c, "api", "alice", 1).ok());
    ASSERT_TRUE(limiter.decide(c, "batch", "carol", 1).ok());
  }
  const auto listed = [&](const std::string& match) {
    ManualClock clock(Nanos{0}, Nanos{1'800'000'000'000'000'000});
    LiveSpec spec;
    spec.redis_url = "redis://127.0.0.1:" + std::to_string(server->port()) + "/0";
    spec.redis_scan_match = match;
    auto source = open_live_source(spec, clock);
    EXPECT_TRUE(source) << source.error();
    std::set<std::string> keys;
    if (!source) return keys;
    (*source)->advance(Nanos{0});
    EXPECT_EQ((*source)->connection(), "connected") << (*source)->last_error();
    for (const KeyRow& r : (*source)->snapshot(ChartView{}).keys) keys.insert(r.api_key);
    return keys;
  };
  EXPECT_EQ(listed(""), (std::set<std::string>{"alice", "carol"}))
      << "no pattern: every limiter key";
  const std::string api_only = redis::KeySchema().prefix() + "{api}*";
  EXPECT_EQ(listed(api_only), std::set<std::string>{"alice"}) << "carol is outside " << api_only;
}

}  // namespace
}  // namespace limitscope
