// Verifies, on the real limitscope-gateway and a real redis-server, that a 429 names and
// describes the limit that refused it: the LLM-token limit with its own headers even when the
// requests limit has fewer units left, the requests limit when it refuses; and that the
// decision stream records the refusing limit, the level, the costs and the retry the gateway's
// Retry-After is rounded from.

#include <gtest/gtest.h>
#include <httplib.h>

#include <cmath>
#include <map>
#include <nlohmann/json.hpp>

#include "core/redis/connection.h"
#include "core/redis/key_schema.h"
#include "core/redis/redis_url.h"
#include "e2e/e2e_policy.h"
#include "support/canned_http_server.h"
#include "support/child_process.h"
#include "support/gateway_chat.h"
#include "support/process.h"
#include "support/redis_server.h"

namespace limitscope::test {
namespace {

using nlohmann::json;

// requests: 10 at 1/s; llm_tokens: 5,000 at 5,000/min.
const std::string kPolicy =
    e2e_one_tier_policy("t", {10, "1/s"}, {5000, "5000/min"}, {"tokens-key", "requests-key"});

std::string usage_body(int total) {
  return R"({"id":"x","object":"chat.completion","choices":[],"usage":{"prompt_tokens":1,)"
         R"("completion_tokens":)" +
         std::to_string(total - 1) + R"(,"total_tokens":)" + std::to_string(total) + "}}";
}

httplib::Result post(const GatewayProcess& gw, const std::string& key, int max_tokens) {
  return post_chat(gw, key, e2e_chat_body("m", max_tokens));
}

// The newest entry of rule gw-t's decision stream, as field -> value.
std::map<std::string, std::string> last_logged(const RedisServer& server) {
  auto c = redis::Connection::open(server.redis_url(), {});
  EXPECT_TRUE(c.ok());
  if (!c) return {};
  auto r =
      c->command({"XREVRANGE", redis::KeySchema().decisions_key("gw-t"), "+", "-", "COUNT", "1"});
  EXPECT_TRUE(r.ok() && r->is_array() && r->elements.size() == 1);
  if (!r || !r->is_array() || r->elements.size() != 1) return {};
  std::map<std::string, std::string> out;
  const auto& f = r->elements[0].elements[1].elements;
  for (std::size_t i = 0; i + 1 < f.size(); i += 2) out[f[i].str] = f[i + 1].str;
  return out;
}

// Retry-After as the gateway rounds a retry of `retry_us` µs: whole seconds up, at least 1.
std::string retry_after_of(const std::string& retry_us) {
  const long long us = std::stoll(retry_us);
  return std::to_string(std::max(1LL, (us + 999'999) / 1'000'000));
}

class GatewayRedisRefusingLimit : public ::testing::Test {
 protected:
  void SetUp() override {
    server_ = RedisServer::start();
    ASSERT_NE(server_, nullptr);
    upstream_ = std::make_unique<CannedHttpServer>();
    const std::string policy = write_temp("e2e_refusing_limit_policy.json", kPolicy);
    gw_ = std::make_unique<GatewayProcess>(
        std::vector<std::string>{"--policy", policy, "--upstream", upstream_->url(""), "--redis",
                                 server_->url(), "--log-decisions", "1"});
    ASSERT_TRUE(gw_->running());
  }

  std::unique_ptr<RedisServer> server_;
  std::unique_ptr<CannedHttpServer> upstream_;
  std::unique_ptr<GatewayProcess> gw_;
};

TEST_F(GatewayRedisRefusingLimit, ATokenRefusalNamesTheTokenLimitWithItsHeaders) {
  // The first call bills 4,000 tokens: about 1,000 are left (plus what refills), while the
  // requests limit has 9 of 10, fewer units. The next call asks for about 3,000 tokens.
  upstream_->respond({200, "application/json", usage_body(4000)});
  auto first = post(*gw_, "tokens-key", 10);
  ASSERT_TRUE(first);
  ASSERT_EQ(first->status, 200) << first->body;
  auto r = post(*gw_, "tokens-key", 3000);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 429) << r->body;

  const json err = json::parse(r->body).at("error");
  EXPECT_EQ(err.at("limit"), "llm_tokens") << r->body;
  EXPECT_NE(err.at("message").get<std::string>().find("LLM tokens per minute"), std::string::npos);
  EXPECT_EQ(r->get_header_value("x-ratelimit-limit-tokens"), "5000");
  const double remaining = std::stod(r->get_header_value("x-ratelimit-remaining-tokens"));
  EXPECT_LT(remaining, 3000) << "the token limit's level: too little for the estimate";
  EXPECT_GT(remaining, 10) << "not the requests limit's level";
  EXPECT_EQ(r->get_header_value("RateLimit-Policy"), "\"llm-tokens\";q=5000;w=60");
  EXPECT_EQ(r->get_header_value("RateLimit").rfind("\"llm-tokens\";r=", 0), 0u)
      << r->get_header_value("RateLimit");
  // The requests limit's state is unknown on this path: none of its headers is sent.
  EXPECT_FALSE(r->has_header("X-RateLimit-Limit"));
  EXPECT_FALSE(r->has_header("x-ratelimit-limit-requests"));

  // The decision stream: the refusing limit, its level, both costs, and the retry the
  // Retry-After header was rounded from.
  const auto logged = last_logged(*server_);
  EXPECT_EQ(logged.at("allowed"), "0");
  EXPECT_EQ(logged.at("limit"), "llm_tokens");
  EXPECT_EQ(std::floor(std::stod(logged.at("level"))), remaining);
  EXPECT_EQ(logged.at("cost").rfind("1,", 0), 0u) << logged.at("cost");
  EXPECT_GT(std::stod(logged.at("cost").substr(2)), remaining + 1);
  ASSERT_TRUE(logged.count("retry_us"));
  EXPECT_EQ(r->get_header_value("Retry-After"), retry_after_of(logged.at("retry_us")));
}

TEST_F(GatewayRedisRefusingLimit, ARequestsRefusalNamesTheRequestsLimit) {
  upstream_->respond({200, "application/json", usage_body(10)});
  httplib::Result r = post(*gw_, "requests-key", 10);
  // 10 at once, 1/s after: a 429 comes within a few calls of 10.
  for (int i = 0; i < 40 && r && r->status == 200; ++i) r = post(*gw_, "requests-key", 10);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 429) << r->body;
  EXPECT_EQ(json::parse(r->body).at("error").at("limit"), "requests") << r->body;
  EXPECT_EQ(r->get_header_value("X-RateLimit-Limit"), "10");
  EXPECT_EQ(r->get_header_value("X-RateLimit-Remaining"), "0");
  EXPECT_EQ(r->get_header_value("RateLimit-Policy"), "\"requests\";q=10;w=10");
  EXPECT_FALSE(r->has_header("x-ratelimit-limit-tokens"));
  const auto logged = last_logged(*server_);
  EXPECT_EQ(logged.at("allowed"), "0");
  EXPECT_EQ(logged.at("limit"), "requests");
  EXPECT_LT(std::stod(logged.at("level")), 1);
  EXPECT_EQ(r->get_header_value("Retry-After"), retry_after_of(logged.at("retry_us")));
}

}  // namespace
}  // namespace limitscope::test
