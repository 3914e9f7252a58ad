// Verifies the recording's lines (header, series before samples, request lines usable as
// tuner trace lines, alerts written only on change, a key's shard written only when it has one
// and read back into playback) and that the writer flushes at least once per interval of its
// clock, so a crash loses at most that much.

#include "core/recording/recording_writer.h"

#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/sources/embedded_simulation_source.h"
#include "core/sources/playback_source.h"
#include "support/json_lines.h"
#include "support/recording_fixture.h"

namespace limitscope {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;

// A stream buffer that shows only what was flushed (sync), like a file after a crash.
class FlushedOnly : public std::streambuf {
 public:
  std::string flushed;

 protected:
  int_type overflow(int_type c) override {
    if (c != traits_type::eof()) pending_ += static_cast<char>(c);
    return traits_type::not_eof(c);
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    pending_.append(s, static_cast<std::size_t>(n));
    return n;
  }
  int sync() override {
    flushed += pending_;
    pending_.clear();
    return 0;
  }

 private:
  std::string pending_;
};

TEST(RecordingWriter, FlushesAtLeastOncePerInterval) {
  ManualClock clock;
  FlushedOnly buf;
  auto out = std::make_unique<std::ostream>(&buf);
  RecordingWriter w(std::move(out), "mem", clock, 1s);
  ASSERT_EQ(w.header({"test", 0, 0}), Status{});
  EXPECT_EQ(buf.flushed, "");  // written, not yet flushed
  clock.advance(999ms);
  ASSERT_EQ(w.flush_if_due(), Status{});
  EXPECT_EQ(buf.flushed, "");
  clock.advance(1ms);
  ASSERT_EQ(w.flush_if_due(), Status{});  // the worker's tick, even with nothing new written
  EXPECT_EQ(test::json_lines(buf.flushed).size(), 1u);
  DecisionRow d;
  d.api_key = "k";
  d.t_ns = 1'000'000'000;
  ASSERT_EQ(w.request(d), Status{});
  clock.advance(1s);
  ASSERT_EQ(w.request(d), Status{});  // a write after the interval flushes both
  EXPECT_EQ(test::json_lines(buf.flushed).size(), 3u);
  EXPECT_EQ(w.finish(2000), Status{});
  EXPECT_EQ(test::json_lines(buf.flushed).back()["type"], "end");
}

TEST(RecordingWriter, RequestLinesCarryTheTraceFields) {
  ManualClock clock;
  auto text = std::make_unique<std::ostringstream>();
  std::ostringstream* view = text.get();
  RecordingWriter w(std::move(text), "mem", clock);
  DecisionRow d;
  d.t_ns = 1'700'049'600'123'456'789;
  d.api_key = "acme \"prod\"";
  d.tier = "pro";
  d.model = "gpt-4.1";
  d.cost = 2;
  d.allowed = false;
  d.reason = "exhausted";
  d.remaining = 0.5;
  d.retry_after_s = 0.25;
  ASSERT_EQ(w.request(d), Status{});
  const json j = json::parse(view->str());
  EXPECT_EQ(j["type"], "request");
  EXPECT_EQ(j["t"].get<double>(), 1700049600.123456789);
  EXPECT_EQ(j["key"], "acme \"prod\"");
  EXPECT_EQ(j["cost"], 2);
  EXPECT_EQ(j["model"], "gpt-4.1");
  EXPECT_EQ(j["tier"], "pro");
  EXPECT_EQ(j["allowed"], false);
  EXPECT_EQ(j["reason"], "exhausted");
  EXPECT_EQ(j["retry_after"], 0.25);
  EXPECT_EQ(view->str().rfind("{\"type\":\"request\",\"t\":1700049600.123456789,\"key\":", 0), 0u);
}

TEST(RecordingWriter, SessionLinesAreOrderedAndAlertsWrittenOnChange) {
  auto src = test::make_recorded_source();
  ASSERT_NE(src, nullptr);
  src->advance(30s);  // history before the recording starts
  ManualClock clock;
  std::stringbuf text;  // outlives the writer, which owns only the stream over it
  ASSERT_EQ(src->start_recording(std::make_unique<std::ostream>(&text), "mem", clock), Status{});
  src->advance(60s);
  ASSERT_EQ(src->stop_recording(), Status{});
  const auto lines = test::json_lines(text.str());
  ASSERT_GT(lines.size(), 100u);
  EXPECT_EQ(lines.front()["type"], "header");
  EXPECT_EQ(lines.front()["version"], kRecordingVersion);
  EXPECT_EQ(lines.front()["recording_started_ms"], src->start_ms() + 30'000);
  EXPECT_EQ(lines.back()["type"], "end");
  std::size_t series = 0, requests = 0, steps = 0, alerts = 0, history_samples = 0;
  double last_ms = 0;
  for (const json& j : lines) {
    const std::string type = j["type"];
    if (type == "series") {
      EXPECT_EQ(j["id"], series);  // defined before use, in order
      ++series;
    }
    double t = -1;
    if (j.contains("t_ms")) t = j["t_ms"].get<double>();
    if (type == "request") {
      t = j["t"].get<double>() * 1000;
      ++requests;
    }
    if (type == "samples" && j["t_ms"].get<std::int64_t>() <= src->start_ms() + 30'000)
      ++history_samples;
    if (type == "step") ++steps;
    if (type == "alerts") ++alerts;
    if (t >= 0) {
      EXPECT_GE(t, last_ms) << j.dump();
      last_ms = t;
    }
  }
  EXPECT_EQ(history_samples, 30u);  // one samples line per second of history
  EXPECT_EQ(steps, 61u);            // the key table at the start, then one per step
  EXPECT_GT(requests, 100u);
  // Evaluated every 15 s, but written only when rows or bands changed.
  EXPECT_GE(alerts, 1u);
  EXPECT_LE(alerts, 6u);
}

KeyRow key_row(std::string api_key, std::string tier, std::string node, double level) {
  KeyRow k;
  k.api_key = std::move(api_key);
  k.tier = std::move(tier);
  k.algorithm = "token-bucket";
  k.parameters = "5 per 1h";
  k.capacity = 5;
  k.level = level;
  k.node = std::move(node);
  return k;
}

TEST(RecordingWriter, AKeysShardIsWrittenWhenItHasOneAndPlaysBack) {
  ManualClock clock;
  std::stringbuf text;
  {
    RecordingWriter w(std::make_unique<std::ostream>(&text), "mem", clock);
    ASSERT_EQ(w.header({"redis: redis+cluster://127.0.0.1:7000", 1000, 1000}), Status{});
    ASSERT_EQ(w.step(1000,
                     {key_row("alice", "live-0", "127.0.0.1:7001", 0.6),
                      key_row("bob", "plain", "", 0.2)},
                     {}, 0),
              Status{});
    // The slot moved: the same key on another shard is a new definition.
    ASSERT_EQ(w.step(2000,
                     {key_row("alice", "live-0", "127.0.0.1:7002", 0.4),
                      key_row("bob", "plain", "", 0.2)},
                     {}, 0),
              Status{});
    ASSERT_EQ(w.finish(2000), Status{});
  }
  const std::vector<json> keys = test::json_lines_of_type(text.str(), "key");
  ASSERT_EQ(keys.size(), 3u);
  EXPECT_EQ(keys[0]["node"], "127.0.0.1:7001");
  EXPECT_FALSE(keys[1].contains("node")) << "no shard, no field: " << keys[1].dump();
  EXPECT_EQ(keys[2]["node"], "127.0.0.1:7002");
  EXPECT_EQ(keys[2]["key"], "alice");

  std::istringstream in(text.str());
  auto played = PlaybackSource::read(in, "mem");
  ASSERT_TRUE(played.ok()) << played.error();
  EXPECT_EQ((*played)->load_error(), "");
  ASSERT_EQ((*played)->recording().keys.size(), 3u);
  EXPECT_EQ((*played)->recording().keys[0].node, "127.0.0.1:7001");
  EXPECT_EQ((*played)->recording().keys[1].node, "");
  std::map<std::string, std::string> node_of;
  (*played)->seek(1000);
  for (const KeyRow& k : (*played)->snapshot(ChartView{0, 1000, 100, 8, {}}).keys)
    node_of[k.api_key] = k.node;
  EXPECT_EQ(node_of,
            (std::map<std::string, std::string>{{"alice", "127.0.0.1:7001"}, {"bob", ""}}));
  (*played)->seek(2000);
  for (const KeyRow& k : (*played)->snapshot(ChartView{0, 2000, 100, 8, {}}).keys)
    node_of[k.api_key] = k.node;
  EXPECT_EQ(node_of["alice"], "127.0.0.1:7002");
  EXPECT_EQ(node_of["bob"], "");
}

// Names are in recordings as in the live table: a key line carries its name, an alert its
// entity, and playback shows both.
TEST(RecordingWriter, AKeysNameAndAnAlertsEntityAreWrittenAndPlayBack) {
  ManualClock clock;
  std::stringbuf text;
  {
    RecordingWriter w(std::make_unique<std::ostream>(&text), "mem", clock);
    ASSERT_EQ(w.header({"redis: redis://127.0.0.1:6379", 1000, 1000}), Status{});
    KeyRow named = key_row("0123456789abcdef0123456789abcdef", "gw-free", "", 0.3);
    named.name = "acme-prod";
    KeyRow plain = key_row("bob", "plain", "", 0.2);
    plain.name = "bob";  // no name of its own: no field
    ASSERT_EQ(w.step(1000, {named, plain}, {}, 0), Status{});
    AlertRow a;
    a.rule = "QuotaBurnAnomaly";
    a.state = AlertState::firing;
    a.since_ms = 1000;
    a.entity = "acme-prod";
    a.summary = "API key acme-prod has spent 93% of its daily quota";
    ASSERT_EQ(w.alerts(1000, {a}, {}), Status{});
    ASSERT_EQ(w.finish(1000), Status{});
  }
  const std::vector<json> keys = test::json_lines_of_type(text.str(), "key");
  ASSERT_EQ(keys.size(), 2u);
  EXPECT_EQ(keys[0]["name"], "acme-prod");
  EXPECT_FALSE(keys[1].contains("name")) << keys[1].dump();
  std::istringstream in(text.str());
  auto played = PlaybackSource::read(in, "mem");
  ASSERT_TRUE(played.ok()) << played.error();
  EXPECT_EQ((*played)->recording().keys[0].name, "acme-prod");
  (*played)->seek(1000);
  const DashboardSnapshot snap = (*played)->snapshot(ChartView{0, 1000, 100, 8, {}});
  ASSERT_EQ(snap.keys.size(), 2u);
  EXPECT_EQ(snap.keys[0].name, "acme-prod");
  ASSERT_EQ(snap.alerts.size(), 1u);
  EXPECT_EQ(snap.alerts[0].entity, "acme-prod");
}

}  // namespace
}  // namespace limitscope
