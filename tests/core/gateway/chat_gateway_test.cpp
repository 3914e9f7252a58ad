// Verifies the gateway's request handling without HTTP: status codes and error bodies, 429 with
// Retry-After, settlement after the upstream, the mock upstream's answers and usage for each
// endpoint, the model list, and the metrics (hits = 429s, histogram count = admitted, no raw key).

#include "core/gateway/chat_gateway.h"

#include <gtest/gtest.h>

#include <cstring>
#include <nlohmann/json.hpp>

#include "core/common/sha256.h"
#include "core/gateway/in_process_admission.h"
#include "core/gateway/mock_upstream.h"
#include "support/exposition_sums.h"
#include "support/must.h"

namespace limitscope::gateway {
namespace {

using nlohmann::json;
using std::chrono::milliseconds;
using std::chrono::seconds;

const char* const kPolicy = R"({
  "default_tier": "free",
  "tiers": {
    "free": { "requests": { "algorithm": "token-bucket", "capacity": 3, "refill": "1/s" },
              "llm_tokens": { "algorithm": "token-bucket", "capacity": 2000, "refill": "2000/min" },
              "daily_quota": 100 },
    "pro": { "requests": { "algorithm": "token-bucket", "capacity": 100, "refill": "10/s" } }
  },
  "models": { "small": { "cost": 1, "price_per_million_tokens": 2 }, "big": { "cost": 3 } },
  "keys": { "sk-pro-secret-key": "pro" }
})";

Policy make_policy(bool with_default = true) {
  auto p = parse_policy(kPolicy, "test-policy");
  EXPECT_TRUE(p.ok()) << p.error();
  if (!with_default) p->default_tier.reset();
  return std::move(p).value();
}

std::string chat_body(std::string_view model, int max_tokens = 100) {
  return json{{"model", model},
              {"max_tokens", max_tokens},
              {"messages", json::array({{{"role", "user"}, {"content", "12345678"}}})}}
      .dump();
}

IncomingRequest req(std::optional<std::string> auth, std::string body) {
  return IncomingRequest{std::move(auth), std::move(body)};
}

struct Fixture {
  explicit Fixture(bool with_default = true)
      : backend(test::must(InProcessAdmission::create(make_policy(with_default)))),
        gateway(*backend, metrics, clock) {}
  ManualClock clock{Nanos{0}};
  std::unique_ptr<InProcessAdmission> backend;
  GatewayMetrics metrics;
  ChatGateway gateway;
};

json error_of(const GatewayResponse& r) {
  return json::parse(r.body).at("error");
}

struct ErrorRow {
  std::optional<std::string> auth;
  std::string body;
  int status;
  const char* code;
};

class GatewayRefuses : public ::testing::TestWithParam<ErrorRow> {};

TEST_P(GatewayRefuses, WithStatusAndCode) {
  Fixture f(/*with_default=*/false);
  const ErrorRow& row = GetParam();
  AdmitOutcome out = f.gateway.admit(req(row.auth, row.body));
  ASSERT_TRUE(out.response.has_value());
  EXPECT_EQ(out.response->status, row.status);
  EXPECT_EQ(error_of(*out.response).at("code"), row.code) << out.response->body;
  EXPECT_FALSE(out.ticket.has_value());
}

INSTANTIATE_TEST_SUITE_P(
    Rows, GatewayRefuses,
    ::testing::Values(
        ErrorRow{std::nullopt, chat_body("small"), 401, "missing_api_key"},
        ErrorRow{"Basic abc", chat_body("small"), 401, "invalid_authorization"},
        ErrorRow{"Bearer ", chat_body("small"), 401, "invalid_authorization"},
        ErrorRow{"Bearer a b", chat_body("small"), 401, "invalid_authorization"},
        ErrorRow{"Bearer sk-pro-secret-key", "{not json", 400, "invalid_json"},
        ErrorRow{"Bearer sk-pro-secret-key", R"({"messages":[{}]})", 400, "invalid_request"},
        ErrorRow{"Bearer stranger", chat_body("small"), 403, "unknown_api_key"},
        ErrorRow{"Bearer sk-pro-secret-key", chat_body("gpt-9"), 404, "model_not_found"}));

TEST(ChatGateway, UnknownModelIsA404WithoutRateLimitHeaders) {
  Fixture f;
  AdmitOutcome out = f.gateway.admit(req("Bearer sk-pro-secret-key", chat_body("gpt-9")));
  ASSERT_TRUE(out.response.has_value());
  EXPECT_EQ(out.response->status, 404);
  EXPECT_TRUE(out.response->headers.empty());  // no limit of (key, gpt-9) exists to report
}

TEST(ChatGateway, UnknownKeyGetsTheDefaultTier) {
  Fixture f;
  AdmitOutcome out = f.gateway.admit(req("Bearer stranger", chat_body("small")));
  ASSERT_TRUE(out.ticket.has_value());
  EXPECT_EQ(out.ticket->admission.tier->name, "free");
  // ceil(23 / 4) for role, user, content, 12345678; plus max_tokens.
  EXPECT_EQ(out.ticket->estimated_tokens, 6 + 100);
  EXPECT_EQ(out.ticket->api_key_hash, api_key_hash("stranger"));
}

TEST(ChatGateway, EstimateAboveTheTokenCapacityIsATooLargeRequest) {
  Fixture f;
  AdmitOutcome out = f.gateway.admit(req("Bearer stranger", chat_body("small", 5000)));
  ASSERT_TRUE(out.response.has_value());
  EXPECT_EQ(out.response->status, 400);
  EXPECT_EQ(error_of(*out.response).at("code"), "request_too_large");
  EXPECT_FALSE(find_header(out.response->headers, "Retry-After").has_value());
}

TEST(ChatGateway, DeniedIs429WithBodyAndHeaders) {
  Fixture f;
  for (int i = 0; i < 3; ++i)
    ASSERT_TRUE(f.gateway.admit(req("Bearer k", chat_body("small"))).ticket);
  f.clock.advance(milliseconds(250));
  AdmitOutcome out = f.gateway.admit(req("Bearer k", chat_body("small")));
  ASSERT_TRUE(out.response.has_value());
  const GatewayResponse& r = *out.response;
  EXPECT_EQ(r.status, 429);
  const json e = error_of(r);
  EXPECT_EQ(e.at("code"), "rate_limit_exceeded");
  EXPECT_EQ(e.at("limit"), "requests");
  EXPECT_NEAR(e.at("retry_after").get<double>(), 0.75, 1e-9);
  EXPECT_EQ(find_header(r.headers, "Retry-After"), "1");
  EXPECT_EQ(find_header(r.headers, "X-RateLimit-Limit"), "3");
  EXPECT_EQ(find_header(r.headers, "X-RateLimit-Remaining"), "0");
  EXPECT_TRUE(find_header(r.headers, "RateLimit").has_value());
  EXPECT_TRUE(find_header(r.headers, "RateLimit-Policy").has_value());
  // After the advertised wait, the same request succeeds.
  f.clock.advance(seconds(1));
  EXPECT_TRUE(f.gateway.admit(req("Bearer k", chat_body("small"))).ticket.has_value());
}

TEST(ChatGateway, AllowedTicketCarriesRateLimitHeaders) {
  Fixture f;
  AdmitOutcome out = f.gateway.admit(req("Bearer sk-pro-secret-key", chat_body("big")));
  ASSERT_TRUE(out.ticket.has_value());
  EXPECT_EQ(find_header(out.ticket->rate_limit_headers, "X-RateLimit-Remaining"), "97");
  EXPECT_FALSE(find_header(out.ticket->rate_limit_headers, "Retry-After").has_value());
  EXPECT_FALSE(find_header(out.ticket->rate_limit_headers, "X-RateLimit-Limit-Tokens").has_value());
}

TEST(ChatGateway, SettlementFollowsTheUpstream) {
  Fixture f;
  const LimitParams tokens = *make_policy().find_tier("free")->llm_tokens;
  auto level = [&] { return f.backend->tokens_available("k", "small", tokens, f.clock.now()); };
  AdmitOutcome a = f.gateway.admit(req("Bearer k", chat_body("small", 500)));
  ASSERT_TRUE(a.ticket);
  EXPECT_EQ(level(), 2000 - 506);
  EXPECT_EQ(
      f.gateway.complete(*a.ticket, UpstreamOutcome{UpstreamOutcome::Kind::answered, 200, 40}), 40);
  EXPECT_EQ(level(), 2000 - 40);
  AdmitOutcome b = f.gateway.admit(req("Bearer k", chat_body("small", 500)));
  ASSERT_TRUE(b.ticket);
  EXPECT_EQ(f.gateway.complete(
                *b.ticket, UpstreamOutcome{UpstreamOutcome::Kind::unreachable, 0, std::nullopt}),
            0);
  EXPECT_EQ(level(), 2000 - 40);  // a failed call is refunded whole
  AdmitOutcome c = f.gateway.admit(req("Bearer k", chat_body("small", 500)));
  ASSERT_TRUE(c.ticket);
  EXPECT_EQ(f.gateway.complete(*c.ticket,
                               UpstreamOutcome{UpstreamOutcome::Kind::answered, 200, std::nullopt}),
            506);
  EXPECT_EQ(level(), 2000 - 40 - 506);  // no usage: the estimate stands
  const GatewayResponse bad =
      ChatGateway::upstream_failure(*c.ticket, UpstreamOutcome::Kind::timed_out, "after 30s");
  EXPECT_EQ(bad.status, 504);
  EXPECT_EQ(error_of(bad).at("code"), "upstream_timeout");
  EXPECT_TRUE(find_header(bad.headers, "X-RateLimit-Limit").has_value());
}

TEST(ChatGateway, MockUpstreamAnswersWithUsageJsonAndSse) {
  ChatRequest r;
  r.model = "small";
  r.prompt_chars = 9;
  r.max_tokens = 100;
  MockCompletion plain = mock_completion(r, 7, 1'700'000'000);
  ASSERT_EQ(plain.chunks.size(), 1u);
  EXPECT_EQ(plain.content_type, "application/json");
  EXPECT_EQ(usage_total_tokens(plain.chunks[0]), 3 + kMockCompletionTokens);
  EXPECT_EQ(json::parse(plain.chunks[0]).at("id"), "chatcmpl-mock-7");
  r.stream = true;
  r.max_tokens = 5;
  MockCompletion streamed = mock_completion(r, 8, 1'700'000'000);
  EXPECT_EQ(streamed.content_type, "text/event-stream");
  EXPECT_EQ(streamed.chunks.back(), "data: [DONE]\n\n");
  SseUsageScanner scan;
  for (const auto& c : streamed.chunks) scan.feed(c);
  scan.finish();
  EXPECT_EQ(scan.total_tokens(), 3 + 5);
}

TEST(ChatGateway, EmbeddingsAndResponsesAreAdmittedUnderTheSameLimits) {
  Fixture f;
  IncomingRequest e = req("Bearer k", R"({"model":"small","input":["abcd","efgh"]})");
  e.endpoint = Endpoint::embeddings;
  AdmitOutcome emb = f.gateway.admit(e);
  ASSERT_TRUE(emb.ticket.has_value()) << emb.response->body;
  EXPECT_EQ(emb.ticket->estimated_tokens, 2);  // prompt only: embeddings have no output
  EXPECT_EQ(emb.ticket->request.endpoint, Endpoint::embeddings);
  IncomingRequest r = req("Bearer k", R"({"model":"small","input":"abcd","max_output_tokens":30})");
  r.endpoint = Endpoint::responses;
  AdmitOutcome resp = f.gateway.admit(r);
  ASSERT_TRUE(resp.ticket.has_value()) << resp.response->body;
  EXPECT_EQ(resp.ticket->estimated_tokens, 1 + 30);
  // The third request of the free tier's 3, whatever its endpoint; then 429.
  ASSERT_TRUE(f.gateway.admit(req("Bearer k", chat_body("small"))).ticket);
  AdmitOutcome denied = f.gateway.admit(e);
  ASSERT_TRUE(denied.response.has_value());
  EXPECT_EQ(denied.response->status, 429);
  IncomingRequest bad = req("Bearer k", R"({"model":"small","input":""})");
  bad.endpoint = Endpoint::embeddings;
  AdmitOutcome refused = f.gateway.admit(bad);
  ASSERT_TRUE(refused.response.has_value());
  EXPECT_EQ(refused.response->status, 400);
  EXPECT_EQ(error_of(*refused.response).at("code"), "invalid_request");
}

TEST(ChatGateway, ModelListIsThePolicysModelsForAKnownKey) {
  Fixture f(/*with_default=*/false);
  const GatewayResponse ok = f.gateway.list_models(req("Bearer sk-pro-secret-key", ""));
  ASSERT_EQ(ok.status, 200) << ok.body;
  const json list = json::parse(ok.body);
  EXPECT_EQ(list.at("object"), "list");
  ASSERT_EQ(list.at("data").size(), 2u);
  EXPECT_EQ(list.at("data")[0].at("id"), "big");
  EXPECT_EQ(list.at("data")[1].at("id"), "small");
  EXPECT_EQ(list.at("data")[1].at("object"), "model");
  EXPECT_TRUE(ok.headers.empty());  // not a limiter decision: no rate-limit headers
  EXPECT_EQ(f.gateway.list_models(req(std::nullopt, "")).status, 401);
  EXPECT_EQ(f.gateway.list_models(req("Basic x", "")).status, 401);
  const GatewayResponse stranger = f.gateway.list_models(req("Bearer stranger", ""));
  EXPECT_EQ(stranger.status, 403);
  EXPECT_EQ(error_of(stranger).at("code"), "unknown_api_key");
}

// The little-endian float32 values of a base64 text.
std::vector<float> decode_floats(const std::string& b64) {
  static const std::string kAlphabet =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string bytes;
  unsigned buffer = 0;
  int bits = 0;
  for (char c : b64) {
    if (c == '=') break;
    buffer = (buffer << 6) | static_cast<unsigned>(kAlphabet.find(c));
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      bytes += static_cast<char>((buffer >> bits) & 0xff);
    }
  }
  std::vector<float> out(bytes.size() / 4);
  std::memcpy(out.data(), bytes.data(), out.size() * 4);  // x86-64 and arm64: little-endian
  return out;
}

TEST(ChatGateway, MockEmbeddingsAsFloatsOrBase64AgreeAndCarryUsage) {
  auto floats =
      parse_embeddings_request(R"({"model":"small","input":["abcd","efghij"],"dimensions":5})");
  ASSERT_TRUE(floats.ok());
  const json a = json::parse(mock_completion(*floats, 1, 0).chunks.at(0));
  EXPECT_EQ(a.at("object"), "list");
  ASSERT_EQ(a.at("data").size(), 2u);
  EXPECT_EQ(a.at("data")[1].at("index"), 1);
  const auto v = a.at("data")[1].at("embedding").get<std::vector<float>>();
  ASSERT_EQ(v.size(), 5u);
  EXPECT_EQ(a.at("usage").at("prompt_tokens"), 3);  // ceil(10 / 4)
  EXPECT_EQ(usage_total_tokens(a.dump()), 3);
  auto packed = parse_embeddings_request(
      R"({"model":"small","input":["abcd","efghij"],"dimensions":5,"encoding_format":"base64"})");
  ASSERT_TRUE(packed.ok());
  const json b = json::parse(mock_completion(*packed, 1, 0).chunks.at(0));
  EXPECT_EQ(decode_floats(b.at("data")[1].at("embedding").get<std::string>()), v);
  auto plain = parse_embeddings_request(R"({"model":"small","input":"x"})");
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(
      json::parse(mock_completion(*plain, 1, 0).chunks.at(0)).at("data")[0].at("embedding").size(),
      static_cast<std::size_t>(kMockEmbeddingDimensions));
}

TEST(ChatGateway, MockResponsesJsonAndTypedEventStreamCarryUsage) {
  auto r = parse_responses_request(R"({"model":"small","input":"abcdefgh","max_output_tokens":5})");
  ASSERT_TRUE(r.ok());
  const MockCompletion plain = mock_completion(*r, 4, 1'700'000'000);
  const json body = json::parse(plain.chunks.at(0));
  EXPECT_EQ(body.at("object"), "response");
  EXPECT_EQ(body.at("status"), "completed");
  EXPECT_EQ(body.at("output")[0].at("content")[0].at("type"), "output_text");
  EXPECT_EQ(usage_total_tokens(plain.chunks[0]), 2 + 5);
  r->stream = true;
  const MockCompletion streamed = mock_completion(*r, 5, 1'700'000'000);
  EXPECT_EQ(streamed.content_type, "text/event-stream");
  std::string text;
  std::vector<std::string> types;
  SseUsageScanner scan;
  for (const std::string& c : streamed.chunks) {
    scan.feed(c);
    const auto data = c.find("data: ");
    ASSERT_NE(data, std::string::npos) << c;
    const json event = json::parse(c.substr(data + 6));
    EXPECT_EQ(c.rfind("event: " + event.at("type").get<std::string>() + "\n", 0), 0u) << c;
    EXPECT_EQ(event.at("sequence_number"), types.size());
    types.push_back(event.at("type"));
    if (event.at("type") == "response.output_text.delta")
      text += event.at("delta").get<std::string>();
  }
  scan.finish();
  EXPECT_EQ(scan.total_tokens(), 2 + 5);  // from response.completed's response.usage
  EXPECT_EQ(types.front(), "response.created");
  EXPECT_EQ(types.back(), "response.completed");
  EXPECT_EQ(text, body.at("output")[0].at("content")[0].at("text"));
}

TEST(ChatGateway, MetricsCountHitsAdmittedTokensAndNeverTheRawKey) {
  Fixture f;
  int admitted = 0;
  int limited = 0;
  for (int i = 0; i < 6; ++i) {
    AdmitOutcome out = f.gateway.admit(req("Bearer sk-pro-secret-key-2", chat_body("small")));
    if (out.ticket) {
      ++admitted;
      f.gateway.complete(*out.ticket, UpstreamOutcome{UpstreamOutcome::Kind::answered, 200, 20});
    } else {
      ASSERT_EQ(out.response->status, 429);
      ++limited;
    }
  }
  ASSERT_EQ(admitted, 3);
  ASSERT_EQ(limited, 3);
  const std::string text = f.metrics.render();
  EXPECT_EQ(text.find("sk-pro-secret-key-2"), std::string::npos);
  const std::string hash = api_key_hash("sk-pro-secret-key-2");
  EXPECT_EQ(test::sum_samples(text, "gateway_rate_limit_hits_total"), 3);
  EXPECT_EQ(test::sum_samples(text, "gateway_token_bucket_usage_count"), 3);
  EXPECT_EQ(test::sum_samples(text, "limitscope_llm_tokens_total",
                              {{"tier", "free"}, {"model", "small"}}),
            60);
  EXPECT_EQ(test::sum_samples(text, "limitscope_requests_total", {{"decision", "allowed"}}), 3);
  EXPECT_EQ(test::first_label(text, "gateway_quota_burn_ratio", "api_key_hash"), hash);
  const double burn = test::sum_samples(text, "gateway_quota_burn_ratio", {{"api_key_hash", hash}});
  EXPECT_DOUBLE_EQ(burn, 3.0 / 100);  // 3 cost units of a 100-unit daily quota
}

TEST(BearerToken, Shapes) {
  EXPECT_EQ(bearer_token("Bearer abc"), "abc");
  EXPECT_EQ(bearer_token("bearer   abc  "), "abc");
  EXPECT_FALSE(bearer_token("Bearerabc").has_value());
  EXPECT_FALSE(bearer_token("Token abc").has_value());
}

}  // namespace
}  // namespace limitscope::gateway
