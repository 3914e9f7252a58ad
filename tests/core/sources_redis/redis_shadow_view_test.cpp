// Verifies what the dashboard shows of a rule's shadow config (issue 19 item 2) on a real
// redis-server with real decide.lua decisions: the live source's 429 chart gets a "would
// refuse" line per rule beside the rule's 429s, from the same decision stream entries (their
// `shadow` field), and each key row says how many of its requests the live config admitted and
// the shadow would refuse; clearing the shadow ends both.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>

#include "core/redis/rule_config.h"
#include "core/redis/shadow_config.h"
#include "core/sources/redis_live_source.h"
#include "core/sources/simulation_recorder.h"
#include "support/limit_params_builders.h"
#include "support/logged_decisions.h"
#include "support/redis_server.h"
#include "support/series_lookup.h"

namespace limitscope {
namespace {

using std::chrono::hours;
using std::chrono::milliseconds;
using std::chrono::seconds;

const redis::ChangeInfo kChange{"test", "shadow view", std::nullopt};

// One token bucket of `capacity` refilled one token per hour (the test's real time refills
// nothing).
redis::RuleConfig hourly_bucket(double capacity) {
  return redis::single_limit(test::bucket(Algorithm::token_bucket, capacity, 1, hours(1)));
}

// Logged decisions of `key` on rule "api". @return how many the live config refused
int decide(redis::Connection& c, const std::string& key, int n) {
  return test::decide_logged(c, "api", key, n);
}

// A live source on `server` whose samples carry the injected clock's time (rates are counts
// over its steps), after its first read.
std::unique_ptr<RedisLiveSource> open_source(const test::RedisServer& server, Clock& clock) {
  RedisLiveOptions o;
  o.url.port = server.port();
  o.connect = {milliseconds(300), milliseconds(300)};
  o.profiles = probe::builtin_profiles();
  o.stamp_with_server_time = false;
  auto source = std::make_unique<RedisLiveSource>(o, clock);
  source->advance(Nanos{0});
  return source;
}

DashboardSnapshot last_minute(const RedisLiveSource& source) {
  ChartView view;
  view.end_ms = source.now_ms();
  view.start_ms = view.end_ms - 60'000;
  return source.snapshot(view);
}

const KeyRow* row_of(const DashboardSnapshot& s, const std::string& key) {
  const auto it =
      std::find_if(s.keys.begin(), s.keys.end(), [&](const KeyRow& r) { return r.api_key == key; });
  return it == s.keys.end() ? nullptr : &*it;
}

const ChartData& rejections(const DashboardSnapshot& s) {
  return *std::find_if(s.charts.begin(), s.charts.end(),
                       [](const ChartData& c) { return c.kind == ChartKind::rejections; });
}

const ChartLine* line_named(const ChartData& c, const std::string& name) {
  const auto it = std::find_if(c.lines.begin(), c.lines.end(),
                               [&](const ChartLine& l) { return l.name == name; });
  return it == c.lines.end() ? nullptr : &*it;
}

TEST(RedisShadowView, WouldRefuseLineBesideTheRulesAndTheTenantsItWouldStartRefusing) {
  auto server = test::RedisServer::start();
  auto c = connect(*server);
  // Live: 5 tokens per key, shadow: 2 (both refilled one per hour, so the test's real time
  // refills nothing).
  ASSERT_TRUE(redis::set_config(c, redis::KeySchema{}, "api", hourly_bucket(5), kChange).ok());
  ASSERT_TRUE(redis::set_shadow(c, redis::KeySchema{}, "api", hourly_bucket(2), kChange).ok());
  ASSERT_EQ(decide(c, "carol", 1), 0);  // the stream exists before the source's first read

  ManualClock clock(Nanos{0}, Nanos{1'800'000'000'000'000'000});
  auto opened = open_source(*server, clock);
  RedisLiveSource& source = *opened;
  ASSERT_TRUE(source.connected()) << source.last_error();

  // alice: the live config admits all 4, the shadow admits 2 and refuses 2; bob: both admit
  // his one; dave: 7 requests, the live config refuses 2, the shadow 5 (3 of them admitted).
  ASSERT_EQ(decide(c, "alice", 4), 0);
  ASSERT_EQ(decide(c, "bob", 1), 0);
  ASSERT_EQ(decide(c, "dave", 7), 2);
  clock.advance(seconds(2));
  source.advance(seconds(2));

  DashboardSnapshot s = last_minute(source);
  const ChartData& chart = rejections(s);
  const ChartLine* live = line_named(chart, "api");
  const ChartLine* shadow = line_named(chart, "api: would refuse (shadow)");
  ASSERT_NE(live, nullptr);
  ASSERT_NE(shadow, nullptr);
  ASSERT_FALSE(live->shadow_of.has_value());
  EXPECT_EQ(shadow->shadow_of, "api") << "drawn beside the rule's line, in its colour";
  ASSERT_FALSE(shadow->points.empty());
  EXPECT_DOUBLE_EQ(shadow->points.back().y, (2 + 5) / 2.0) << "the shadow refused 7 in 2 s";
  EXPECT_DOUBLE_EQ(live->points.back().y, 2 / 2.0);

  const KeyRow* alice = row_of(s, "alice");
  const KeyRow* bob = row_of(s, "bob");
  const KeyRow* dave = row_of(s, "dave");
  ASSERT_TRUE(alice && bob && dave);
  EXPECT_EQ(alice->shadow_would_refuse_in_view, 2.0);
  EXPECT_EQ(bob->shadow_would_refuse_in_view, 0.0) << "evaluated, and it agrees";
  EXPECT_EQ(dave->shadow_would_refuse_in_view, 3.0) << "only what the live config admitted";

  // Cleared: the next decisions carry no shadow, and no new shadow sample is recorded.
  ASSERT_TRUE(redis::clear_shadow(c, redis::KeySchema{}, "api", kChange).ok());
  ASSERT_EQ(decide(c, "bob", 1), 0);
  clock.advance(seconds(2));
  source.advance(seconds(2));
  s = last_minute(source);
  shadow = line_named(rejections(s), "api: would refuse (shadow)");
  ASSERT_NE(shadow, nullptr) << "its history stays in view";
  EXPECT_LT(shadow->points.back().x, static_cast<double>(source.now_ms())) << "but it ends";
  const auto bob_series = test::samples_of(
      source.store(), dashboard_series::kKeyShadowWouldRefuseRate, {{"api_key", "bob"}});
  ASSERT_FALSE(bob_series.empty());
  EXPECT_LT(bob_series.back().t_ms, source.now_ms());
}

TEST(RedisShadowView, NoShadowNoLineAndNoMarker) {
  auto server = test::RedisServer::start();
  auto c = connect(*server);
  ASSERT_TRUE(redis::set_config(c, redis::KeySchema{}, "api", hourly_bucket(1), kChange).ok());
  ASSERT_EQ(decide(c, "carol", 1), 0);
  ManualClock clock(Nanos{0}, Nanos{1'800'000'000'000'000'000});
  auto source = open_source(*server, clock);
  ASSERT_EQ(decide(c, "alice", 3), 2);
  clock.advance(seconds(1));
  source->advance(seconds(1));
  const DashboardSnapshot s = last_minute(*source);
  for (const ChartLine& l : rejections(s).lines) EXPECT_FALSE(l.shadow_of.has_value()) << l.name;
  ASSERT_NE(row_of(s, "alice"), nullptr);
  EXPECT_FALSE(row_of(s, "alice")->shadow_would_refuse_in_view.has_value());
}

}  // namespace
}  // namespace limitscope
