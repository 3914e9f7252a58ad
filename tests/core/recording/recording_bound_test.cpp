// Verifies the size bound of a live session's recording (docs/recording.md): with a row cap,
// step lines hold the first rows given and a key's series only the samples of the keys among
// the rows of the step at their time (a series of a key never among them is not defined); other
// series, and a key's samples written before their time's step (a request line between), are
// written whole; and a session of many more keys than the cap keeps every step and samples
// line within it, and reads back.

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "core/recording/recording_reader.h"
#include "core/recording/recording_writer.h"
#include "core/sources/session_state.h"
#include "support/json_lines.h"

namespace limitscope {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;

metrics::Labels level_of(const std::string& key) {
  return {
      {"__name__", "limitscope_key_level_ratio"}, {"api_key", key}, {"tier", "gw"}, {"model", ""}};
}

KeyRow row(const std::string& key, double level) {
  KeyRow r;
  r.api_key = key;
  r.tier = "gw";
  r.level = level;
  r.capacity = 60;
  return r;
}

TEST(RecordingBound, StepsHoldTheFirstRowsAndOnlyTheirKeysSamples) {
  ManualClock clock;
  std::stringbuf text;
  RecordingWriter w(std::make_unique<std::ostream>(&text), "mem", clock, 1s, 2);
  ASSERT_EQ(w.header({"test", 0, 0}), Status{});
  const metrics::Labels tier{{"__name__", "limitscope_tier_rejected_per_second"}, {"tier", "gw"}};
  ASSERT_EQ(w.sample(level_of("a"), {1000, 0.5}), Status{});
  ASSERT_EQ(w.sample(level_of("b"), {1000, 0.9}), Status{});
  ASSERT_EQ(w.sample(level_of("c"), {1000, 0.1}), Status{});
  ASSERT_EQ(w.sample(tier, {1000, 3}), Status{});
  ASSERT_EQ(w.alerts(1000, {}, {}),
            Status{});  // an alerts line of the same time: the keys' samples wait for the step
  ASSERT_EQ(w.step(1000, {row("c", 0.1), row("a", 0.5), row("b", 0.9)}, {}, 0), Status{});
  // b enters the rows; a request line before the step writes what was held, whoever it is of.
  ASSERT_EQ(w.sample(level_of("a"), {2000, 0.6}), Status{});
  ASSERT_EQ(w.sample(level_of("b"), {2000, 0.05}), Status{});
  DecisionRow d;
  d.api_key = "c";
  d.t_ns = 2'000'000'000;
  ASSERT_EQ(w.request(d), Status{});
  ASSERT_EQ(w.sample(level_of("c"), {2000, 0.2}), Status{});
  ASSERT_EQ(w.step(2000, {row("b", 0.05), row("c", 0.2), row("a", 0.6)}, {}, 0), Status{});
  ASSERT_EQ(w.finish(2000), Status{});

  std::map<std::int64_t, std::string> key_of_series;  // series id → its api_key ("" for none)
  std::vector<std::pair<std::int64_t, std::string>> written;  // (t, key) of every sample written
  std::vector<std::vector<std::string>> steps;
  std::map<std::int64_t, std::string> row_keys;  // key id → api_key
  for (const json& j : test::json_lines(text.str())) {
    const std::string type = j["type"];
    if (type == "series") {
      key_of_series[j["id"]] = j["labels"].value("api_key", "");
    } else if (type == "samples") {
      for (const auto& v : j["v"])
        written.emplace_back(j["t_ms"], key_of_series.at(v[0].get<std::int64_t>()));
    } else if (type == "key") {
      row_keys[j["id"]] = j["key"];
    } else if (type == "step") {
      std::vector<std::string> keys;
      for (const auto& k : j["keys"]) keys.push_back(row_keys.at(k[0].get<std::int64_t>()));
      steps.push_back(keys);
    }
  }
  ASSERT_EQ(steps.size(), 2u);
  EXPECT_EQ(steps[0], (std::vector<std::string>{"c", "a"}));
  EXPECT_EQ(steps[1], (std::vector<std::string>{"b", "c"}));
  const std::vector<std::pair<std::int64_t, std::string>> expected{
      {1000, ""},  {1000, "a"}, {1000, "c"},  // the tier's series whole; b left out
      {2000, "a"}, {2000, "b"},               // written by the request line (held, then due)
      {2000, "c"}};
  EXPECT_EQ(written, expected);
  EXPECT_EQ(key_of_series.size(), 4u) << "b's series is defined when its first sample is written";
}

// A live-like session: 2,000 keys, recorded with a cap of 100 rows over 30 refreshes while the
// keys under most pressure change at every refresh.
TEST(RecordingBound, ASessionOfManyKeysStaysWithinTheCap) {
  constexpr std::size_t kKeys = 2000, kCap = 100;
  SessionOptions so;
  so.recording_rows = kCap;
  auto session = SessionState::create(so);
  ASSERT_TRUE(session.ok()) << session.error();
  SessionState& s = **session;
  std::vector<KeyRow> rows;
  s.set_key_rows([&] { return rows; });
  ManualClock clock;
  std::stringbuf text;  // outlives the writer, which owns only the stream over it
  const std::int64_t start = 1'700'000'000'000;
  ASSERT_EQ(s.start_recording(std::make_unique<std::ostream>(&text), "mem", "test", start, clock),
            Status{});
  for (int r = 1; r <= 30; ++r) {
    const std::int64_t t = start + r * 1000;
    rows.clear();
    for (std::size_t i = 0; i < kKeys; ++i) {
      const std::string key = "k" + std::to_string(i);
      // A different tenth of the keys is nearly empty at each refresh.
      const double level = (i + static_cast<std::size_t>(r) * 97) % 10 == 0
                               ? 0.01 * static_cast<double>(i % 7)
                               : 0.8;
      s.append(level_of(key), {t, level});
      rows.push_back(row(key, level));
    }
    std::stable_sort(rows.begin(), rows.end(),
                     [](const KeyRow& a, const KeyRow& b) { return a.level < b.level; });
    (void)s.evaluate(t);
    s.refreshed(t);
  }
  ASSERT_EQ(s.stop_recording(start + 31'000), Status{});

  std::istringstream in(text.str());
  const RecordingLoad load = read_recording(in, "mem");
  ASSERT_TRUE(load.error.empty()) << load.error;
  ASSERT_EQ(load.recording.steps.size(), 31u);
  std::map<std::int64_t, std::set<std::string>> rows_at;  // step time → its keys
  for (const RecordedStep& st : load.recording.steps) {
    EXPECT_LE(st.keys.size(), kCap);
    for (const auto& k : st.keys) rows_at[st.t_ms].insert(load.recording.keys[k.id].api_key);
  }
  std::size_t key_samples = 0;
  for (const RecordedSamples& line : load.recording.samples) {
    for (const auto& [id, v] : line.values) {
      const std::string key(load.recording.series[id].get("api_key"));
      ++key_samples;
      EXPECT_EQ(rows_at[line.t_ms].count(key), 1u)
          << key << " at " << line.t_ms << " is not among that step's rows";
    }
  }
  EXPECT_LE(key_samples, kCap * 31);
  EXPECT_GE(key_samples, kCap * 30) << "the keys of the rows keep their samples";
  EXPECT_GT(load.recording.series.size(), kCap)
      << "the rows changed: more keys than the cap were recorded over time";
  EXPECT_LT(load.recording.series.size(), kKeys);
}

}  // namespace
}  // namespace limitscope
