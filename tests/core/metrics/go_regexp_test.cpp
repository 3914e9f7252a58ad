// Verifies alert templates' regexes (core/metrics/go_regexp.h) against what Go's regexp does:
// MatchString finds a match anywhere, ReplaceAllString steps over empty matches as Go does and
// expands $1, ${1}, $name, ${name} and $$ as Regexp.Expand does, a pattern Go refuses is an
// error naming it, and a pattern that backtracks exponentially in std::regex runs in linear time.

#include "core/metrics/go_regexp.h"

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "support/refusals.h"

namespace limitscope::metrics::goregexp {
namespace {

TEST(GoRegexp, MatchFindsTheMatchAnywhere) {
  struct Row {
    const char* pattern;
    const char* text;
    bool matches;
  } rows[] = {
      {"^p.o$", "pro", true}, {"r", "pro", true},       {"^r", "pro", false},
      {"", "", true},         {"(?i)PRO", "pro", true}, {"\\bfree\\b", "tier free", true},
      {"é", "café", true},    {"^.$", "é", true},  // one character, two bytes
  };
  for (const Row& r : rows) {
    const auto m = match(r.pattern, r.text);
    ASSERT_TRUE(m.ok()) << r.pattern << ": " << m.error();
    EXPECT_EQ(*m, r.matches) << r.pattern << " on " << r.text;
  }
}

// Outputs as Go 1.20's regexp.MustCompile(pattern).ReplaceAllString(text, replacement) gives.
TEST(GoRegexp, ReplaceAllAsGo) {
  struct Row {
    const char* pattern;
    const char* replacement;
    const char* text;
    const char* expected;
  } rows[] = {
      {"(.)r(.)", "$2$1", "prox", "opx"},
      {"a*", "-", "baaac", "-b-c-"},  // no second replacement right after "aaa"
      {"", "-", "ab", "-a-b-"},
      {"", "-", "é", "-é-"},  // steps a whole character, not a byte
      {"x*", "-", "", "-"},
      {"^a", "x", "aaa", "xaa"},    // ^ is the text's start, not where the search resumed
      {"(a)(b)", "$1x", "ab", ""},  // the group named "1x" does not exist
      {"(a)(b)", "${1}x", "ab", "ax"},
      {"(a)", "$$1", "a", "$1"},
      {"(a)", "cost $", "a", "cost $"},       // a $ with no name stays
      {"(a)", "${1", "a", "${1"},             // no closing brace: stays
      {"(a)", "$01", "a", ""},                // a leading zero makes it a name, which is absent
      {"(a)", "$9", "a", ""},                 // no such group
      {"(a)|(b)", "[$1$2]", "ab", "[a][b]"},  // a group that did not take part is empty
      {"(?P<first>\\w+) (?P<second>\\w+)", "${second} ${first}", "hello world", "world hello"},
      {"(?P<t>[a-z]+)-(\\d+)", "$t#$2", "free-1 pro-22", "free#1 pro#22"},
      {"(?P<t>x)", "$tail", "x", ""},  // the name is as long as possible
      {"b+", "<$0>", "abbbcb", "a<bbb>c<b>"},
  };
  for (const auto& r : rows) {
    const auto out = replace_all(r.pattern, r.replacement, r.text);
    ASSERT_TRUE(out.ok()) << r.pattern << ": " << out.error();
    EXPECT_EQ(*out, r.expected) << r.pattern << " / " << r.replacement << " / " << r.text;
  }
}

TEST(GoRegexp, APatternGoRefusesIsAnErrorNamingIt) {
  test::expect_refused(match("(a", "a"), "missing )");
  test::expect_refused(match("(a", "a"), "`(a`");
  test::expect_refused(match("(a)\\1", "aa"), "error parsing regexp");  // no backreferences
  test::expect_refused(replace_all("(?=a)", "", "a"), "`(?=a)`");       // no lookahead
  test::expect_refused(replace_all("a**", "", "a"), "error parsing regexp");
  test::expect_refused(match(std::string(5000, 'a'), "a"), "5000 bytes");
}

// (a+)+$ backtracks exponentially in a backtracking engine on a run of a's that ends in
// another character; RE2 answers in one pass (a hang here is the failure).
TEST(GoRegexp, NestedRepetitionRunsInLinearTime) {
  const std::string text = std::string(100'000, 'a') + "!";
  const auto m = match("(a+)+$", text);
  ASSERT_TRUE(m.ok()) << m.error();
  EXPECT_FALSE(*m);
  const auto out = replace_all("(a+)+!", "[$1]", text);
  ASSERT_TRUE(out.ok()) << out.error();
  EXPECT_EQ(*out, "[" + std::string(100'000, 'a') + "]");
}

// Patterns are kept compiled (at most 256, then the set starts again): answers stay right
// past that size, for patterns seen before and after the set was emptied, from four threads
// at once, and a refused pattern is refused every time, never kept.
TEST(GoRegexp, KeptPatternsGiveTheSameAnswersPastTheSetsSizeAndAcrossThreads) {
  auto run = [](int thread, std::vector<std::string>& wrong) {
    for (int round = 0; round < 2; ++round) {
      for (int i = 0; i < 700; ++i) {
        const std::string n = std::to_string(i);
        const std::string pattern = "^(x" + n + ")-(\\d+)$";
        const std::string text = "x" + n + "-" + std::to_string(thread);
        const auto out = replace_all(pattern, "$2/$1", text);
        if (!out.ok() || *out != std::to_string(thread) + "/x" + n) wrong.push_back(pattern);
        const auto other = match(pattern, "x" + std::to_string(i + 1) + "-1");
        if (!other.ok() || *other) wrong.push_back(pattern + " matched another key");
        if (match("(a" + n, "a").ok()) wrong.push_back("(a" + n + " accepted");
      }
    }
  };
  std::vector<std::vector<std::string>> wrong(4);
  {
    std::vector<std::jthread> threads;
    for (int t = 0; t < 4; ++t) threads.emplace_back(run, t, std::ref(wrong[t]));
  }
  for (const auto& w : wrong) EXPECT_TRUE(w.empty()) << w.size() << " wrong, first " << w.front();
}

}  // namespace
}  // namespace limitscope::metrics::goregexp
