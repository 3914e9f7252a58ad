// Verifies the incident summary's Markdown: time range, each source with its down intervals,
// each fail-open interval with its unchecked admissions, the keys by 429s (by name, highest
// peak first, in a Markdown table) and the alerts grouped by rule as the alerts panel groups
// them (count, worst state, worst entity by its display name, never a raw label set).

#include "core/dashboard/incident_summary.h"

#include <gtest/gtest.h>

namespace limitscope {
namespace {

constexpr std::int64_t kT = 1'800'000'000'000;  // 2027-01-15 08:00:00 UTC

TEST(IncidentSummary, SaysSourcesProtectionKeysAndAlerts) {
  DashboardSnapshot s;
  s.view.start_ms = kT;
  s.view.end_ms = kT + 600'000;
  s.source = "redis: redis://127.0.0.1:6380 + metrics: http://127.0.0.1:8080/metrics";
  s.connection = "redis reconnecting, metrics connected";
  SourceStatus redis;
  redis.kind = "redis";
  redis.name = "redis: redis://127.0.0.1:6380";
  redis.down = true;
  redis.outages = {{kT + 60'000, kT + 90'000}, {kT + 300'000, std::nullopt}};
  SourceStatus metrics;
  metrics.kind = "metrics";
  metrics.name = "metrics: http://127.0.0.1:8080/metrics";
  s.sources = {redis, metrics};
  s.protection.unprotected = true;
  s.protection.since_ms = kT + 301'000;
  s.protection.admitted_unchecked = 2786;
  s.protection.intervals = {{kT + 61'000, kT + 91'000, 120}, {kT + 301'000, std::nullopt, 2786}};
  KeyRow calm;
  calm.api_key = "aaaaaaaaaaaa";
  calm.name = "quiet-co";
  calm.peak_rejected_per_s = 0;
  KeyRow loud;
  loud.api_key = "014badae33b80a3786c4b116e54d1c66";
  loud.name = "acme | prod";
  loud.tier = "gw-free";
  loud.model = "gpt-4.1";
  loud.limit = "requests";
  loud.capacity = 20;
  loud.level = 0.05;
  loud.peak_rejected_per_s = 14.5;
  loud.rejected_in_view = 812;
  KeyRow less = loud;
  less.api_key = "5bd139df16125e62afeeb517f183b6d8";
  less.name = "beta";
  less.peak_rejected_per_s = 2;
  less.rejected_in_view = 90;
  // The same key and model under its other limit: the same 429s, listed once, with the limit
  // that is lowest (the one refusing).
  KeyRow loud_tokens = loud;
  loud_tokens.limit = "llm_tokens";
  loud_tokens.level = 0.9;
  s.keys = {calm, loud_tokens, less, loud};
  AlertRow a;
  a.rule = "LimiterKeyNearlyEmpty";
  a.state = AlertState::no_data;
  a.since_ms = kT + 300'000;
  a.entity = "acme | prod";
  // Three alerts of one rule: a pending one (from /metrics) is worse than one without data;
  // a tier alert recorded without an entity is still named by its tier.
  const auto rejecting = [](AlertState st, std::int64_t since, std::string labels,
                            std::string entity) {
    AlertRow r;
    r.rule = "HighRateLimitRejection";
    r.state = st;
    r.since_ms = since;
    r.for_ms = 600'000;
    r.pending_ms = 31'000;
    r.labels = std::move(labels);
    r.entity = std::move(entity);
    return r;
  };
  s.alerts = {
      a, rejecting(AlertState::no_data, kT + 300'000, R"({model="", tier="gw-free"})", ""),
      rejecting(AlertState::pending, kT + 309'000, R"({model="gemini-2.5-flash", tier="free"})",
                "tier free · gemini-2.5-flash"),
      rejecting(AlertState::resolved, kT + 100'000, R"({tier="pro"})", "")};

  const std::string md = incident_summary_markdown(s, {20, "incident.png"});
  EXPECT_NE(md.find("**Time range:** 2027-01-15 08:00:00 – 08:10:00 UTC"), std::string::npos) << md;
  EXPECT_NE(md.find("![dashboard](incident.png)"), std::string::npos);
  EXPECT_NE(
      md.find(
          "- **redis** (redis: redis://127.0.0.1:6380): down since 08:05:00, no data; down earlier "
          "08:01:00–08:01:30"),
      std::string::npos)
      << md;
  EXPECT_NE(md.find("- **metrics** (metrics: http://127.0.0.1:8080/metrics): up"),
            std::string::npos);
  EXPECT_NE(
      md.find("- **failed open 08:01:01–08:01:31**: 120 request(s) admitted without a limit check"),
      std::string::npos)
      << md;
  EXPECT_NE(md.find("- **UNPROTECTED since 08:05:01**: 2786 request(s)"), std::string::npos) << md;
  const auto loud_at =
      md.find("| acme \\| prod | gw-free | gpt-4.1 (requests) | 14.5 | 812 | 5.0% |");
  const auto less_at = md.find("| beta | gw-free | gpt-4.1 (requests) | 2.0 | 90 | 5.0% |");
  ASSERT_NE(loud_at, std::string::npos) << md;
  ASSERT_NE(less_at, std::string::npos) << md;
  EXPECT_LT(loud_at, less_at) << "highest peak first";
  EXPECT_EQ(md.find("(llm_tokens)"), std::string::npos) << "one key's 429s listed twice:\n" << md;
  EXPECT_EQ(md.find("quiet-co"), std::string::npos) << "a key without 429s is not listed";
  EXPECT_NE(md.find("before redis went down at 08:01:00, 08:05:00 (up to one refresh interval) "
                    "were never read"),
            std::string::npos)
      << "the count's known gap is not said:\n"
      << md;
  EXPECT_NE(md.find("| LimiterKeyNearlyEmpty | 1 | no data | 08:05:00 | acme \\| prod |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| HighRateLimitRejection | 2 of 3 | pending 31s of 10m | 08:05:09 | tier free "
                    "· gemini-2.5-flash |"),
            std::string::npos)
      << "one line per rule, its worst alert (pending over no data) by name:\n"
      << md;
  EXPECT_EQ(md.find("{model="), std::string::npos) << "a raw label set in the summary:\n" << md;
  EXPECT_EQ(md.find("HighRateLimitRejection", md.find("HighRateLimitRejection") + 1),
            std::string::npos)
      << "the rule listed more than once:\n"
      << md;
}

TEST(IncidentSummary, SaysSoWhenNothingHappened) {
  DashboardSnapshot s;
  s.view.end_ms = kT;
  const std::string md = incident_summary_markdown(s);
  EXPECT_NE(md.find("No fail-open seen"), std::string::npos);
  EXPECT_NE(md.find("No key was refused"), std::string::npos);
  EXPECT_NE(md.find("No alert pending, firing or resolved"), std::string::npos);
  EXPECT_EQ(md.find("never read"), std::string::npos) << "no outage, no gap to mention";
}

}  // namespace
}  // namespace limitscope
