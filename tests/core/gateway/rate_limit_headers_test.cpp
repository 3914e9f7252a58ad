// Verifies the rate-limit headers: X-RateLimit-*, OpenAI's x-ratelimit-*-requests/-tokens
// (requests of the model, durations), the IETF RateLimit and RateLimit-Policy fields, and
// Retry-After in whole seconds and retry-after-ms, rounded up.

#include "core/gateway/rate_limit_headers.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace limitscope::gateway {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

TierPolicy tier_with_tokens() {
  TierPolicy t;
  t.name = "free";
  t.requests.capacity = 60;
  t.requests.refill = Rate::per_sec(1);
  LimitParams tokens;
  tokens.capacity = 1000;
  tokens.refill = Rate{1000, seconds(60)};
  t.llm_tokens = tokens;
  return t;
}

// An admission on `tier`; the test fills in the decisions.
AdmissionResult admitted_on(const TierPolicy& tier) {
  AdmissionResult r;
  r.allowed = true;
  r.tier = &tier;
  return r;
}

// The headers append_rate_limit_headers writes for `r`.
HttpHeaders headers_of(const AdmissionResult& r) {
  HttpHeaders h;
  append_rate_limit_headers(h, r);
  return h;
}

std::string header(const HttpHeaders& h, std::string_view name) {
  auto v = find_header(h, name);
  return v ? std::string(*v) : std::string("<absent>");
}

TEST(RateLimitHeaders, AllowedCarriesBothRulesAndNoRetryAfter) {
  const TierPolicy tier = tier_with_tokens();
  AdmissionResult r = admitted_on(tier);
  r.requests = Decision{true, 60, 52.7, std::nullopt, milliseconds(7300)};
  r.llm_tokens = Decision{true, 1000, 900, std::nullopt, milliseconds(6000)};
  const HttpHeaders h = headers_of(r);
  EXPECT_EQ(header(h, "X-RateLimit-Limit"), "60");
  EXPECT_EQ(header(h, "X-RateLimit-Remaining"), "52");
  EXPECT_EQ(header(h, "X-RateLimit-Reset"), "8");
  EXPECT_EQ(header(h, "X-RateLimit-Limit-Tokens"), "1000");
  EXPECT_EQ(header(h, "X-RateLimit-Remaining-Tokens"), "900");
  EXPECT_EQ(header(h, "X-RateLimit-Reset-Tokens"), "6s");  // OpenAI's x-ratelimit-reset-tokens
  EXPECT_EQ(header(h, "RateLimit-Policy"), "\"requests\";q=60;w=60, \"llm-tokens\";q=1000;w=60");
  EXPECT_EQ(header(h, "RateLimit"), "\"requests\";r=52;t=8, \"llm-tokens\";r=900;t=6");
  EXPECT_EQ(header(h, "Retry-After"), "<absent>");
}

// A capacity beyond int64 (1e30) printed X-RateLimit-Limit: -9223372036854775808.
TEST(RateLimitHeaders, CountsBeyondInt64AreWholeNumbersNotOverflow) {
  const TierPolicy tier = tier_with_tokens();
  AdmissionResult r = admitted_on(tier);
  r.requests = Decision{true, 1e30, 1e30, std::nullopt, milliseconds(0)};
  const HttpHeaders h = headers_of(r);
  EXPECT_EQ(header(h, "X-RateLimit-Limit"), "1000000000000000019884624838656");
  EXPECT_EQ(header(h, "X-RateLimit-Remaining"), "1000000000000000019884624838656");
}

TEST(OpenAiDuration, GoDurationFormToTheMillisecondRoundedUp) {
  struct Row {
    Nanos in;
    const char* out;
  };
  for (const Row& r : {Row{Nanos{0}, "0s"}, Row{Nanos{-3}, "0s"}, Row{Nanos{1}, "1ms"},
                       Row{milliseconds(734), "734ms"}, Row{milliseconds(999) + Nanos{1}, "1s"},
                       Row{seconds(1), "1s"}, Row{milliseconds(8640), "8.64s"},
                       Row{milliseconds(59'986), "59.986s"}, Row{milliseconds(1'050), "1.05s"},
                       Row{milliseconds(1'005), "1.005s"}, Row{seconds(360), "6m0s"},
                       Row{milliseconds(61'500), "1m1.5s"}, Row{seconds(3600), "1h0m0s"},
                       Row{milliseconds(3'723'500), "1h2m3.5s"}}) {
    EXPECT_EQ(openai_duration(r.in), r.out) << r.in.count();
  }
}

TEST(RateLimitHeaders, OpenAiNamesCountRequestsOfTheModelAndAgreeWithIetf) {
  const TierPolicy tier = tier_with_tokens();
  AdmissionResult r = admitted_on(tier);
  r.cost = 8;  // the model's weight: 60 cost units are 7 requests of it
  r.requests = Decision{true, 60, 52.7, std::nullopt, milliseconds(7300)};
  r.llm_tokens = Decision{true, 1000, 900, std::nullopt, milliseconds(360'000)};
  const HttpHeaders h = headers_of(r);
  EXPECT_EQ(header(h, "x-ratelimit-limit-requests"), "7");
  EXPECT_EQ(header(h, "x-ratelimit-remaining-requests"), "6");  // floor(52 / 8)
  EXPECT_EQ(header(h, "x-ratelimit-reset-requests"), "7.3s");   // IETF t=8: 7.3 s rounded up
  EXPECT_EQ(header(h, "x-ratelimit-limit-tokens"), "1000");
  EXPECT_EQ(header(h, "x-ratelimit-remaining-tokens"), "900");
  EXPECT_EQ(header(h, "x-ratelimit-reset-tokens"), "6m0s");
  EXPECT_EQ(header(h, "RateLimit"), "\"requests\";r=52;t=8, \"llm-tokens\";r=900;t=360");
  // Each header once: OpenAI's -tokens names are the X-RateLimit-*-Tokens ones (HTTP names
  // are case-insensitive), so they must not be sent twice with two formats.
  for (const char* name : {"x-ratelimit-limit-tokens", "x-ratelimit-remaining-tokens",
                           "x-ratelimit-reset-tokens", "x-ratelimit-limit-requests"}) {
    EXPECT_EQ(
        std::count_if(h.begin(), h.end(),
                      [&](const HttpHeader& x) { return find_header({x}, name).has_value(); }),
        1)
        << name;
  }
}

TEST(RateLimitHeaders, RetryAfterMsIsTheExactWaitRoundedUpToTheMillisecond) {
  const TierPolicy tier = tier_with_tokens();
  AdmissionResult r;
  r.tier = &tier;
  r.denied_by = DeniedBy::requests;
  r.requests = Decision{false, 60, 0.2, milliseconds(733) + Nanos{1}, seconds(60)};
  const HttpHeaders h = headers_of(r);
  EXPECT_EQ(header(h, "Retry-After"), "1");
  EXPECT_EQ(header(h, "retry-after-ms"), "734");
  HttpHeaders tiny;
  append_retry_after(tiny, Nanos{0});
  EXPECT_EQ(header(tiny, "Retry-After"), "1");
  EXPECT_EQ(header(tiny, "retry-after-ms"), "1");  // never 0: an immediate retry fails again
}

TEST(RateLimitHeaders, DeniedRetryAfterIsTheLongestWaitRoundedUp) {
  const TierPolicy tier = tier_with_tokens();
  AdmissionResult r;
  r.tier = &tier;
  r.denied_by = DeniedBy::requests;
  r.requests = Decision{false, 60, 0.2, milliseconds(800), seconds(60)};
  r.llm_tokens = Decision{false, 1000, 10, milliseconds(2100), seconds(59)};
  const HttpHeaders h = headers_of(r);
  EXPECT_EQ(header(h, "Retry-After"), "3");
  EXPECT_EQ(header(h, "retry-after-ms"), "2100");
  EXPECT_EQ(header(h, "X-RateLimit-Remaining"), "0");
  // A wait below a second still says 1: "0" would invite an immediate failing retry.
  r.llm_tokens.reset();
  r.requests.retry_after = Nanos{1};
  HttpHeaders h2;
  append_rate_limit_headers(h2, r);
  EXPECT_EQ(header(h2, "Retry-After"), "1");
  EXPECT_EQ(header(h2, "RateLimit-Policy"), "\"requests\";q=60;w=60");
}

TEST(RateLimitHeaders, NoRetryAfterWhenWaitingCannotHelp) {
  const TierPolicy tier = tier_with_tokens();
  AdmissionResult r;
  r.tier = &tier;
  r.denied_by = DeniedBy::llm_tokens;
  r.requests = Decision{true, 60, 50, std::nullopt, seconds(10)};
  r.llm_tokens = Decision{
      false, 1000, 1000, std::nullopt, Nanos{0}, Nanos{0}, DenyReason::cost_above_capacity};
  EXPECT_FALSE(retry_after_of(r).has_value());
  const HttpHeaders h = headers_of(r);
  EXPECT_EQ(header(h, "Retry-After"), "<absent>");
  EXPECT_EQ(header(h, "retry-after-ms"), "<absent>");
}

TEST(RateLimitHeaders, WindowAlgorithmsUseTheirWindow) {
  TierPolicy tier;
  tier.name = "team";
  tier.requests.algorithm = Algorithm::sliding_log;
  tier.requests.limit = 100;
  tier.requests.window = seconds(90);
  AdmissionResult r = admitted_on(tier);
  r.requests = Decision{true, 100, 40, std::nullopt, seconds(30)};
  const HttpHeaders h = headers_of(r);
  EXPECT_EQ(header(h, "RateLimit-Policy"), "\"requests\";q=100;w=90");
  EXPECT_EQ(header(h, "X-RateLimit-Limit-Tokens"), "<absent>");
}

}  // namespace
}  // namespace limitscope::gateway
