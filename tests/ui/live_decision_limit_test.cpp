// Verifies, with a real redis-server and a real limitscope-gateway logging every decision
// (--log-decisions 1) under a policy of two limits (requests and llm_tokens), that a 429 the
// token limit refused reaches the details pane's recent decisions saying so: the decision
// table model shows "llm_tokens", that limit's cost and level, and the Retry-After the gateway
// sent with it.
#include <gtest/gtest.h>
#include <httplib.h>

#include <QAbstractItemModelTester>
#include <nlohmann/json.hpp>

#include "core/common/sha256.h"
#include "core/sources/redis_live_source.h"
#include "support/canned_http_server.h"
#include "support/child_process.h"
#include "support/process.h"
#include "support/qt_app.h"
#include "support/redis_server.h"
#include "ui/models/decision_table_model.h"

namespace limitscope::ui {
namespace {

// requests: 10 at 1/s; llm_tokens: 5,000 at 5,000/min.
const char* const kPolicy = R"({
  "tiers": { "t": { "requests": { "algorithm": "token-bucket", "capacity": 10, "refill": "1/s" },
                    "llm_tokens": { "algorithm": "token-bucket", "capacity": 5000, "refill": "5000/min" } } },
  "models": { "m": { "cost": 1 } },
  "keys": { "sk-tokens-key": "t" }
})";

httplib::Result post(const test::GatewayProcess& gw, int max_tokens) {
  httplib::Client c(gw.url());
  c.set_read_timeout(10);
  const std::string body = nlohmann::json{{"model", "m"},
                                          {"max_tokens", max_tokens},
                                          {"messages", {{{"role", "user"}, {"content", "hi"}}}}}
                               .dump();
  return c.Post("/v1/chat/completions", {{"Authorization", "Bearer sk-tokens-key"}}, body,
                "application/json");
}

TEST(LiveDecisionLimit, ATokenRefusalReadsLlmTokensInTheDecisionTable) {
  test::ensure_qt_app();
  auto redis = test::RedisServer::start();
  ASSERT_NE(redis, nullptr);
  test::CannedHttpServer upstream;
  // Each answered call bills 4,000 tokens: after one, about 1,000 are left.
  upstream.respond({200, "application/json",
                    R"({"id":"x","object":"chat.completion","choices":[],)"
                    R"("usage":{"prompt_tokens":1,"completion_tokens":3999,"total_tokens":4000}})",
                    false, 0});
  const std::string policy = test::write_temp("live_decision_limit_policy.json", kPolicy);
  test::GatewayProcess gw({"--policy", policy, "--upstream", upstream.url(""), "--redis",
                           redis->url(), "--log-decisions", "1"});
  ASSERT_TRUE(gw.running());
  auto first = post(gw, 10);
  ASSERT_TRUE(first);
  ASSERT_EQ(first->status, 200) << first->body;
  auto refused = post(gw, 3000);  // about 3,000 tokens asked, about 1,000 left
  ASSERT_TRUE(refused);
  ASSERT_EQ(refused->status, 429) << refused->body;
  const std::string retry_after = refused->get_header_value("Retry-After");
  ASSERT_FALSE(retry_after.empty());

  // The dashboard's Redis source reads the rule's decision stream (its backlog at the first
  // refresh) for the key the gateway limits: "<32 hex of the key's SHA-256>:<model>".
  RedisLiveOptions o;
  o.url = *redis::parse_redis_url(redis->url());
  for (auto& p : probe::builtin_profiles()) o.profiles.push_back(std::move(p));
  RedisLiveSource source(o, SteadyClock::instance());
  ASSERT_EQ(source.advance(Nanos{0}), 1);
  ASSERT_TRUE(source.connected()) << source.last_error();
  const std::string key = sha256_hex("sk-tokens-key").substr(0, 32);
  ChartView view;
  view.end_ms = source.now_ms();
  view.start_ms = view.end_ms - 60'000;
  view.selected_keys = {key};
  const DashboardSnapshot snap = source.snapshot(view);
  ASSERT_EQ(snap.decisions.count(key), 1u);
  const std::vector<DecisionRow>& rows = snap.decisions.at(key);
  ASSERT_GE(rows.size(), 2u) << "the admitted call and the 429";

  DecisionTableModel model;
  QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
  model.setDecisions(rows);
  const auto text = [&](int r, int c) { return model.data(model.index(r, c)).toString(); };
  ASSERT_TRUE(text(0, DecisionTableModel::Result).startsWith(QStringLiteral("429")))
      << "newest first";
  EXPECT_EQ(text(0, DecisionTableModel::Limit), QStringLiteral("llm_tokens"));
  EXPECT_EQ(text(0, DecisionTableModel::Model), QStringLiteral("m"));
  // The token limit's cost (the estimate, far above what is left) and level, not the
  // requests limit's 1 and 9.
  const DecisionRow& d = rows.front();
  EXPECT_GT(d.cost, 1000) << "the llm_tokens cost";
  EXPECT_GT(d.remaining, 10) << "the llm_tokens level";
  EXPECT_LT(d.remaining, d.cost);
  EXPECT_EQ(text(0, DecisionTableModel::RetryAfterSent), QString::fromStdString(retry_after + " s"))
      << "the Retry-After the gateway sent";
  EXPECT_EQ(text(1, DecisionTableModel::Result), QStringLiteral("allowed"));
}

}  // namespace
}  // namespace limitscope::ui
