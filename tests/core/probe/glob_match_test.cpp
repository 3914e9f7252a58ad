// Verifies glob_match against Redis's MATCH semantics on a table of patterns, and that
// pathological star patterns stay fast (no exponential backtracking).
#include "core/probe/glob_match.h"

#include <gtest/gtest.h>

#include <string>

namespace limitscope::probe {
namespace {

struct Row {
  const char* pattern;
  const char* text;
  bool match;
};

TEST(GlobMatch, RedisSemantics) {
  const Row rows[] = {
      {"*", "", true},
      {"*", "anything", true},
      {"rl:*", "rl:alice", true},
      {"rl:*", "rl:", true},
      {"rl:*", "xrl:alice", false},
      {"rl:free-*", "rl:free-alice", true},
      {"rl:free-*", "rl:pro-alice", false},
      {"h?llo", "hello", true},
      {"h?llo", "hllo", false},
      {"h[ae]llo", "hallo", true},
      {"h[ae]llo", "hillo", false},
      {"h[^e]llo", "hallo", true},
      {"h[^e]llo", "hello", false},
      {"h[a-c]llo", "hbllo", true},
      {"h[a-c]llo", "hdllo", false},
      {"h\\*llo", "h*llo", true},
      {"h\\*llo", "hello", false},
      {"limitscope:{*}:s:*", "limitscope:{api}:s:alice", true},
      {"limitscope:{*}:s:*", "limitscope:{api}:config", false},
      {"a*b*c", "aXXbYYc", true},
      {"a*b*c", "aXXbYY", false},
      {"*_[0-9]*", "envoy_domain_key_value_1700000040", true},
      {"[abc", "[abc", true},  // unterminated class: a literal '['
  };
  for (const auto& row : rows) {
    EXPECT_EQ(glob_match(row.pattern, row.text), row.match)
        << "pattern " << row.pattern << " text " << row.text;
  }
}

TEST(GlobMatch, ManyStarsOnALongTextDoNotBacktrackExponentially) {
  const std::string text(20000, 'a');
  EXPECT_FALSE(glob_match("*a*a*a*a*a*a*a*a*a*a*b", text));
  EXPECT_TRUE(glob_match("*a*a*a*a*a*a*a*a*a*a*", text));
}

}  // namespace
}  // namespace limitscope::probe
