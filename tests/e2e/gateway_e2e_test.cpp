// Verifies the real limitscope-gateway process on loopback: rate-limit headers and bodies of
// allowed and denied answers, Retry-After honoured, bad requests, streamed pass-through, upstream
// failures, and SIGHUP reload without dropped requests.

#include <gtest/gtest.h>
#include <httplib.h>
#include <signal.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "e2e/e2e_policy.h"
#include "support/child_process.h"
#include "support/cli_usage.h"
#include "support/exposition_sums.h"
#include "support/fake_clock.h"
#include "support/process.h"
#include "support/test_paths.h"

namespace limitscope::test {
namespace {

using nlohmann::json;

std::string chat(const std::string& model, bool stream = false, int max_tokens = 50) {
  return json{{"model", model},
              {"stream", stream},
              {"max_tokens", max_tokens},
              {"messages", json::array({{{"role", "user"}, {"content", "12345678"}}})}}
      .dump();
}

httplib::Result post(const GatewayProcess& gw, const std::string& body, httplib::Headers headers) {
  httplib::Client c(gw.url());
  c.set_read_timeout(10);
  return c.Post("/v1/chat/completions", headers, body, "application/json");
}

httplib::Headers bearer(const std::string& key) {
  return {{"Authorization", "Bearer " + key}};
}

std::string get(const GatewayProcess& gw, const std::string& path) {
  httplib::Client c(gw.url());
  auto r = c.Get(path.c_str());
  return r ? r->body : std::string();
}

class GatewayE2E : public ::testing::Test {
 protected:
  void SetUp() override {
    policy_path_ = write_temp("e2e_policy.json", e2e_policy_json());
    gw_ = std::make_unique<GatewayProcess>(std::vector<std::string>{
        "--policy", policy_path_, "--mock-upstream", "--max-body", "4096"});
    ASSERT_TRUE(gw_->running());
  }
  std::string policy_path_;
  std::unique_ptr<GatewayProcess> gw_;
};

TEST_F(GatewayE2E, AllowedAndDeniedCarryRateLimitHeadersAndBodies) {
  for (int i = 0; i < 3; ++i) {
    auto r = post(*gw_, chat("gemini-2.5-flash"), bearer("free-key"));
    ASSERT_TRUE(r);
    ASSERT_EQ(r->status, 200) << r->body;
    EXPECT_EQ(r->get_header_value("X-RateLimit-Limit"), "3");
    EXPECT_EQ(r->get_header_value("X-RateLimit-Remaining"), std::to_string(2 - i));
    EXPECT_EQ(r->get_header_value("RateLimit-Policy"),
              "\"requests\";q=3;w=3, \"llm-tokens\";q=20000;w=60");
    EXPECT_EQ(r->get_header_value("RateLimit")
                  .rfind("\"requests\";r=" + std::to_string(2 - i) + ";t=", 0),
              0u);
    EXPECT_FALSE(r->has_header("Retry-After"));
    const json body = json::parse(r->body);
    EXPECT_EQ(body.at("object"), "chat.completion");
    EXPECT_EQ(body.at("usage").at("total_tokens"), 2 + 16);
  }
  auto denied = post(*gw_, chat("gemini-2.5-flash"), bearer("free-key"));
  ASSERT_TRUE(denied);
  EXPECT_EQ(denied->status, 429);
  EXPECT_EQ(denied->get_header_value("Content-Type"), "application/json");
  EXPECT_EQ(denied->get_header_value("Retry-After"), "1");
  EXPECT_EQ(denied->get_header_value("X-RateLimit-Remaining"), "0");
  EXPECT_TRUE(denied->has_header("X-RateLimit-Reset"));
  EXPECT_TRUE(denied->has_header("RateLimit"));
  const json err = json::parse(denied->body).at("error");
  EXPECT_EQ(err.at("code"), "rate_limit_exceeded");
  EXPECT_EQ(err.at("limit"), "requests");
  EXPECT_GT(err.at("retry_after").get<double>(), 0);
  EXPECT_LE(err.at("retry_after").get<double>(), 1.0);
  EXPECT_FALSE(err.at("message").get<std::string>().empty());
}

TEST_F(GatewayE2E, RetryAfterHonouredMeansTheRetrySucceeds) {
  // The gateway runs on a clock the test moves (FakeClock): the client's wait is that clock's.
  FakeClock clock("gateway_e2e_retry_after");
  gw_ = std::make_unique<GatewayProcess>(
      std::vector<std::string>{"--policy", policy_path_, "--mock-upstream", "--max-body", "4096"},
      clock.env());
  ASSERT_TRUE(gw_->running());
  std::optional<httplib::Result> denied;
  for (int i = 0; i < 4; ++i) {
    auto r = post(*gw_, chat("gemini-2.5-flash"), bearer("free-key"));
    ASSERT_TRUE(r);
    if (r->status == 429) {
      denied = std::move(r);
      break;
    }
  }
  ASSERT_TRUE(denied.has_value());
  const int wait_s = std::stoi((*denied)->get_header_value("Retry-After"));
  ASSERT_GE(wait_s, 1);
  // The behaviour under test is a client that waits what the gateway told it to: the gateway's
  // own clock (its limitscope_gateway_time_seconds gauge) moves on by that much.
  httplib::Client scraper(gw_->url());
  auto gateway_time = [&]() -> double {
    auto m = scraper.Get("/metrics");
    return m && m->status == 200 ? test::sum_samples(m->body, "limitscope_gateway_time_seconds")
                                 : 0.0;
  };
  const double refused_by = gateway_time();
  ASSERT_GT(refused_by, 0.0);
  clock.advance(std::chrono::seconds(wait_s));
  ASSERT_GE(gateway_time(), refused_by + wait_s)
      << "the gateway is not on the fake clock (package faketime?)";
  auto retry = post(*gw_, chat("gemini-2.5-flash"), bearer("free-key"));
  ASSERT_TRUE(retry);
  EXPECT_EQ(retry->status, 200) << retry->body;
}

struct BadRequest {
  const char* name;
  std::function<httplib::Headers()> headers;
  std::string body;
  int status;
  const char* code;
};

TEST_F(GatewayE2E, BadRequestsGetClearErrors) {
  const std::vector<BadRequest> rows = {
      {"no auth", [] { return httplib::Headers{}; }, chat("gpt-4.1"), 401, "missing_api_key"},
      {"not bearer",
       [] {
         return httplib::Headers{{"Authorization", "Basic Zm9vOmJhcg=="}};
       },
       chat("gpt-4.1"), 401, "invalid_authorization"},
      {"unknown key", [] { return bearer("sk-nobody"); }, chat("gpt-4.1"), 403, "unknown_api_key"},
      {"malformed JSON", [] { return bearer("pro-key"); }, "{\"model\": \"gpt-4.1\", ", 400,
       "invalid_json"},
      {"no messages", [] { return bearer("pro-key"); }, R"({"model":"gpt-4.1"})", 400,
       "invalid_request"},
      {"huge body", [] { return bearer("pro-key"); }, std::string(8192, ' ') + chat("gpt-4.1"), 413,
       "request_too_large"},
      {"unknown model", [] { return bearer("pro-key"); }, chat("gpt-9-turbo"), 404,
       "model_not_found"},
      {"too many tokens", [] { return bearer("free-key"); }, chat("gpt-4.1", false, 50000), 400,
       "request_too_large"},
  };
  for (const BadRequest& row : rows) {
    auto r = post(*gw_, row.body, row.headers());
    ASSERT_TRUE(r) << row.name;
    EXPECT_EQ(r->status, row.status) << row.name << ": " << r->body;
    const json body = json::parse(r->body, nullptr, false);
    ASSERT_TRUE(body.is_object()) << row.name << ": " << r->body;
    EXPECT_EQ(body.at("error").at("code"), row.code) << row.name;
  }
  // The gateway is still serving, and no key appeared in what it logged.
  auto ok = post(*gw_, chat("gpt-4.1"), bearer("pro-key"));
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->status, 200);
  EXPECT_EQ(gw_->process().stderr_text().find("pro-key"), std::string::npos);
  EXPECT_EQ(get(*gw_, "/metrics").find("pro-key"), std::string::npos);
}

TEST_F(GatewayE2E, ClientHeaderClaimingAnotherTierIsIgnored) {
  httplib::Headers h = bearer("free-key");
  for (const char* name : {"X-Tier", "X-RateLimit-Tier", "X-Api-Tier", "Tier"})
    h.emplace(name, "enterprise");
  auto r = post(*gw_, chat("gpt-4.1"), h);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->get_header_value("X-RateLimit-Limit"),
            "3");  // free's capacity, not enterprise's 500
  const std::string metrics = get(*gw_, "/metrics");
  EXPECT_EQ(sum_samples(metrics, "limitscope_requests_total", {{"tier", "enterprise"}}), 0);
  EXPECT_EQ(sum_samples(metrics, "limitscope_requests_total", {{"tier", "free"}}), 1);
}

TEST_F(GatewayE2E, HealthReadinessAndMetricsNames) {
  EXPECT_EQ(get(*gw_, "/healthz"), "ok\n");
  const json ready = json::parse(get(*gw_, "/readyz"));
  EXPECT_EQ(ready.at("backend"), "in-process");
  EXPECT_EQ(ready.at("policy_generation"), 1);
  ASSERT_TRUE(post(*gw_, chat("gpt-4.1"), bearer("free-key")));
  const std::string m = get(*gw_, "/metrics");
  for (const char* family : {"gateway_token_bucket_usage_bucket", "gateway_quota_burn_ratio",
                             "limitscope_requests_total", "limitscope_llm_tokens_total",
                             "limitscope_spend_dollars_total"}) {
    EXPECT_NE(m.find(family), std::string::npos) << family;
  }
  EXPECT_NE(m.find("api_key_hash=\""), std::string::npos);
}

TEST_F(GatewayE2E, SighupReloadsThePolicyWithoutDroppingRequests) {
  std::atomic<bool> stop{false};
  std::atomic<int> answered{0};
  std::atomic<int> bad{0};
  std::thread load([&] {
    httplib::Client c(gw_->url());
    while (!stop.load()) {
      auto r = c.Post("/v1/chat/completions", bearer("pro-key"), chat("deepseek-v3.2"),
                      "application/json");
      if (!r || (r->status != 200 && r->status != 429)) bad.fetch_add(1);
      answered.fetch_add(1);
    }
  });
  std::ofstream(policy_path_, std::ios::trunc) << e2e_policy_json(/*free_capacity=*/40);
  gw_->process().signal(SIGHUP);
  // Wait for the reload to show (bounded; each probe is a real request, not a sleep).
  int generation = 1;
  for (int i = 0; i < 500 && generation < 2; ++i) {
    generation = json::parse(get(*gw_, "/readyz")).at("policy_generation").get<int>();
  }
  stop = true;
  load.join();
  ASSERT_EQ(generation, 2) << gw_->process().stderr_text();
  auto r = post(*gw_, chat("gpt-4.1"), bearer("free-key"));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->get_header_value("X-RateLimit-Limit"), "40");
  EXPECT_GT(answered.load(), 0);
  EXPECT_EQ(bad.load(), 0);
  // A broken file is refused and the previous policy stays.
  std::ofstream(policy_path_, std::ios::trunc) << "{ broken";
  gw_->process().signal(SIGHUP);
  // Wait (bounded) for the gateway to say it refused the file, then check nothing changed.
  bool refused = false;
  for (int i = 0; i < 500 && !refused; ++i) {
    refused = gw_->process().stderr_text().find("policy not reloaded") != std::string::npos;
    if (!refused) get(*gw_, "/healthz");  // a real round trip between two looks
  }
  EXPECT_TRUE(refused) << gw_->process().stderr_text();
  EXPECT_EQ(json::parse(get(*gw_, "/readyz")).at("policy_generation"), 2);
  auto still = post(*gw_, chat("gpt-4.1"), bearer("free-key"));
  ASSERT_TRUE(still);
  EXPECT_EQ(still->get_header_value("X-RateLimit-Limit"), "40");
}

// A gateway whose upstream is a second gateway answering with its mock upstream, both on the
// e2e policy (written to `policy_file`).
struct ForwardingPair {
  explicit ForwardingPair(const std::string& policy_file)
      : policy(write_temp(policy_file, e2e_policy_json())),
        upstream({"--policy", policy, "--mock-upstream"}),
        gw({"--policy", policy, "--upstream", upstream.url()}) {}
  std::string policy;
  GatewayProcess upstream;
  GatewayProcess gw;
};

TEST(GatewayUpstreamE2E, StreamsThroughAndSettlesFromUpstreamUsage) {
  ForwardingPair pair("e2e_policy_up.json");
  ASSERT_TRUE(pair.upstream.running());
  ASSERT_TRUE(pair.gw.running());
  const GatewayProcess& gw = pair.gw;
  auto r = post(gw, chat("gpt-4.1", /*stream=*/true), bearer("pro-key"));
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  EXPECT_NE(r->get_header_value("Content-Type").find("text/event-stream"), std::string::npos);
  EXPECT_TRUE(r->has_header("X-RateLimit-Limit"));
  ASSERT_GE(r->body.size(), 14u);
  EXPECT_EQ(r->body.substr(r->body.size() - 14), "data: [DONE]\n\n");
  auto plain = post(gw, chat("gpt-4.1"), bearer("pro-key"));
  ASSERT_TRUE(plain);
  EXPECT_EQ(json::parse(plain->body).at("usage").at("total_tokens"), 18);
  // Both answers' usage (2 prompt + 16 completion tokens each) was read and settled.
  EXPECT_EQ(sum_samples(get(gw, "/metrics"), "limitscope_llm_tokens_total", {{"tier", "pro"}}), 36);
}

TEST(GatewayUpstreamE2E, EmbeddingsAndResponsesForwardToTheirPathsAndSettleFromTheirUsage) {
  ForwardingPair pair("e2e_policy_endpoints.json");
  ASSERT_TRUE(pair.upstream.running());
  ASSERT_TRUE(pair.gw.running());
  const GatewayProcess& gw = pair.gw;
  httplib::Client c(gw.url());
  c.set_read_timeout(10);
  auto emb = c.Post("/v1/embeddings", bearer("pro-key"),
                    R"({"model":"gpt-4.1","input":["abcd","efgh"]})", "application/json");
  ASSERT_TRUE(emb);
  ASSERT_EQ(emb->status, 200) << emb->body;
  EXPECT_EQ(json::parse(emb->body).at("data").size(), 2u);
  EXPECT_EQ(emb->get_header_value("x-ratelimit-limit-requests"), "25");  // 50 units / cost 2
  auto streamed =
      c.Post("/v1/responses", bearer("pro-key"),
             R"({"model":"gpt-4.1","input":"abcdefgh","stream":true})", "application/json");
  ASSERT_TRUE(streamed);
  ASSERT_EQ(streamed->status, 200) << streamed->body;
  EXPECT_NE(streamed->get_header_value("Content-Type").find("text/event-stream"),
            std::string::npos);
  EXPECT_NE(streamed->body.find("event: response.completed\n"), std::string::npos)
      << streamed->body;
  EXPECT_TRUE(streamed->has_header("x-ratelimit-remaining-tokens"));
  // Settled from each usage shape: embeddings' prompt_tokens (2), the responses stream's
  // response.usage in its response.completed event (2 input + 16 output), not the estimate
  // (2 + 1024 default output tokens).
  EXPECT_EQ(sum_samples(get(gw, "/metrics"), "limitscope_llm_tokens_total", {{"tier", "pro"}}),
            2 + 18);
  // The model list is the gateway's policy's, answered without the upstream.
  auto models = c.Get("/v1/models", bearer("pro-key"));
  ASSERT_TRUE(models);
  ASSERT_EQ(models->status, 200) << models->body;
  EXPECT_EQ(json::parse(models->body).at("data").size(), 4u);
}

TEST(GatewayUpstreamE2E, UnreachableIs502AndSilentIs504) {
  const std::string policy = write_temp("e2e_policy_fail.json", e2e_policy_json());
  // An upstream that accepts connections but never answers: a gateway stopped with SIGSTOP.
  GatewayProcess silent({"--policy", policy, "--mock-upstream"});
  ASSERT_TRUE(silent.running());
  GatewayProcess gw({"--policy", policy, "--upstream", silent.url(), "--upstream-timeout", "1s"});
  ASSERT_TRUE(gw.running());
  silent.process().signal(SIGSTOP);
  auto timed_out = post(gw, chat("gpt-4.1"), bearer("pro-key"));
  silent.process().signal(SIGCONT);
  ASSERT_TRUE(timed_out);
  EXPECT_EQ(timed_out->status, 504) << timed_out->body;
  EXPECT_EQ(json::parse(timed_out->body).at("error").at("code"), "upstream_timeout");
  EXPECT_TRUE(timed_out->has_header("X-RateLimit-Limit"));

  const int port = silent.port();
  silent.process().signal(SIGTERM);
  silent.process().wait();
  GatewayProcess gw2(
      {"--policy", policy, "--upstream", "http://127.0.0.1:" + std::to_string(port)});
  ASSERT_TRUE(gw2.running());
  auto refused = post(gw2, chat("gpt-4.1"), bearer("pro-key"));
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->status, 502) << refused->body;
  EXPECT_EQ(json::parse(refused->body).at("error").at("code"), "upstream_unavailable");
}

TEST(GatewayCommandLine, BadUsageExits2WithOneLine) {
  expect_gateway_usage_errors(
      {{"--mock-upstream", "--listen HOST:PORT is required"},
       {"--listen 127.0.0.1:0", "exactly one of --upstream URL and --mock-upstream"},
       {"--listen 127.0.0.1:0 --mock-upstream --redis http://x", "--redis"},
       {"--listen 127.0.0.1:0 --mock-upstream --redis-failure-mode fail-open", "needs --redis URL"},
       {"--listen 127.0.0.1:0 --mock-upstream --limiter sideways", "--limiter sideways"},
       {"--listen nowhere --mock-upstream", "expected HOST:PORT"},
       {"--listen 127.0.0.1:0 --upstream ftp://x", "scheme must be http or https"},
       {"--listen 127.0.0.1:0 --mock-upstream --policy /nonexistent.json",
        "cannot open policy file"},
       {"--listen 127.0.0.1:0 --mock-upstream --threads 0", "--threads 0"},
       {"--listen 127.0.0.1:0 --mock-upstream --log-decisions 1", "needs --redis URL"},
       {"--listen 127.0.0.1:0 --mock-upstream --redis redis://127.0.0.1:1 --log-decisions 1.5",
        "--log-decisions 1.5: expected a fraction between 0 and 1"},
       {"--listen 127.0.0.1:0 --mock-upstream --redis redis://127.0.0.1:1 --log-decisions half",
        "--log-decisions half"},
       {"--listen 127.0.0.1:0 --mock-upstream --redis-settle-delay 1s", "needs --redis URL"},
       {"--listen 127.0.0.1:0 --mock-upstream --redis redis://127.0.0.1:1 --redis-settle-delay "
        "2m",
        "--redis-settle-delay 2m: expected 0 or a duration between 1ms and 1m"},
       {"--listen 127.0.0.1:0 --mock-upstream --redis redis://127.0.0.1:1 --redis-settle-delay "
        "soon",
        "--redis-settle-delay soon"}});
  ProcessResult help = run_process(binary_path("app/limitscope-gateway"), "--help");
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.out.find("--mock-latency"), std::string::npos);
}

}  // namespace
}  // namespace limitscope::test
