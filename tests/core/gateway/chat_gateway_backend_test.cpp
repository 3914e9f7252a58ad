// Verifies how the gateway answers a shared backend's failures: fail-open admits with
// X-Circuit-Open and no limit headers, fail-closed answers 503 with Retry-After, a backend error is
// 503, never 500; and only the binding limit's headers when a composite reports one.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/gateway/chat_gateway.h"

namespace limitscope::gateway {
namespace {

// A backend answering what the test sets.
class ScriptedBackend final : public AdmissionBackend {
 public:
  explicit ScriptedBackend(Policy p) : policy_(std::make_shared<const Policy>(std::move(p))) {}
  AdmissionResult admit(const AdmissionRequest& r) override {
    AdmissionResult out = next;
    out.policy = policy_;
    out.tier = policy_->tier_for_key(r.api_key);
    if (auto m = policy_->model_index(r.model)) out.model = &policy_->models[*m];
    return out;
  }
  bool settle(std::string_view, std::string_view, double delta, Nanos) override {
    settles.push_back(delta);
    return settle_ok;
  }
  Status set_policy(Policy, Nanos) override { return {}; }
  std::shared_ptr<const Policy> policy() const override { return policy_; }
  std::string_view name() const override { return "scripted"; }
  std::optional<double> circuit_state() const override { return 2; }
  AdmissionResult next;
  std::vector<double> settles;
  bool settle_ok = true;

 private:
  std::shared_ptr<const Policy> policy_;
};

const char* const kBody = R"({"model":"gpt-4.1","messages":[{"content":"hi"}],"max_tokens":5})";

struct Fixture {
  Fixture() : backend(default_policy()), gateway(backend, metrics, clock) {}
  ManualClock clock;
  ScriptedBackend backend;
  GatewayMetrics metrics;
  ChatGateway gateway;
  AdmitOutcome admit() { return gateway.admit(IncomingRequest{"Bearer demo-pro-1", kBody}); }
};

TEST(ChatGatewayBackend, FailOpenAdmitsMarkedDegraded) {
  Fixture f;
  f.backend.next.allowed = true;
  f.backend.next.degraded = true;
  f.backend.next.reported = ReportedRules::none;
  f.backend.next.requests.allowed = true;
  AdmitOutcome out = f.admit();
  ASSERT_TRUE(out.ticket.has_value());
  EXPECT_EQ(find_header(out.ticket->rate_limit_headers, "X-Circuit-Open"), "true");
  EXPECT_FALSE(find_header(out.ticket->rate_limit_headers, "X-RateLimit-Limit").has_value());
  const std::string m = f.gateway.render_metrics();
  EXPECT_NE(
      m.find("limitscope_requests_total{tier=\"pro\",model=\"gpt-4.1\",decision=\"degraded\"} 1"),
      std::string::npos)
      << m;
  EXPECT_NE(
      m.find("limitscope_backend_errors_total{backend=\"scripted\",reason=\"unavailable\"} 1"),
      std::string::npos)
      << m;
  EXPECT_NE(m.find("limitscope_circuit_state{backend=\"scripted\"} 2"), std::string::npos) << m;
  EXPECT_EQ(m.find("gateway_token_bucket_usage_count"), std::string::npos);
}

// Only what the backend decided is settled; a settlement it could not make is counted.
TEST(ChatGatewayBackend, SettlementSkipsDegradedAdmissionsAndCountsFailures) {
  Fixture f;
  f.backend.next.allowed = true;
  f.backend.next.requests.allowed = true;
  f.backend.next.degraded = true;
  AdmitOutcome degraded = f.admit();
  ASSERT_TRUE(degraded.ticket.has_value());
  f.gateway.complete(*degraded.ticket, UpstreamOutcome{UpstreamOutcome::Kind::answered, 200, 3});
  EXPECT_TRUE(f.backend.settles.empty()) << "a degraded admission consumed nothing";

  f.backend.next.degraded = false;
  f.backend.settle_ok = false;
  AdmitOutcome decided = f.admit();
  ASSERT_TRUE(decided.ticket.has_value());
  f.gateway.complete(*decided.ticket, UpstreamOutcome{UpstreamOutcome::Kind::answered, 200, 3});
  ASSERT_EQ(f.backend.settles.size(), 1u);
  EXPECT_EQ(f.backend.settles[0], 3 - decided.ticket->estimated_tokens);
  const std::string m = f.gateway.render_metrics();
  EXPECT_NE(m.find("limitscope_backend_errors_total{backend=\"scripted\",reason=\"settle\"} 1"),
            std::string::npos)
      << m;
}

TEST(ChatGatewayBackend, FailClosedIs503WithRetryAfter) {
  Fixture f;
  f.backend.next.degraded = true;
  f.backend.next.reported = ReportedRules::none;
  f.backend.next.denied_by = DeniedBy::requests;
  f.backend.next.requests.reason = DenyReason::backend_unavailable;
  f.backend.next.requests.retry_after = std::chrono::milliseconds(1500);
  AdmitOutcome out = f.admit();
  ASSERT_TRUE(out.response.has_value());
  EXPECT_EQ(out.response->status, 503);
  EXPECT_EQ(nlohmann::json::parse(out.response->body).at("error").at("code"),
            "limiter_unavailable");
  EXPECT_EQ(find_header(out.response->headers, "Retry-After"), "2");
  EXPECT_EQ(find_header(out.response->headers, "X-Circuit-Open"), "true");
  EXPECT_EQ(f.gateway.render_metrics().find("gateway_rate_limit_hits_total{"), std::string::npos);
}

TEST(ChatGatewayBackend, BackendErrorIs503) {
  Fixture f;
  f.backend.next.denied_by = DeniedBy::requests;
  f.backend.next.requests.reason = DenyReason::backend_error;
  AdmitOutcome out = f.admit();
  ASSERT_TRUE(out.response.has_value());
  EXPECT_EQ(out.response->status, 503);
  EXPECT_EQ(nlohmann::json::parse(out.response->body).at("error").at("code"), "limiter_error");
}

TEST(ChatGatewayBackend, OnlyTheBindingLimitIsReported) {
  Fixture f;
  f.backend.next.denied_by = DeniedBy::llm_tokens;
  f.backend.next.reported = ReportedRules::llm_tokens_only;
  f.backend.next.llm_tokens =
      Decision{false, 2'000'000, 10, std::chrono::seconds(3), std::chrono::seconds(60)};
  f.backend.next.llm_tokens->reason = DenyReason::exhausted;
  AdmitOutcome out = f.admit();
  ASSERT_TRUE(out.response.has_value());
  EXPECT_EQ(out.response->status, 429);
  EXPECT_EQ(find_header(out.response->headers, "Retry-After"), "3");
  EXPECT_EQ(find_header(out.response->headers, "X-RateLimit-Limit-Tokens"), "2000000");
  EXPECT_FALSE(find_header(out.response->headers, "X-RateLimit-Limit").has_value());
  EXPECT_EQ(find_header(out.response->headers, "RateLimit-Policy"),
            "\"llm-tokens\";q=2000000;w=60");
}

}  // namespace
}  // namespace limitscope::gateway
