// Verifies what a write failure (a full disk) does to a recording: the writer's call returns
// it ("FILE: write failed"), every later call returns it again and writes nothing more, and
// what was written before stays readable; a session drops the recording, runs on, and returns
// the failure once (from the flush, or from the stop when no flush came between).

#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "core/recording/recording_reader.h"
#include "core/recording/recording_writer.h"
#include "core/sources/session_state.h"

namespace limitscope {
namespace {

using namespace std::chrono_literals;

// A disk with room for `room` bytes: a write past it fails, and what fitted stays.
class Room : public std::streambuf {
 public:
  explicit Room(std::size_t room) : room_(room) {}
  std::string text;

 protected:
  int_type overflow(int_type c) override {
    if (c == traits_type::eof()) return traits_type::not_eof(c);
    if (text.size() >= room_) return traits_type::eof();
    text += static_cast<char>(c);
    return c;
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    const std::size_t fits = std::min(static_cast<std::size_t>(n), room_ - text.size());
    text.append(s, fits);
    return static_cast<std::streamsize>(fits);
  }

 private:
  std::size_t room_;
};

KeyRow key_row(const std::string& api_key, double level) {
  KeyRow k;
  k.api_key = api_key;
  k.tier = "gw";
  k.algorithm = "token-bucket";
  k.capacity = 5;
  k.level = level;
  return k;
}

TEST(RecordingWriteFailure, TheWriterReturnsItAndWritesNothingAfterIt) {
  ManualClock clock;
  const RecordingHeader header{"test", 1000, 1000};
  std::stringbuf header_only;
  {
    RecordingWriter w(std::make_unique<std::ostream>(&header_only), "sized", clock);
    ASSERT_EQ(w.header(header), Status{});
  }
  // Room for the header line and ten bytes of the next one.
  Room disk(header_only.str().size() + 10);
  RecordingWriter w(std::make_unique<std::ostream>(&disk), "disk.jsonl", clock);
  ASSERT_EQ(w.header(header), Status{});
  const Status failed = w.step(1000, {key_row("alice", 0.5)}, {}, 0);
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.error(), "disk.jsonl: write failed");
  const std::string at_failure = disk.text;
  EXPECT_EQ(at_failure.size(), header_only.str().size() + 10);

  DecisionRow d;
  d.api_key = "alice";
  d.t_ns = 2'000'000'000;
  EXPECT_EQ(w.request(d), failed);
  EXPECT_EQ(w.sample({{"__name__", "x"}}, {2000, 1}), failed);
  EXPECT_EQ(w.alerts(2000, {}, {}), failed);
  clock.advance(5s);
  EXPECT_EQ(w.flush_if_due(), failed);
  EXPECT_EQ(w.finish(3000), failed);
  EXPECT_EQ(disk.text, at_failure) << "nothing is written after the failure";

  // What was written before it reads back: the header, then the cut line is the first bad one.
  std::istringstream in(disk.text);
  const RecordingLoad load = read_recording(in, "disk.jsonl");
  EXPECT_TRUE(load.has_header);
  EXPECT_EQ(load.recording.header.source, "test");
  EXPECT_EQ(load.recording.lines, 1u);
  EXPECT_EQ(load.error.rfind("disk.jsonl:2:", 0), 0u) << load.error;
}

// A session recording into a disk that fills up after a few steps.
class SessionOnAFullDisk : public ::testing::Test {
 protected:
  static constexpr std::int64_t kT0 = 1'700'000'000'000;

  void SetUp() override {
    auto made = SessionState::create(SessionOptions{});
    ASSERT_TRUE(made.ok()) << made.error();
    session_ = std::move(*made);
    session_->set_key_rows([this] { return rows_; });
  }

  // One refresh at t: a sample and a step line.
  void refresh(std::int64_t t) {
    ASSERT_TRUE(session_->append(level_, {t, 0.5}));
    rows_ = {key_row("alice", 0.5)};
    session_->refreshed(t);
  }

  const metrics::Labels level_{{"__name__", "limitscope_key_level_ratio"}, {"api_key", "alice"}};
  std::vector<KeyRow> rows_;
  std::shared_ptr<SessionState> session_;
  ManualClock clock_;
};

TEST_F(SessionOnAFullDisk, TheRecordingStopsTheSessionRunsOnAndTheFlushReturnsTheFailureOnce) {
  Room disk(4096);
  ASSERT_EQ(session_->start_recording(std::make_unique<std::ostream>(&disk), "disk.jsonl", "test",
                                      kT0, clock_),
            Status{});
  Status flushed;
  std::int64_t t = kT0;
  for (int i = 0; i < 1000 && flushed.ok(); ++i) {
    t += 1000;
    ASSERT_NO_FATAL_FAILURE(refresh(t));
    clock_.advance(1s);
    flushed = session_->flush_recording_if_due();
  }
  ASSERT_FALSE(flushed.ok()) << "4096 bytes never filled up";
  EXPECT_EQ(flushed.error(), "disk.jsonl: write failed");
  EXPECT_FALSE(session_->recording());
  EXPECT_EQ(session_->recording_name(), "");
  EXPECT_EQ(session_->flush_recording_if_due(), Status{}) << "returned once";
  EXPECT_EQ(session_->stop_recording(t), Status{}) << "already returned by the flush";

  // The session runs on without the recording.
  const std::string at_failure = disk.text;
  ASSERT_NO_FATAL_FAILURE(refresh(t + 1000));
  EXPECT_EQ(session_->store().select({}, t + 1000, t + 1000).size(), 1u);
  EXPECT_EQ(disk.text, at_failure);

  // What was written reads back up to the cut line.
  std::istringstream in(disk.text);
  const RecordingLoad load = read_recording(in, "disk.jsonl");
  EXPECT_TRUE(load.has_header);
  EXPECT_GE(load.recording.steps.size(), 2u);
  EXPECT_FALSE(load.error.empty());
}

TEST_F(SessionOnAFullDisk, AFailureNoFlushReturnedIsReturnedByTheStop) {
  Room disk(4096);
  ASSERT_EQ(session_->start_recording(std::make_unique<std::ostream>(&disk), "disk.jsonl", "test",
                                      kT0, clock_),
            Status{});
  std::int64_t t = kT0;
  for (int i = 0; i < 1000 && session_->recording(); ++i) {
    t += 1000;
    ASSERT_NO_FATAL_FAILURE(refresh(t));
  }
  ASSERT_FALSE(session_->recording()) << "4096 bytes never filled up";
  const Status stopped = session_->stop_recording(t);
  ASSERT_FALSE(stopped.ok());
  EXPECT_EQ(stopped.error(), "disk.jsonl: write failed");
  EXPECT_EQ(session_->stop_recording(t), Status{}) << "returned once";
}

TEST_F(SessionOnAFullDisk, ARecordingWhoseStartDoesNotFitIsRefusedAtOnce) {
  ASSERT_NO_FATAL_FAILURE(refresh(kT0));
  Room disk(16);
  const Status started = session_->start_recording(std::make_unique<std::ostream>(&disk),
                                                   "disk.jsonl", "test", kT0 + 1000, clock_);
  ASSERT_FALSE(started.ok());
  EXPECT_EQ(started.error(), "disk.jsonl: write failed");
  EXPECT_FALSE(session_->recording());
  EXPECT_EQ(session_->flush_recording_if_due(), Status{}) << "returned once, by the start";
  EXPECT_EQ(disk.text.size(), 16u);
}

}  // namespace
}  // namespace limitscope
