// Verifies that bad recordings give an error naming the file and line, that a bad line keeps
// everything loaded before it (and never crashes), that a bad or missing header refuses
// the file, and that key lines with and without the optional shard ("node") both read.

#include "core/recording/recording_reader.h"

#include <gtest/gtest.h>

#include <sstream>

#include "core/sources/playback_source.h"

namespace limitscope {
namespace {

const std::string kGood =
    "{\"type\":\"header\",\"format\":\"limitscope-recording\",\"version\":1,\"source\":\"s\","
    "\"start_ms\":0,"
    "\"recording_started_ms\":0}\n"
    "{\"type\":\"series\",\"id\":0,\"labels\":{\"__name__\":\"limitscope_rejected_ratio\"}}\n"
    "{\"type\":\"samples\",\"t_ms\":1000,\"v\":[[0,1.5]]}\n"
    "{\"type\":\"samples\",\"t_ms\":2000,\"v\":[[0,\"NaN\"]]}\n";

struct BadLine {
  const char* name;
  std::string line;  // line 5, after the good part
  const char* error;
};

class BadRecording : public ::testing::TestWithParam<BadLine> {};

TEST_P(BadRecording, NamesFileAndLineAndKeepsWhatCameBefore) {
  std::istringstream in(kGood + GetParam().line);
  auto p = PlaybackSource::read(in, "session.jsonl");
  ASSERT_TRUE(p.ok()) << p.error();
  EXPECT_EQ((*p)->load_error().rfind(std::string("session.jsonl:5: ") + GetParam().error, 0), 0u)
      << (*p)->load_error();
  EXPECT_EQ((*p)->store().sample_count(), 2u);
  EXPECT_EQ((*p)->end_ms(), 2000);
  EXPECT_EQ((*p)->snapshot(ChartView{0, 2000, 100, 8, {}}).last_error, (*p)->load_error());
}

INSTANTIATE_TEST_SUITE_P(
    Lines, BadRecording,
    ::testing::Values(
        BadLine{"BadJson", "{\"type\":\"samples\",\n{\"type\":\"end\",\"t_ms\":5000}\n",
                "bad JSON at column"},
        BadLine{"TruncatedLastLine", "{\"type\":\"samples\",\"t_ms\":3000,\"v\":[[0",
                "truncated last line"},
        BadLine{"TimeGoesBack", "{\"type\":\"samples\",\"t_ms\":1500,\"v\":[[0,1]]}\n",
                "time goes back"},
        BadLine{"RequestTimeGoesBack",
                "{\"type\":\"request\",\"t\":1.0,\"key\":\"k\",\"cost\":1,\"allowed\":true}\n",
                "time goes back"},
        BadLine{"UnknownSeries", "{\"type\":\"samples\",\"t_ms\":3000,\"v\":[[7,1]]}\n",
                "samples line: unknown series id 7"},
        BadLine{"UnknownType", "{\"type\":\"gossip\"}\n", "unknown line type \"gossip\""},
        BadLine{"MissingField", "{\"type\":\"samples\",\"v\":[]}\n",
                "samples line: missing \"t_ms\""},
        BadLine{"WrongShape",
                "{\"type\":\"step\",\"t_ms\":3000,\"keys\":[[0]],\"incidents\":[],\"dropped_"
                "samples\":0}\n",
                "step line: each key must be"},
        BadLine{"NodeNotAString",
                "{\"type\":\"key\",\"id\":0,\"key\":\"k\",\"model\":\"\",\"tier\":\"t\","
                "\"algorithm\":\"a\",\"parameters\":\"p\",\"capacity\":1,\"node\":7}\n",
                "key line: \"node\" must be a string"},
        BadLine{"NotAnObject", "[1,2]\n", "expected a JSON object"}),
    [](const auto& row) { return std::string(row.param.name); });

TEST(RecordingReader, LineNumberOfALaterBadLineCountsBlankLines) {
  std::istringstream in(kGood + "\n{\"type\":\"samples\",\"t_ms\":3000,\"v\":[[0,2]]}\n{oops}\n");
  const RecordingLoad load = read_recording(in, "r.jsonl");
  EXPECT_EQ(load.error.rfind("r.jsonl:7: bad JSON", 0), 0u) << load.error;
  EXPECT_EQ(load.recording.samples.size(), 3u);
}

TEST(RecordingReader, NothingAfterTheEndLine) {
  std::istringstream in(
      kGood + "{\"type\":\"end\",\"t_ms\":3000}\n{\"type\":\"samples\",\"t_ms\":4000,\"v\":[]}\n");
  const RecordingLoad load = read_recording(in, "r.jsonl");
  EXPECT_EQ(load.error, "r.jsonl:6: a samples line after the end line");
  EXPECT_EQ(load.recording.end_ms, 3000);
}

struct BadHeader {
  const char* name;
  std::string text;
  const char* error;
};

class BadRecordingHeader : public ::testing::TestWithParam<BadHeader> {};

TEST_P(BadRecordingHeader, RefusesTheFile) {
  std::istringstream in(GetParam().text);
  auto p = PlaybackSource::read(in, "session.jsonl");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().rfind(std::string("session.jsonl:1: ") + GetParam().error, 0), 0u)
      << p.error();
}

INSTANTIATE_TEST_SUITE_P(
    Headers, BadRecordingHeader,
    ::testing::Values(BadHeader{"UnknownVersion",
                                "{\"type\":\"header\",\"format\":\"limitscope-recording\","
                                "\"version\":2,\"source\":\"s\"}\n",
                                "unknown recording version 2 (this build reads version 1)"},
                      BadHeader{"NotARecording", "{\"t\":1.5,\"key\":\"k\",\"cost\":1}\n",
                                "not a limitscope recording"},
                      BadHeader{"Empty", "", "empty recording"},
                      BadHeader{"Binary", std::string("\x89PNG\r\n\x1a\n", 8), "bad JSON"}),
    [](const auto& row) { return std::string(row.param.name); });

// A key line as recordings before the shard field wrote it, then one with a shard.
TEST(RecordingReader, KeyLinesWithAndWithoutAShard) {
  std::istringstream in(
      kGood +
      "{\"type\":\"key\",\"id\":0,\"key\":\"alice\",\"model\":\"gpt-4.1\",\"tier\":\"pro\","
      "\"algorithm\":\"token-bucket\",\"parameters\":\"5 per 1h\",\"capacity\":5}\n"
      "{\"type\":\"key\",\"id\":1,\"key\":\"bob\",\"model\":\"\",\"tier\":\"live-0\","
      "\"algorithm\":\"token-bucket\",\"parameters\":\"5 per 1h\",\"capacity\":5,"
      "\"node\":\"127.0.0.1:7001\"}\n"
      "{\"type\":\"step\",\"t_ms\":3000,\"keys\":[[0,0.5,null,1,0,0,0,3000],[1,0.25,null,0,0,0,0,"
      "3000]],\"incidents\":[],\"dropped_samples\":0}\n");
  auto p = PlaybackSource::read(in, "old.jsonl");
  ASSERT_TRUE(p.ok()) << p.error();
  EXPECT_EQ((*p)->load_error(), "");
  const Recording& r = (*p)->recording();
  ASSERT_EQ(r.keys.size(), 2u);
  EXPECT_EQ(r.keys[0].api_key, "alice");
  EXPECT_EQ(r.keys[0].node, "");
  EXPECT_EQ(r.keys[1].node, "127.0.0.1:7001");
  const DashboardSnapshot snap = (*p)->snapshot(ChartView{0, 3000, 100, 8, {}});
  ASSERT_EQ(snap.keys.size(), 2u);
  EXPECT_EQ(snap.keys[0].node, "");
  EXPECT_DOUBLE_EQ(snap.keys[0].level, 0.5);
  EXPECT_EQ(snap.keys[1].node, "127.0.0.1:7001");
}

TEST(RecordingReader, MissingFileIsNamed) {
  auto p = PlaybackSource::open("/nonexistent/dir/session.jsonl");
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.error().find("/nonexistent/dir/session.jsonl"), std::string::npos);
}

}  // namespace
}  // namespace limitscope
