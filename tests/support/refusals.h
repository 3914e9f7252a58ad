#pragma once
// Inputs a parser or validator must refuse, each with the part of its one-line error that says
// why, checked the one way every such test checks them.

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

namespace limitscope::test {

/// `result` (an Expected or a Status) is an error whose text contains `says`.
template <class Result>
void expect_refused(const Result& result, std::string_view says) {
  ASSERT_FALSE(result.ok()) << "accepted; the error should have said: " << says;
  EXPECT_NE(result.error().find(says), std::string::npos) << result.error();
}

/// A text input and what its error must say.
struct Refusal {
  std::string input;
  std::string says;
};

/// expect_refused(parse(input), says) for each row, the input named in a failure.
template <class Parse>
void expect_refusals(const std::vector<Refusal>& rows, Parse parse) {
  for (const Refusal& row : rows) {
    SCOPED_TRACE(row.input);
    expect_refused(parse(row.input), row.says);
  }
}

}  // namespace limitscope::test
