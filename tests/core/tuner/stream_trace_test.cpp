// Verifies reading a trace from a rule's decision stream on a real server: decisions the real
// script logged come back in order with their keys and costs (across XRANGE pages), and
// malformed entries are reported by position without stopping the read; progress is reported
// per page and a cancel between pages stops the read and keeps nothing.
#include "core/tuner/stream_trace.h"

#include <gtest/gtest.h>

#include <sstream>

#include "core/limiter/policy.h"
#include "core/redis/redis_limiter.h"
#include "core/redis/rule_config.h"
#include "core/trace/trace_file_load.h"
#include "core/tuner/pricing.h"
#include "core/tuner/replay.h"
#include "support/limit_params_builders.h"
#include "support/redis_server.h"

namespace limitscope::tuner {
namespace {

// A fresh server with one rule configured, and the limiter whose decisions it logs.
struct LoggedRule {
  LoggedRule(const std::string& rule, const LimitParams& params) {
    EXPECT_TRUE(redis::set_config(c, schema, rule, redis::single_limit(params),
                                  redis::ChangeInfo{"test", "", std::nullopt})
                    .ok());
  }
  std::unique_ptr<test::RedisServer> server = test::RedisServer::start();
  redis::Connection c = test::connect(*server);
  const redis::KeySchema schema;
  const redis::RedisLimiter limiter{schema};
};

TEST(StreamTrace, LoggedDecisionsBecomeATraceThatReplaysTheSame) {
  const LimitParams params = test::bucket(Algorithm::token_bucket, 5, 2);
  LoggedRule rule("api", params);
  auto& [server, c, schema, limiter] = rule;
  std::vector<redis::DecideRequest> requests;
  std::vector<bool> live;
  const std::int64_t t0 = 1'700'000'000'000'000;
  for (int i = 0; i < 12000; ++i) {
    redis::DecideOptions o;
    o.now_us = t0 + i * 1000;  // 1,000 requests per second over 3 keys
    o.ttl_pad_ms = 600'000;
    redis::DecideRequest r{"k" + std::to_string(i % 3), {static_cast<double>(1 + i % 2)}, true};
    auto d = limiter.decide(c, "api", r, o);
    ASSERT_TRUE(d.ok()) << d.error().message;
    live.push_back(d->decision.allowed);
  }
  auto load = trace_from_decision_stream(c, schema, "api");
  ASSERT_TRUE(load.ok()) << load.error().message;
  EXPECT_EQ(load->error_count, 0u);
  ASSERT_EQ(load->trace.events.size(), 12000u);  // two XRANGE pages
  EXPECT_EQ(load->trace.events[0].t_ns, t0 * 1000);
  EXPECT_EQ(load->trace.events[1].cost, 2);
  EXPECT_EQ(load->trace.keys.size(), 3u);
  EXPECT_EQ(load->trace.tiers[load->trace.events[0].tier], "api");
  // The trace replayed with the rule's parameters gives the decisions Redis made.
  auto replayed = replay_decisions(load->trace, params);
  ASSERT_TRUE(replayed.ok());
  EXPECT_EQ(*replayed, live);

  // Progress per page; a cancel raised after the first page stops before the second.
  std::vector<double> seen;
  std::atomic<bool> cancel{false};
  auto stopped =
      trace_from_decision_stream(c, schema, "api", 10'000'000, {}, &cancel, [&](double f) {
        seen.push_back(f);
        if (f > 0) cancel = true;
      });
  ASSERT_FALSE(stopped.ok());
  EXPECT_EQ(stopped.error().message, trace::kLoadCancelled);
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0], 0);
  EXPECT_NEAR(seen[1], 10000.0 / 12000.0, 1e-12);
}

// Decisions logged with their model and token count (the gateway's --log-decisions) become a
// trace that prices: the same dollars as the JSONL trace of the same requests.
TEST(StreamTrace, LoggedTokensAndModelsPriceTheTrace) {
  const LimitParams params = test::bucket(Algorithm::token_bucket, 3, 1);
  LoggedRule rule("pro", params);
  auto& [server, c, schema, limiter] = rule;
  const std::int64_t t0 = 1'700'000'000'000'000;
  std::string jsonl;
  for (int i = 0; i < 8; ++i) {
    redis::DecideOptions o;
    o.now_us = t0 + i * 100'000;
    redis::DecideRequest r{i % 2 ? "b" : "a", {1}, true};
    r.model = i % 4 < 2 ? "gpt-4.1" : "deepseek-v3.2";
    if (i != 5) r.llm_tokens = 1000u * static_cast<std::uint32_t>(i + 1);
    ASSERT_TRUE(limiter.decide(c, "pro", r, o).ok());
    jsonl += "{\"t\": " + std::to_string(static_cast<double>(o.now_us.value()) / 1e6) +
             ", \"key\": \"" + r.key + "\", \"model\": \"" + r.model + "\", \"tier\": \"pro\"" +
             (r.llm_tokens ? ", \"tokens\": " + std::to_string(*r.llm_tokens) : std::string()) +
             "}\n";
  }
  auto load = trace_from_decision_stream(c, schema, "pro");
  ASSERT_TRUE(load.ok()) << load.error().message;
  ASSERT_EQ(load->error_count, 0u);
  ASSERT_EQ(load->trace.events.size(), 8u);
  EXPECT_EQ(load->trace.models[load->trace.events[2].model], "deepseek-v3.2");
  EXPECT_EQ(load->trace.tokens_of(2), 3000u);
  EXPECT_FALSE(load->trace.tokens_of(5).has_value());
  std::istringstream in(jsonl);
  const trace::TraceLoad file = trace::parse_trace_jsonl(in);
  ASSERT_EQ(file.error_count, 0u) << (file.errors.empty() ? "" : file.errors[0].message);

  const PricingOptions pricing{&default_policy(), std::nullopt};
  ReplayOptions ro;
  ro.pricing = &pricing;
  auto from_stream = replay(load->trace, params, ro);
  auto from_file = replay(file.trace, params, ro);
  ASSERT_TRUE(from_stream.ok() && from_file.ok());
  EXPECT_GT(from_stream->total.admitted_spend, 0);
  EXPECT_GT(from_stream->total.rejected, 0u) << "capacity 3: some requests are refused";
  EXPECT_DOUBLE_EQ(from_stream->total.admitted_spend, from_file->total.admitted_spend);
  EXPECT_EQ(from_stream->spend.unpriced_requests, from_file->spend.unpriced_requests);
  EXPECT_EQ(from_stream->spend.unpriced_requests, 1u) << "the request logged without tokens";
}

TEST(StreamTrace, MalformedEntriesAreReportedByPosition) {
  auto server = test::RedisServer::start();
  auto c = connect(*server);
  const std::string key = redis::KeySchema().decisions_key("api");
  ASSERT_TRUE(c.command({"XADD", key, "*", "t", "100", "key", "a", "cost", "1"}).ok());
  ASSERT_TRUE(c.command({"XADD", key, "*", "t", "soon", "key", "a", "cost", "1"}).ok());
  ASSERT_TRUE(c.command({"XADD", key, "*", "t", "200", "key", "a", "cost", "-1"}).ok());
  ASSERT_TRUE(c.command({"XADD", key, "*", "t", "50", "key", "a", "cost", "1"}).ok());
  ASSERT_TRUE(c.command({"XADD", key, "*", "t", "300", "key", "b", "cost", "2,900"}).ok());
  ASSERT_TRUE(
      c.command({"XADD", key, "*", "t", "400", "key", "b", "cost", "1", "tokens", "-3"}).ok());
  auto load = trace_from_decision_stream(c, redis::KeySchema(), "api");
  ASSERT_TRUE(load.ok());
  EXPECT_EQ(load->trace.events.size(), 2u);
  EXPECT_EQ(load->trace.events[1].cost, 2);
  ASSERT_EQ(load->errors.size(), 4u);
  EXPECT_EQ(load->errors[0].line, 2u);
  EXPECT_NE(load->errors[0].message.find("field t"), std::string::npos);
  EXPECT_NE(load->errors[1].message.find("field cost"), std::string::npos);
  EXPECT_NE(load->errors[2].message.find("before the previous"), std::string::npos);
  ASSERT_EQ(load->error_count, 4u);
  EXPECT_NE(load->errors[3].message.find("field tokens"), std::string::npos);

  ASSERT_TRUE(c.command({"SET", redis::KeySchema().decisions_key("str"), "x"}).ok());
  auto wrong = trace_from_decision_stream(c, redis::KeySchema(), "str");
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.error().message.find("WRONGTYPE"), std::string::npos);
}

}  // namespace
}  // namespace limitscope::tuner
