// Verifies traces from the dashboard's sources: a simulation scenario gives every decided
// request in time order, the same for the same seed, cancellable and capped; a recording's
// request lines become a time-ordered trace and its load error is kept beside them.
#include "core/tuner/trace_sources.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "core/limiter/policy.h"
#include "core/recording/recording_reader.h"
#include "core/tuner/pricing.h"
#include "core/tuner/replay.h"
#include "support/limit_params_builders.h"

namespace limitscope::tuner {
namespace {

TEST(TraceSources, ScenarioGivesEveryRequestInTimeOrder) {
  ScenarioTraceOptions o;
  o.scenario = "steady";
  o.duration = std::chrono::seconds(20);
  double last = -1;
  const auto a = trace_from_scenario(o, nullptr, [&](double f) { last = f; });
  ASSERT_TRUE(a.ok()) << a.error();
  ASSERT_GT(a->events.size(), 10u);
  EXPECT_TRUE(std::is_sorted(
      a->events.begin(), a->events.end(),
      [](const trace::TraceEvent& x, const trace::TraceEvent& y) { return x.t_ns < y.t_ns; }));
  EXPECT_EQ(last, 1.0);
  const auto b = trace_from_scenario(o);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(a->events.size(), b->events.size());
  EXPECT_EQ(a->keys, b->keys);

  o.max_events = 5;
  const auto capped = trace_from_scenario(o);
  ASSERT_FALSE(capped.ok());
  EXPECT_NE(capped.error().find("more than 5 requests"), std::string::npos);
  std::atomic<bool> cancel{true};
  EXPECT_EQ(trace_from_scenario(o, &cancel).error(), "cancelled");
  o.scenario = "nope";
  EXPECT_FALSE(trace_from_scenario(o).ok());
}

TEST(TraceSources, RecordingRequestsSortedWithTheLoadError) {
  Recording r;
  r.names = {"", "alice", "free", "gpt-4.1"};
  r.requests.push_back({.t_ns = 3'000'000'000, .key = 1, .tier = 2, .model = 3, .cost = 8});
  r.requests.push_back({.t_ns = 1'000'000'000, .key = 1, .tier = 2, .model = 3, .cost = 8});
  r.requests.push_back({.t_ns = 2'000'000'000, .key = 1, .tier = 0, .model = 0, .cost = 0});
  const auto load = trace_from_recording(r, "rec.jsonl:9: unknown line type \"x\"");
  ASSERT_TRUE(load.ok());
  ASSERT_EQ(load->trace.events.size(), 3u);
  EXPECT_EQ(load->trace.events[0].t_ns, 1'000'000'000);
  EXPECT_EQ(load->trace.events[2].t_ns, 3'000'000'000);
  EXPECT_EQ(load->trace.events[1].cost, 1);  // no recorded cost counts as 1
  EXPECT_EQ(load->trace.keys, std::vector<std::string>{"alice"});
  EXPECT_EQ(load->error_count, 1u);
  EXPECT_FALSE(trace_from_recording(r, "", 2).ok());
}

// A request line without llm_tokens (a live source that had none) is unknown, so unpriced,
// not free; a line with them prices; a negative count is a bad line.
TEST(TraceSources, RecordingLinesWithoutTokensAreUnpricedNotFree) {
  const std::string head =
      R"({"type":"header","format":"limitscope-recording","version":1,"source":"t","start_ms":0,"recording_started_ms":0})"
      "\n";
  std::istringstream in(
      head +
      R"({"type":"request","t":1,"key":"a","cost":1,"model":"gpt-4.1","tier":"free","allowed":true,"llm_tokens":1000})"
      "\n"
      R"({"type":"request","t":2,"key":"a","cost":1,"model":"gpt-4.1","tier":"free","allowed":true})"
      "\n");
  const RecordingLoad rec = read_recording(in, "rec.jsonl");
  ASSERT_TRUE(rec.error.empty()) << rec.error;
  ASSERT_EQ(rec.recording.requests.size(), 2u);
  EXPECT_EQ(rec.recording.requests[1].llm_tokens, -1);
  EXPECT_EQ(rec.recording.decision(rec.recording.requests[1]).llm_tokens, -1);
  const auto load = trace_from_recording(rec.recording, "");
  ASSERT_TRUE(load.ok());
  EXPECT_EQ(load->trace.tokens_of(0), 1000u);
  EXPECT_FALSE(load->trace.tokens_of(1).has_value());
  const PricingOptions pricing{&default_policy(), std::nullopt};
  ReplayOptions ro;
  ro.pricing = &pricing;
  auto r = replay(load->trace, test::bucket(Algorithm::token_bucket, 10, 1), ro);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->total.admitted, 2u);
  EXPECT_EQ(r->spend.unpriced_requests, 1u);
  EXPECT_DOUBLE_EQ(r->total.admitted_spend, 1000 * 8 / 1e6);

  std::istringstream bad(
      head +
      R"({"type":"request","t":1,"key":"a","cost":1,"model":"m","tier":"free","allowed":true,"llm_tokens":-4})"
      "\n");
  const RecordingLoad refused = read_recording(bad, "bad.jsonl");
  EXPECT_NE(refused.error.find("bad.jsonl:2"), std::string::npos) << refused.error;
  EXPECT_NE(refused.error.find("llm_tokens"), std::string::npos) << refused.error;
}

}  // namespace
}  // namespace limitscope::tuner
