// Verifies the Prometheus API response parsing on documented response shapes (vector, matrix,
// scalar, string, alerts) and on bad documents (not JSON, error documents, missing fields,
// values that are not numbers), and an error document served over HTTP with status 400.
#include "core/probe/prometheus_client.h"

#include <gtest/gtest.h>

#include <cmath>

#include "support/canned_http_server.h"
#include "support/refusals.h"

namespace limitscope::probe {
namespace {

TEST(PrometheusClient, ParsesEveryResultType) {
  auto v = parse_query_response(R"({"status":"success","data":{"resultType":"vector","result":[
      {"metric":{"__name__":"up","job":"gw"},"value":[1700000000.5,"1"]},
      {"metric":{"job":"x"},"value":[1700000000.5,"NaN"]}]}})",
                                "q");
  ASSERT_TRUE(v.ok()) << v.error();
  ASSERT_EQ(v->series.size(), 2u);
  EXPECT_EQ(v->series[0].labels.get("job"), "gw");
  EXPECT_EQ(v->series[0].samples[0].t_ms, 1700000000500);
  EXPECT_EQ(v->series[0].samples[0].value, 1);
  EXPECT_TRUE(std::isnan(v->series[1].samples[0].value));

  auto m = parse_query_response(
      R"({"status":"success","warnings":["w1"],"data":{"resultType":"matrix","result":[
      {"metric":{},"values":[[1,"1"],[2,"+Inf"]]}]}})",
      "q");
  ASSERT_TRUE(m.ok()) << m.error();
  EXPECT_EQ(m->series[0].samples.size(), 2u);
  EXPECT_TRUE(std::isinf(m->series[0].samples[1].value));
  EXPECT_EQ(m->warnings, std::vector<std::string>{"w1"});

  auto s = parse_query_response(
      R"({"status":"success","data":{"resultType":"scalar","result":[3,"0.25"]}})", "q");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->series[0].samples[0].value, 0.25);
  auto str = parse_query_response(
      R"({"status":"success","data":{"resultType":"string","result":[3,"hi"]}})", "q");
  ASSERT_TRUE(str.ok());
  EXPECT_EQ(str->string_value, "hi");

  auto alerts = parse_alerts_response(R"({"status":"success","data":{"alerts":[
      {"labels":{"alertname":"HighRateLimitRejection","tier":"free"},"annotations":{"summary":"s"},
       "state":"firing","activeAt":"2026-11-29T17:00:00Z","value":"1.5e+00"}]}})",
                                      "alerts");
  ASSERT_TRUE(alerts.ok()) << alerts.error();
  ASSERT_EQ(alerts->size(), 1u);
  EXPECT_EQ((*alerts)[0].state, "firing");
  EXPECT_EQ((*alerts)[0].labels.get("alertname"), "HighRateLimitRejection");
  EXPECT_EQ((*alerts)[0].value, 1.5);
}

TEST(PrometheusClient, BadDocumentsNameTheReason) {
  const std::vector<test::Refusal> rows = {
      {"<html>502 Bad Gateway</html>", "q: not JSON"},
      {R"({"status":"error","errorType":"bad_data","error":"parse error at char 4"})",
       "q: Prometheus error bad_data: parse error at char 4"},
      {R"({"status":"weird"})", "status is neither"},
      {R"({"status":"success"})", "(document).data: missing"},
      {R"({"status":"success","data":{"result":[]}})", "data.resultType: missing"},
      {R"({"status":"success","data":{"resultType":"vector","result":[{"value":[1,"1"]}]}})",
       "data.result[0].metric: missing"},
      {R"({"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[1,"abc"]}]}})",
       "value 'abc' is not a number"},
      {R"({"status":"success","data":{"resultType":"vector","result":[{"metric":{"a":1},"value":[1,"1"]}]}})",
       "label values are strings"},
      {R"({"status":"success","data":{"resultType":"histogram","result":[]}})",
       "unknown result type"},
  };
  test::expect_refusals(rows,
                        [](const std::string& body) { return parse_query_response(body, "q"); });
}

TEST(PrometheusClient, ErrorDocumentOverHttpAndEncodedQueries) {
  test::CannedHttpServer server;
  server.respond({400, "application/json",
                  R"({"status":"error","errorType":"bad_data","error":"unknown function"})", false,
                  0});
  auto base = http::parse_http_url("http://127.0.0.1:" + std::to_string(server.port()));
  ASSERT_TRUE(base.ok());
  PrometheusClient client(*base, http::FetchOptions{});
  auto r = client.query("rate(x[5m]) > 0.5");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("Prometheus error bad_data: unknown function"), std::string::npos)
      << r.error();
  EXPECT_NE(server.last_request().find("GET /api/v1/query?query=rate%28x%5B5m%5D%29%20%3E%200.5"),
            std::string::npos)
      << server.last_request();

  server.respond({503, "text/plain", "overloaded", false, 0});
  auto down = client.alerts();
  ASSERT_FALSE(down.ok());
  EXPECT_NE(down.error().find("HTTP 503"), std::string::npos) << down.error();
}

}  // namespace
}  // namespace limitscope::probe
