// Verifies trace import: JSON lines and CSV (any column order, quoted cells, optional
// columns) load into interned events; every bad line is reported with its number and reason
// (bad JSON, missing or wrong fields, negative costs, time going backwards, wrong column
// counts, a header without t/key, an empty file), and the good lines are kept beside them.
#include "core/trace/trace.h"

#include <gtest/gtest.h>

#include <sstream>

namespace limitscope::trace {
namespace {

TEST(Trace, JsonLines) {
  std::istringstream in(
      "{\"t\": 0.5, \"key\": \"alice\", \"cost\": 2, \"model\": \"gpt-4.1\", \"tier\": \"free\"}\n"
      "\n"
      "{\"t\": 1.25, \"key\": \"bob\"}\n"
      "{\"t\": 1.25, \"key\": \"alice\", \"cost\": 0.5}\n");
  const auto load = parse_trace_jsonl(in);
  EXPECT_TRUE(load.errors.empty());
  ASSERT_EQ(load.trace.events.size(), 3u);
  EXPECT_EQ(load.trace.events[0].t_ns, 500'000'000);
  EXPECT_EQ(load.trace.events[0].cost, 2);
  EXPECT_EQ(load.trace.keys[load.trace.events[0].key], "alice");
  EXPECT_EQ(load.trace.models[load.trace.events[0].model], "gpt-4.1");
  EXPECT_EQ(load.trace.tiers[load.trace.events[0].tier], "free");
  EXPECT_EQ(load.trace.events[1].cost, 1);
  EXPECT_EQ(load.trace.events[1].model, 0);  // none given
  EXPECT_EQ(load.trace.events[2].key, load.trace.events[0].key);
  EXPECT_EQ(load.trace.keys.size(), 2u);
  EXPECT_DOUBLE_EQ(load.trace.duration_s(), 0.75);
}

TEST(Trace, TokenCountsAreOptionalPerLine) {
  std::istringstream jsonl(
      "{\"t\": 0, \"key\": \"a\"}\n"
      "{\"t\": 1, \"key\": \"a\", \"tokens\": 1200}\n"
      "{\"t\": 2, \"key\": \"a\", \"tokens\": -3}\n"
      "{\"t\": 3, \"key\": \"a\", \"tokens\": 2.5}\n"
      "{\"t\": 4, \"key\": \"a\", \"tokens\": \"many\"}\n"
      "{\"t\": 5, \"key\": \"a\", \"tokens\": 0}\n");
  const auto load = parse_trace_jsonl(jsonl);
  ASSERT_EQ(load.trace.events.size(), 3u);
  ASSERT_EQ(load.trace.tokens.size(), 3u);  // back-filled for the line before the first count
  EXPECT_EQ(load.trace.tokens_of(0), std::nullopt);
  EXPECT_EQ(load.trace.tokens_of(1), 1200u);
  EXPECT_EQ(load.trace.tokens_of(2), 0u);
  ASSERT_EQ(load.errors.size(), 3u);
  EXPECT_EQ(load.errors[0].line, 3u);
  EXPECT_NE(load.errors[0].message.find("tokens must be a whole number"), std::string::npos);
  EXPECT_EQ(load.errors[1].line, 4u);
  EXPECT_EQ(load.errors[2].line, 5u);
  EXPECT_NE(load.errors[2].message.find("\"tokens\" must be a number"), std::string::npos);

  std::istringstream csv("t,key,tokens\n0,a,10\n1,a,\n2,a,x\n");
  const auto c = parse_trace_csv(csv);
  ASSERT_EQ(c.trace.events.size(), 2u);
  EXPECT_EQ(c.trace.tokens_of(0), 10u);
  EXPECT_EQ(c.trace.tokens_of(1), std::nullopt);  // an empty cell: not known
  ASSERT_EQ(c.errors.size(), 1u);
  EXPECT_EQ(c.errors[0].line, 4u);

  std::istringstream none("{\"t\": 0, \"key\": \"a\"}\n");
  EXPECT_TRUE(parse_trace_jsonl(none).trace.tokens.empty());  // no cost for traces without
}

TEST(Trace, CsvInAnyColumnOrder) {
  std::istringstream in("tier,key,t,cost\nfree,\"a,b\",0.001,3\npro,c,2,1\n");
  const auto load = parse_trace_csv(in);
  EXPECT_TRUE(load.errors.empty()) << load.errors.front().message;
  ASSERT_EQ(load.trace.events.size(), 2u);
  EXPECT_EQ(load.trace.keys[0], "a,b");
  EXPECT_EQ(load.trace.events[0].t_ns, 1'000'000);
  EXPECT_EQ(load.trace.tiers[load.trace.events[1].tier], "pro");
}

struct BadRow {
  const char* text;
  bool csv;
  std::size_t line;
  const char* error;
};

TEST(Trace, BadLinesAreNumberedAndTheRestKept) {
  const BadRow rows[] = {
      {"{\"t\": 1, \"key\": \"a\"}\n{oops\n", false, 2, "not a JSON object"},
      {"[1,2]\n", false, 1, "not a JSON object"},
      {"{\"key\": \"a\"}\n", false, 1, "missing number field \"t\""},
      {"{\"t\": \"soon\", \"key\": \"a\"}\n", false, 1, "missing number field \"t\""},
      {"{\"t\": 1}\n", false, 1, "missing string field \"key\""},
      {"{\"t\": 1, \"key\": \"a\", \"cost\": -2}\n", false, 1, "cost must be a number > 0"},
      {"{\"t\": 1, \"key\": \"a\", \"cost\": \"x\"}\n", false, 1, "\"cost\" must be a number"},
      {"{\"t\": -1, \"key\": \"a\"}\n", false, 1, "t must be seconds from 0 to 9e9"},
      {"{\"t\": 5, \"key\": \"a\"}\n{\"t\": 4, \"key\": \"a\"}\n", false, 2,
       "before the previous event"},
      {"t,key\n1,a,extra\n", true, 2, "expected 2 columns, found 3"},
      {"time,who\n1,a\n", true, 1, "must name columns t and key"},
      {"t,key\nsoon,a\n", true, 2, "t 'soon' is not a number"},
      {"t,key,cost\n1,a,zero\n", true, 2, "cost 'zero' is not a number"},
      {"", true, 0, "empty file"},
  };
  for (const auto& row : rows) {
    SCOPED_TRACE(row.text);
    std::istringstream in(row.text);
    const auto load = row.csv ? parse_trace_csv(in) : parse_trace_jsonl(in);
    ASSERT_FALSE(load.errors.empty());
    EXPECT_EQ(load.errors[0].line, row.line);
    EXPECT_NE(load.errors[0].message.find(row.error), std::string::npos) << load.errors[0].message;
  }
  std::istringstream mixed("{\"t\": 1, \"key\": \"a\"}\nbad\n{\"t\": 2, \"key\": \"b\"}\n");
  const auto load = parse_trace_jsonl(mixed);
  EXPECT_EQ(load.error_count, 1u);
  EXPECT_EQ(load.trace.events.size(), 2u) << "good lines are kept beside the errors";
}

TEST(Trace, ErrorListIsCappedButCounted) {
  std::string text;
  for (int i = 0; i < 500; ++i) text += "bad\n";
  std::istringstream in(text);
  TraceOptions o;
  o.max_errors = 10;
  const auto load = parse_trace_jsonl(in, o);
  EXPECT_EQ(load.errors.size(), 10u);
  EXPECT_EQ(load.error_count, 500u);
}

}  // namespace
}  // namespace limitscope::trace
