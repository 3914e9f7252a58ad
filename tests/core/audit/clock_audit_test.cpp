// Verifies the clock audit: the offset of a reading is taken at the round trip's midpoint with
// half the round trip as uncertainty (plus half a second for the whole-second Date header); a
// gateway is flagged against Redis TIME beyond the threshold, and the readings come from a
// real HTTP answer's time gauge and Date header, read on an injected workstation clock. With a
// cluster's masters, the median one is the reference: a master off by more than the threshold
// is flagged (one that could not be read is an error), and the gateways are judged against the
// reference, not against a skewed master.

#include "core/audit/clock_audit.h"

#include <gtest/gtest.h>

#include "core/common/http_date.h"
#include "support/canned_http_server.h"

namespace limitscope::test {
namespace {

using audit::ClockSample;
using audit::GatewayClockReading;

constexpr double kT = 1'796'120'229.0;  // 2026-12-01 10:17:09 UTC

TEST(ClockAudit, OffsetIsTakenAtTheMidpointOfTheRoundTrip) {
  const auto o = audit::offset_of(ClockSample{kT, kT + 0.2, kT + 3.1, 0});
  EXPECT_NEAR(o.offset_s, 3.0, 1e-6);
  EXPECT_NEAR(o.uncertainty_s, 0.1, 1e-6);
  // A Date header says 10:17:12 for anything in [12, 13): centred, half a second more doubt.
  const auto d = audit::offset_of(ClockSample{kT, kT + 0.2, kT + 3, 1});
  EXPECT_NEAR(d.offset_s, 3.4, 1e-6);
  EXPECT_NEAR(d.uncertainty_s, 0.6, 1e-6);
}

TEST(ClockAudit, GatewaysAreJudgedAgainstRedisTime) {
  const ClockSample redis{kT, kT + 0.002, kT + 0.001 + 2.0, 0};  // Redis 2 s ahead of us
  std::vector<GatewayClockReading> gws(3);
  gws[0].gateway = "agrees-with-redis";
  gws[0].gauge = ClockSample{kT, kT + 0.002, kT + 0.001 + 2.0, 0};
  gws[1].gateway = "three-seconds-behind-redis";
  gws[1].gauge = ClockSample{kT, kT + 0.002, kT + 0.001 - 1.0, 0};
  gws[2].gateway = "unreadable";
  gws[2].error = "unreadable: HTTP 500";
  const auto a = audit::audit_clocks(gws, redis, 1.0);
  ASSERT_EQ(a.gateways.size(), 3u);
  EXPECT_NEAR(a.redis_vs_workstation->offset_s, 2.0, 1e-6);
  EXPECT_FALSE(a.gateways[0].skewed);  // 2 s off the workstation, but the same as Redis
  EXPECT_NEAR(*a.gateways[0].vs_redis_s, 0, 1e-6);
  EXPECT_TRUE(a.gateways[1].skewed);
  EXPECT_NEAR(*a.gateways[1].vs_redis_s, -3.0, 1e-6);
  EXPECT_EQ(a.gateways[1].source, "gauge");
  EXPECT_EQ(a.skewed, 1u);
  EXPECT_EQ(a.errors, 1u);
}

TEST(ClockAudit, WithoutRedisTheWorkstationJudgesAndDateDoubtIsAllowedFor) {
  std::vector<GatewayClockReading> gws(2);
  gws[0].gateway = "date-only-1s-off";  // within 1 s threshold + 0.5 s doubt of the header
  gws[0].date = ClockSample{kT, kT, kT + 1, 1};
  gws[1].gateway = "date-only-10s-off";
  gws[1].date = ClockSample{kT, kT, kT + 10, 1};
  const auto a = audit::audit_clocks(gws, std::nullopt, 1.0);
  EXPECT_FALSE(a.gateways[0].skewed);
  EXPECT_TRUE(a.gateways[1].skewed);
  EXPECT_EQ(a.gateways[1].source, "date");
  EXPECT_FALSE(a.gateways[1].vs_redis_s.has_value());
}

TEST(ClockAudit, ClusterMastersAreJudgedAgainstTheirMedian) {
  std::vector<audit::RedisClockReading> nodes = {
      {"m1", ClockSample{kT, kT + 0.002, kT + 0.001 + 0.1, 0}, {}},
      {"m2", ClockSample{kT, kT + 0.002, kT + 0.001 + 5.0, 0}, {}},  // 5 s ahead of the rest
      {"m3", ClockSample{kT, kT + 0.002, kT + 0.001 + 0.2, 0}, {}},
      {"m4", std::nullopt, "m4: connection refused"},
  };
  std::vector<GatewayClockReading> gws(1);
  gws[0].gateway = "on-time";
  gws[0].gauge = ClockSample{kT, kT + 0.002, kT + 0.001 + 0.15, 0};
  const auto a = audit::audit_clocks(gws, nodes, 1.0);
  EXPECT_EQ(a.redis_reference, "m3");  // offsets 0.1, 0.2, 5.0: the median is 0.2
  ASSERT_EQ(a.redis_nodes.size(), 4u);
  EXPECT_FALSE(a.redis_nodes[0].skewed);
  EXPECT_NEAR(*a.redis_nodes[0].vs_reference_s, -0.1, 1e-6);
  EXPECT_TRUE(a.redis_nodes[1].skewed);
  EXPECT_NEAR(*a.redis_nodes[1].vs_reference_s, 4.8, 1e-6);
  EXPECT_FALSE(a.redis_nodes[2].skewed);
  EXPECT_FALSE(a.redis_nodes[3].vs_workstation.has_value());
  EXPECT_EQ(a.redis_nodes[3].error, "m4: connection refused");
  EXPECT_FALSE(a.gateways[0].skewed);
  EXPECT_NEAR(*a.gateways[0].vs_redis_s, -0.05, 1e-6);
  EXPECT_EQ(a.skewed, 1u);
  EXPECT_EQ(a.errors, 1u);
}

TEST(ClockAudit, ReadsTheTimeGaugeAndDateHeaderOfAnHttpAnswer) {
  // The workstation is at kT; the "gateway" answers 5 s ahead, in both clocks.
  ManualClock workstation(Nanos{0}, Nanos{static_cast<std::int64_t>(kT) * 1'000'000'000});
  CannedHttpServer server;
  CannedHttpServer::Response r;
  r.body = "limitscope_gateway_time_seconds " + std::to_string(kT + 5.25) + "\n";
  const std::string date_line =
      "Date: " + format_http_date(Nanos{static_cast<std::int64_t>(kT + 5) * 1'000'000'000}) +
      "\r\n";
  server.add_headers(date_line);
  server.respond(r);
  auto url = http::parse_http_url(server.url());
  ASSERT_TRUE(url.ok());
  const auto reading = audit::read_gateway_clock(*url, {}, workstation);
  EXPECT_TRUE(reading.error.empty()) << reading.error;
  ASSERT_TRUE(reading.gauge.has_value());
  ASSERT_TRUE(reading.date.has_value());
  EXPECT_NEAR(audit::offset_of(*reading.gauge).offset_s, 5.25, 1e-3);
  EXPECT_NEAR(audit::offset_of(*reading.date).offset_s, 5.5, 1e-6);
  const auto a = audit::audit_clocks({reading}, std::nullopt, 1.0);
  EXPECT_TRUE(a.gateways[0].skewed);

  // Neither clock: an error naming the URL, not a crash.
  CannedHttpServer::Response bare;
  bare.body = "x 1\n";
  server.add_headers("");
  server.respond(bare);
  const auto none = audit::read_gateway_clock(*url, {}, workstation);
  EXPECT_NE(none.error.find(server.url()), std::string::npos) << none.error;
  EXPECT_NE(none.error.find("cannot be read"), std::string::npos) << none.error;
}

}  // namespace
}  // namespace limitscope::test
