// Verifies what opening a saved connection shows: one live source of the connection's kind,
// with its resolved URL, credentials, profiles, SCAN MATCH and interval, and nothing else.
#include "core/connections/connection_live_spec.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>

namespace limitscope::connections {
namespace {

ResolvedConnection resolved(ConnectionKind kind) {
  ResolvedConnection r;
  r.saved.name = "prod";
  r.saved.kind = kind;
  r.saved.url = "http://10.0.0.7:9090";
  r.saved.profiles = "/etc/limitscope/profiles.json";
  r.saved.scan_match = "rl:*";
  r.saved.scrape_interval = Nanos{std::chrono::seconds(15)};
  r.redis_url_text = "redis://ops:p%40ss@10.0.0.5:6380/2";
  r.fetch.bearer_token = "t0ken";
  return r;
}

/// Which sources `spec` opens, e.g. "redis" or "metrics+prometheus".
std::string sources_of(const LiveSpec& spec) {
  std::string out;
  const auto add = [&out](bool on, const char* name) {
    if (on) out += (out.empty() ? "" : "+") + std::string(name);
  };
  add(!spec.redis_url.empty(), "redis");
  add(!spec.metrics_url.empty(), "metrics");
  add(!spec.prometheus_url.empty(), "prometheus");
  return out;
}

TEST(ConnectionLiveSpec, EachKindOpensOneSourceWithItsTargetCredentialsAndSettings) {
  const LiveSpec redis = live_spec_of(resolved(ConnectionKind::redis));
  const LiveSpec metrics = live_spec_of(resolved(ConnectionKind::metrics));
  const LiveSpec prometheus = live_spec_of(resolved(ConnectionKind::prometheus));
  EXPECT_EQ(sources_of(redis), "redis");
  EXPECT_EQ(sources_of(metrics), "metrics");
  EXPECT_EQ(sources_of(prometheus), "prometheus");

  // Redis: the URL with its password, the profiles and the key browser's SCAN MATCH.
  EXPECT_EQ(redis.redis_url, "redis://ops:p%40ss@10.0.0.5:6380/2");
  EXPECT_EQ(redis.profiles_file, "/etc/limitscope/profiles.json");
  EXPECT_EQ(redis.redis_scan_match, "rl:*");
  // HTTP kinds: the URL, the resolved credentials and the connection's interval.
  EXPECT_EQ(metrics.metrics_url, "http://10.0.0.7:9090");
  EXPECT_EQ(metrics.metrics_auth.bearer_token, "t0ken");
  EXPECT_EQ(metrics.metrics_interval, Nanos{std::chrono::seconds(15)});
  EXPECT_EQ(prometheus.prometheus_url, "http://10.0.0.7:9090");
  EXPECT_EQ(prometheus.prometheus_auth.bearer_token, "t0ken");
  EXPECT_EQ(prometheus.prometheus_interval, Nanos{std::chrono::seconds(15)});
}

}  // namespace
}  // namespace limitscope::connections
