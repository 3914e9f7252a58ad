// Verifies what the Tuner does with a trace as read: every line good is used, no events is
// refused with the source named, and bad lines wait for the operator with the counts of bad and
// good lines, the first bad lines, and a Use button that works only when there are good lines;
// and that a cancelled load says the previous trace stays while a failed one says its error.
#include "core/tuner/load_verdict.h"

#include <gtest/gtest.h>

#include "core/tuner/tuner_session.h"

namespace limitscope::tuner {
namespace {

trace::Trace events(int n) {
  trace::Trace t;
  for (int i = 0; i < n; ++i) t.add(std::int64_t{i} * 1'000'000, "k", 1);
  return t;
}

TEST(LoadVerdict, AllGoodLinesAreUsed) {
  const trace::Trace t = events(3);
  const LoadVerdict v = judge_load("file t.jsonl", &t, {}, 0);
  EXPECT_EQ(v.next, LoadVerdict::Next::use);
  EXPECT_EQ(v.status, "");
}

TEST(LoadVerdict, NoEventsIsRefusedNamingTheSource) {
  const trace::Trace empty;
  for (const trace::Trace* t : {&empty, static_cast<const trace::Trace*>(nullptr)}) {
    const LoadVerdict v = judge_load("file t.csv", t, {}, 0);
    EXPECT_EQ(v.next, LoadVerdict::Next::refuse);
    EXPECT_EQ(v.status, "file t.csv: no events; nothing loaded.");
  }
}

TEST(LoadVerdict, BadLinesWaitForTheOperator) {
  const trace::Trace t = events(97);
  const std::vector<trace::TraceError> errors = {{2, "no \"t\""}, {5, "cost is negative"}};
  const LoadVerdict v = judge_load("file t.jsonl", &t, errors, 3);
  EXPECT_EQ(v.next, LoadVerdict::Next::ask);
  EXPECT_EQ(v.status, "3 bad line(s): choose in the report.");
  EXPECT_EQ(v.question,
            "file t.jsonl has 3 bad line(s) and 97 good one(s). Nothing is loaded unless you "
            "choose to use the good lines.");
  EXPECT_EQ(v.details, bad_lines_text(errors, 3));
  EXPECT_NE(v.details.find("line 5: cost is negative"), std::string::npos) << v.details;
  EXPECT_EQ(v.use_label, "Use the 97 good lines");
  EXPECT_TRUE(v.can_use);
  EXPECT_EQ(v.refused, "Nothing loaded: file t.jsonl has bad lines.");
}

TEST(LoadVerdict, OnlyBadLinesCannotBeUsed) {
  const trace::Trace empty;
  const LoadVerdict v = judge_load("file t.csv", &empty, {{1, "not CSV"}}, 1);
  EXPECT_EQ(v.next, LoadVerdict::Next::ask);
  EXPECT_FALSE(v.can_use);
  EXPECT_EQ(v.use_label, "Use the 0 good lines");
}

TEST(LoadVerdict, ACancelledLoadKeepsThePreviousTrace) {
  EXPECT_EQ(load_failed_text(true, "cancelled"), "Load cancelled; the previous trace stays.");
  EXPECT_EQ(load_failed_text(false, "file t.csv: cannot be read"), "file t.csv: cannot be read");
}

}  // namespace
}  // namespace limitscope::tuner
