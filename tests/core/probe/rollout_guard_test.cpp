// Verifies the rollout guard's two sources on a canned HTTP server: a gateway's /metrics
// evaluated by the core's engine, and a Prometheus server's /api/v1/query answer (a sample or
// a scalar other than 0 trips, an empty vector is quiet, an error document is an error that
// holds the step); and that one controller tick reads the source once even when the tick is
// run again (a cluster retry).
#include "core/probe/rollout_guard.h"

#include <gtest/gtest.h>

#include "support/canned_http_server.h"

namespace limitscope::probe {
namespace {

using test::CannedHttpServer;

CannedHttpServer::Response prom(const std::string& data) {
  CannedHttpServer::Response r;
  r.content_type = "application/json";
  r.body = R"({"status":"success","data":)" + data + "}";
  return r;
}

CannedHttpServer::Response exposition(const std::string& text) {
  CannedHttpServer::Response r;
  r.body = text;
  return r;
}

TEST(RolloutGuard, APrometheusSourceIsAskedThroughTheQueryApi) {
  CannedHttpServer server;
  auto g = RolloutGuard::make("sum(rate(gateway_rate_limit_hits_total[1m])) > 0.5",
                              std::string(kPrometheusSource) + server.url("/prom"));
  ASSERT_TRUE(g) << g.error();
  server.respond(
      prom(R"({"resultType":"vector","result":[{"metric":{},"value":[1700000000,"0.75"]}]})"));
  Expected<GuardReading> r = (*g)->check(0);
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_TRUE(r->tripped);
  ASSERT_TRUE(r->value);
  EXPECT_DOUBLE_EQ(*r->value, 0.75);
  EXPECT_NE(server.last_request().find(
                "GET /prom/api/v1/query?query=sum%28rate%28gateway_rate_limit_hits_total"),
            std::string::npos)
      << server.last_request();

  server.respond(prom(R"({"resultType":"vector","result":[]})"));
  r = (*g)->check(0);
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_FALSE(r->tripped);
  EXPECT_FALSE(r->value);

  server.respond(prom(R"({"resultType":"scalar","result":[1700000000,"0"]})"));
  r = (*g)->check(0);
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_FALSE(r->tripped);
  EXPECT_EQ(r->value, 0.0);

  CannedHttpServer::Response bad;
  bad.status = 400;
  bad.content_type = "application/json";
  bad.body = R"({"status":"error","errorType":"bad_data","error":"parse error"})";
  server.respond(bad);
  r = (*g)->check(0);
  ASSERT_FALSE(r.ok()) << "an error is no reading (it neither trips nor passes)";
  EXPECT_NE(r.error().find("bad_data"), std::string::npos) << r.error();
}

TEST(RolloutGuard, AMetricsSourceIsScrapedAndEvaluatedHere) {
  CannedHttpServer server;
  server.respond(exposition("gateway_rate_limit_hits_total{tier=\"free\"} 3\n"));
  auto g = RolloutGuard::make("sum(gateway_rate_limit_hits_total) > 2", server.url());
  ASSERT_TRUE(g) << g.error();
  const Expected<GuardReading> r = (*g)->check(1'700'000'000'000);
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_TRUE(r->tripped);
  EXPECT_EQ(r->value, 3.0);
  EXPECT_FALSE(RolloutGuard::make("sum(", server.url())) << "a /metrics guard is parsed here";
  EXPECT_FALSE(RolloutGuard::make("up", "prometheus=not a url"));
}

TEST(RolloutGuard, OneTickReadsTheSourceOnceWhenItIsRunAgain) {
  CannedHttpServer server;
  server.respond(exposition("gateway_rate_limit_hits_total 0\n"));
  auto g = RolloutGuard::make("sum(gateway_rate_limit_hits_total) > 0", server.url());
  ASSERT_TRUE(g);
  const std::int64_t now = 1'700'000'000'000;
  std::optional<Expected<redis::GuardCheck>> memo;
  const redis::GuardFn check = guard_once(**g, now, memo);
  const Expected<redis::GuardCheck> first = check();
  const Expected<redis::GuardCheck> retried = check();  // the tick, run again after a MOVED
  EXPECT_EQ(server.requests(), 1);
  ASSERT_TRUE(first.ok()) << first.error();
  ASSERT_TRUE(retried.ok()) << retried.error();
  EXPECT_EQ(first->value, retried->value);
  EXPECT_FALSE(retried->tripped);
  std::optional<Expected<redis::GuardCheck>> next_tick;
  ASSERT_TRUE(guard_once(**g, now + 1000, next_tick)().ok());
  EXPECT_EQ(server.requests(), 2) << "the next tick reads again";
}

}  // namespace
}  // namespace limitscope::probe
