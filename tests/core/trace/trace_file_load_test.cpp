// Verifies the bounded trace load: it parses JSON lines and CSV like load_trace_file, with
// line-numbered errors; it reports progress up to 1; a file above the event cap is refused
// before parsing with the cap and its memory named; a cancel stops it and keeps nothing; exactly
// one event per line is reserved.
#include "core/trace/trace_file_load.h"

#include <gtest/gtest.h>

#include <string>

#include "support/process.h"

namespace limitscope::trace {
namespace {

std::string jsonl_lines(int n) {
  std::string s;
  for (int i = 0; i < n; ++i)
    s += "{\"t\": " + std::to_string(i * 0.01) + ", \"key\": \"k" + std::to_string(i % 5) + "\"}\n";
  return s;
}

TEST(TraceFileLoad, ParsesBothFormatsWithLineNumberedErrors) {
  struct Row {
    const char* name;
    std::string text;
    std::size_t events;
    std::size_t error_line;  // 0: no error
  };
  const Row rows[] = {
      {"good.jsonl", jsonl_lines(100), 100, 0},
      {"bad.jsonl", "{\"t\": 1, \"key\": \"a\"}\nnot json\n{\"t\": 2, \"key\": \"b\"}", 2, 2},
      {"good.csv", "t,key,cost\n1,a,2\n2,b,1\n", 2, 0},
      {"bad.csv", "t,key\n1,a\nx,b\n3,c\n", 2, 3},
      {"backwards.csv", "key,t\na,5\nb,4\n", 1, 3},
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(row.name);
    const auto path = test::write_temp(row.name, row.text);
    const auto load = load_trace_file_bounded(path);
    ASSERT_TRUE(load.ok()) << load.error();
    EXPECT_EQ(load->trace.events.size(), row.events);
    if (row.error_line == 0) {
      EXPECT_EQ(load->error_count, 0u);
    } else {
      ASSERT_EQ(load->error_count, 1u);
      EXPECT_EQ(load->errors[0].line, row.error_line);
    }
  }
}

TEST(TraceFileLoad, ReservesOneEventPerLineAndReportsProgress) {
  const auto path = test::write_temp("progress.jsonl", jsonl_lines(50'000));
  std::vector<double> seen;
  const auto load =
      load_trace_file_bounded(path, {}, nullptr, [&](double f) { seen.push_back(f); });
  ASSERT_TRUE(load.ok()) << load.error();
  EXPECT_EQ(load->trace.events.size(), 50'000u);
  EXPECT_EQ(load->trace.events.capacity(), 50'000u);
  ASSERT_GT(seen.size(), 3u);
  EXPECT_TRUE(std::is_sorted(seen.begin(), seen.end()));
  EXPECT_EQ(seen.back(), 1.0);
}

TEST(TraceFileLoad, RefusesAFileAboveTheCapBeforeParsing) {
  const auto path = test::write_temp("big.csv", "t,key\n" + std::string("1,a\n") + "2,a\n3,a\n");
  BoundedLoadOptions options;
  options.max_events = 2;
  const auto load = load_trace_file_bounded(path, options);
  ASSERT_FALSE(load.ok());
  EXPECT_NE(load.error().find("3 lines, more than the cap of 2 events"), std::string::npos)
      << load.error();
  EXPECT_NE(load.error().find("MB of memory"), std::string::npos);
  options.max_events = 3;  // the header is not an event
  EXPECT_TRUE(load_trace_file_bounded(path, options).ok());
}

TEST(TraceFileLoad, CancelStopsTheLoad) {
  const auto path = test::write_temp("cancel.jsonl", jsonl_lines(100'000));
  std::atomic<bool> cancel{false};
  double last = 0;
  const auto load = load_trace_file_bounded(path, {}, &cancel, [&](double f) {
    last = f;
    if (f > 0.3) cancel = true;  // the operator presses Cancel mid-parse
  });
  ASSERT_FALSE(load.ok());
  EXPECT_EQ(load.error(), kLoadCancelled);
  EXPECT_LT(last, 1.0);
}

TEST(TraceFileLoad, AMissingFileIsNamed) {
  const auto load = load_trace_file_bounded("/nonexistent/trace.jsonl");
  ASSERT_FALSE(load.ok());
  EXPECT_NE(load.error().find("/nonexistent/trace.jsonl"), std::string::npos);
}

}  // namespace
}  // namespace limitscope::trace
