// Verifies that trace times keep their nanoseconds end to end: a trace whose times are exact
// in binary (epoch + k/512 s) but not whole microseconds loads from JSON lines, CSV and a
// session recording to the nanosecond, and replay and the sweep decide it exactly as an
// independent token bucket in integer nanoseconds does, where rounding to µs would not.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <numeric>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "core/common/clock.h"
#include "core/recording/recording_reader.h"
#include "core/recording/recording_writer.h"
#include "core/trace/trace.h"
#include "core/tuner/replay.h"
#include "core/tuner/sweep.h"
#include "core/tuner/trace_sources.h"
#include "support/limit_params_builders.h"

namespace limitscope::tuner {
namespace {

constexpr std::int64_t kEpochNs = 1'700'000'000'000'000'000;  // 2023-11-14, as a live trace has
constexpr std::int64_t kUnit = 1'953'125;    // 2^-9 s: exact in binary, 1953.125 µs
constexpr std::int64_t kPeriod = 4 * kUnit;  // one token per 1/128 s
constexpr double kPerSecond = 128;

struct Event {
  std::int64_t t_ns;
  int key;
  int cost;
};

std::vector<Event> make_events(std::uint64_t seed, int n) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> gap(0, 3);  // in units
  std::uniform_int_distribution<int> key(0, 2);
  std::uniform_int_distribution<int> cost(1, 2);
  std::vector<Event> out;
  std::int64_t t = kEpochNs + 7;  // not even a whole unit: only the text can say so
  for (int i = 0; i < n; ++i) {
    t += gap(rng) * kUnit;
    out.push_back({t, key(rng), cost(rng)});
  }
  return out;
}

// The oracle: a token bucket kept as credit in integer ns (tokens × period), refilled by the
// time since the key's previous request and capped at capacity × period.
std::vector<bool> oracle(const std::vector<Event>& events, std::int64_t capacity) {
  struct Bucket {
    bool seen = false;
    std::int64_t credit = 0;
    std::int64_t last = 0;
  };
  std::vector<Bucket> buckets(3);
  std::vector<bool> out;
  for (const Event& e : events) {
    Bucket& b = buckets[static_cast<std::size_t>(e.key)];
    if (!b.seen) b = {true, capacity * kPeriod, e.t_ns};
    b.credit = std::min(capacity * kPeriod, b.credit + (e.t_ns - b.last));
    b.last = e.t_ns;
    const bool ok = b.credit >= e.cost * kPeriod;
    if (ok) b.credit -= e.cost * kPeriod;
    out.push_back(ok);
  }
  return out;
}

std::string seconds_text(std::int64_t ns) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%lld.%09lld", static_cast<long long>(ns / 1'000'000'000),
                static_cast<long long>(ns % 1'000'000'000));
  return buf;
}

LimitParams params(double capacity) {
  return test::bucket(Algorithm::token_bucket, capacity, 1, Nanos{kPeriod});
}

class ExactTraceTimes : public ::testing::Test {
 protected:
  void SetUp() override {
    events_ = make_events(18, 20000);
    std::ostringstream jsonl;
    std::ostringstream csv;
    csv << "key,t,cost\n";
    for (const Event& e : events_) {
      jsonl << R"({"t":)" << seconds_text(e.t_ns) << R"(,"key":"k)" << e.key << R"(","cost":)"
            << e.cost << "}\n";
      csv << 'k' << e.key << ',' << seconds_text(e.t_ns) << ',' << e.cost << '\n';
    }
    jsonl_ = jsonl.str();
    csv_ = csv.str();
  }

  void expect_times(const trace::Trace& trace) const {
    ASSERT_EQ(trace.events.size(), events_.size());
    for (std::size_t i = 0; i < events_.size(); ++i) {
      ASSERT_EQ(trace.events[i].t_ns, events_[i].t_ns) << "event " << i;
    }
  }

  void expect_replay_equals_oracle(const trace::Trace& trace) const {
    for (const std::int64_t capacity : {2, 3, 4}) {
      const auto replayed = replay_decisions(trace, params(static_cast<double>(capacity)));
      ASSERT_TRUE(replayed.ok()) << replayed.error();
      EXPECT_EQ(*replayed, oracle(events_, capacity)) << "capacity " << capacity;
    }
  }

  std::vector<Event> events_;
  std::string jsonl_;
  std::string csv_;
};

TEST_F(ExactTraceTimes, RoundingToMicrosecondsWouldChangeDecisions) {
  // The trace must be able to tell: the same oracle on µs-rounded times decides differently.
  std::vector<Event> rounded = events_;
  for (Event& e : rounded) e.t_ns = (e.t_ns + 500) / 1000 * 1000;
  for (const std::int64_t capacity : {2, 3, 4}) {
    const auto exact = oracle(events_, capacity);
    const auto coarse = oracle(rounded, capacity);
    const auto differ = std::inner_product(exact.begin(), exact.end(), coarse.begin(), 0,
                                           std::plus<>(), std::not_equal_to<>());
    EXPECT_GT(differ, 100) << "capacity " << capacity;
  }
}

TEST_F(ExactTraceTimes, JsonLinesAndCsvLoadToTheNanosecondAndReplayExactly) {
  std::istringstream jsonl(jsonl_);
  const trace::TraceLoad a = trace::parse_trace_jsonl(jsonl);
  ASSERT_EQ(a.error_count, 0u) << a.errors.front().message;
  expect_times(a.trace);
  expect_replay_equals_oracle(a.trace);

  std::istringstream csv(csv_);
  const trace::TraceLoad b = trace::parse_trace_csv(csv);
  ASSERT_EQ(b.error_count, 0u) << b.errors.front().message;
  expect_times(b.trace);
  expect_replay_equals_oracle(b.trace);
}

TEST_F(ExactTraceTimes, SweepCellsEqualTheOracle) {
  std::istringstream jsonl(jsonl_);
  const trace::TraceLoad load = trace::parse_trace_jsonl(jsonl);
  ASSERT_EQ(load.error_count, 0u);
  SweepSpec spec;
  spec.base = params(1);
  spec.x = {2, 4, 3, Spacing::linear};  // capacities 2, 3, 4 as the oracle has them
  spec.y = {kPerSecond, kPerSecond, 1};
  auto result = sweep(load.trace, spec);
  ASSERT_TRUE(result.ok()) << result.error();
  EXPECT_TRUE(result->fast_path);
  ASSERT_EQ(result->cells.size(), 3u);
  for (const SweepCell& cell : result->cells) {
    const auto want = oracle(events_, static_cast<std::int64_t>(cell.x));
    EXPECT_EQ(cell.total.admitted,
              static_cast<std::uint64_t>(std::count(want.begin(), want.end(), true)))
        << "capacity " << cell.x;
  }
}

TEST_F(ExactTraceTimes, RecordingRequestLinesKeepNanoseconds) {
  ManualClock clock;
  std::stringbuf text;  // outlives the writer, which owns only the stream over it
  {
    RecordingWriter w(std::make_unique<std::ostream>(&text), "mem", clock);
    ASSERT_EQ(w.header({"test", kEpochNs / 1'000'000, kEpochNs / 1'000'000}), Status{});
    for (const Event& e : events_) {
      DecisionRow d;
      d.t_ns = e.t_ns;
      d.api_key = "k" + std::to_string(e.key);
      d.cost = e.cost;
      d.allowed = true;
      ASSERT_EQ(w.request(d), Status{});
    }
    ASSERT_EQ(w.finish(events_.back().t_ns / 1'000'000 + 1), Status{});
  }
  std::istringstream in(text.str());
  const RecordingLoad rec = read_recording(in, "mem");
  ASSERT_TRUE(rec.error.empty()) << rec.error;
  auto load = trace_from_recording(rec.recording, rec.error);
  ASSERT_TRUE(load.ok()) << load.error();
  expect_times(load->trace);
  expect_replay_equals_oracle(load->trace);
}

TEST(RecordingTimes, OldSixDecimalLinesStillReadExactly) {
  std::istringstream in(
      R"({"type":"header","format":"limitscope-recording","version":1,"source":"old","start_ms":1700000000000,"recording_started_ms":1700000000000})"
      "\n"
      R"({"type":"request","t":1700000000.001953,"key":"a","cost":1,"model":"","tier":"","allowed":true,"remaining":0,"attempt":0,"spend":0})"
      "\n"
      R"({"type":"request","t":1700000000.001953125,"key":"a","cost":1,"model":"","tier":"","allowed":true,"remaining":0,"attempt":0,"spend":0})"
      "\n");
  const RecordingLoad rec = read_recording(in, "old.jsonl");
  ASSERT_TRUE(rec.error.empty()) << rec.error;
  ASSERT_EQ(rec.recording.requests.size(), 2u);
  EXPECT_EQ(rec.recording.requests[0].t_ns, 1'700'000'000'001'953'000);
  EXPECT_EQ(rec.recording.requests[1].t_ns, 1'700'000'000'001'953'125);
}

}  // namespace
}  // namespace limitscope::tuner
