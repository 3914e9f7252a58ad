// Verifies the PromQL parser: accepted syntax, precedence, canonical printing, and errors that
// name the construct and its position.
#include <gtest/gtest.h>

#include "core/metrics/promql.h"
#include "core/metrics/promql_lexer.h"
#include "support/refusals.h"

namespace limitscope::metrics {
namespace {

struct RoundTripRow {
  const char* query;
  const char* canonical;
};

TEST(PromqlParserTest, AcceptsTheSubsetAndPrintsCanonically) {
  const RoundTripRow rows[] = {
      {"foo", "foo"},
      {"foo{a=\"x\",b=~'y.*', c!=\"\", d!~`z`}", "foo{a=\"x\", b=~\"y.*\", c!=\"\", d!~\"z\"}"},
      {"{__name__=~\"foo|bar\"}", "{__name__=~\"foo|bar\"}"},
      {"foo[5m]", "foo[5m]"},
      {"foo[1h30m] offset 5m", "foo[1h30m] offset 5m"},
      {"foo offset -1m", "foo offset -1m"},
      {"rate(foo{a=\"x\"}[5m])", "rate(foo{a=\"x\"}[5m])"},
      {"sum by (a, b) (foo)", "sum by (a, b) (foo)"},
      {"sum(foo) by (a)", "sum by (a) (foo)"},
      {"avg without (instance) (foo)", "avg without (instance) (foo)"},
      {"count(foo)", "count(foo)"},
      {"foo / on(a) bar", "foo / on(a) bar"},
      {"foo - ignoring(a, b) bar", "foo - ignoring(a, b) bar"},
      {"foo > bool 1", "foo > bool 1"},
      {"foo == bool on(x) bar", "foo == bool on(x) bar"},
      {"foo and bar or baz unless qux", "foo and bar or baz unless qux"},
      {"histogram_quantile(0.99, rate(h_bucket[5m]))",
       "histogram_quantile(0.98999999999999999, rate(h_bucket[5m]))"},
      {"clamp_min(foo, 0)", "clamp_min(foo, 0)"},
      {"vector(time())", "vector(time())"},
      {"0x1f + 1e3 + .5 + Inf - NaN", "31 + 1000 + 0.5 + Inf - NaN"},
      {"5m / 60", "300 / 60"},
      {"-foo", "-foo"},
      {"(foo)", "(foo)"},
      {"foo # a comment\n + 1", "foo + 1"},
      {"sum(rate(x[1m])) by (job) > 0.5", "sum by (job) (rate(x[1m])) > 0.5"},
      {"1 < bool 2", "1 < bool 2"},
  };
  for (const RoundTripRow& r : rows) {
    auto e = parse_promql(r.query);
    ASSERT_TRUE(e.ok()) << r.query << ": " << e.error();
    EXPECT_EQ(to_string(**e), r.canonical) << r.query;
    auto again = parse_promql(to_string(**e));
    ASSERT_TRUE(again.ok()) << to_string(**e) << ": " << again.error();
    EXPECT_EQ(to_string(**again), r.canonical);
  }
}

TEST(PromqlParserTest, PrecedenceAndAssociativityFollowPrometheus) {
  struct Row {
    const char* query;
    double value;
  };
  const Row rows[] = {
      {"2 ^ 3 ^ 2", 512},  // ^ is right-associative
      {"-2 ^ 2", -4},      // unary minus binds looser than ^
      {"2 * 3 + 4", 10},     {"2 + 3 * 4", 14},
      {"10 - 4 - 3", 3},  // left-associative
      {"7 % 4 * 2", 6},      {"(2 + 3) * 4", 20},
      {"1 + 2 > bool 2", 1},  // arithmetic before comparison
      {"-1 * -1", 1},        {"2 ^ -1", 0.5},
  };
  SeriesStore store;
  for (const Row& r : rows) {
    auto e = parse_promql(r.query);
    ASSERT_TRUE(e.ok()) << r.query << ": " << e.error();
    auto v = evaluate(**e, store, 0);
    ASSERT_TRUE(v.ok()) << v.error();
    ASSERT_EQ(v->kind, QueryValue::Kind::scalar);
    EXPECT_DOUBLE_EQ(v->scalar, r.value) << r.query;
  }
}

TEST(PromqlParserTest, StaticTypesAreComputed) {
  EXPECT_EQ((*parse_promql("1 + 2"))->type, ValueType::scalar);
  EXPECT_EQ((*parse_promql("foo + 2"))->type, ValueType::instant_vector);
  EXPECT_EQ((*parse_promql("foo[5m]"))->type, ValueType::range_vector);
  EXPECT_EQ((*parse_promql("scalar(foo)"))->type, ValueType::scalar);
}

TEST(PromqlParserTest, ErrorsNameTheConstructAndColumn) {
  const std::vector<test::Refusal> rows = {
      {"", "column 1: empty expression"},
      {"foo{a=\"b\"", "column 10: unexpected end of input, expected \",\" or \"}\""},
      {"foo bar", "column 5: unexpected \"bar\", expected end of expression"},
      {"foo * on(a) group_left bar", "column 13: unsupported construct \"group_left\""},
      {"foo / ignoring(a) group_right(b) bar", "column 19: unsupported construct \"group_right\""},
      {"foo[5m:1m]", "column 4: unsupported construct subquery"},
      {"rate(foo[5m])[10m:]", "column 14: unsupported construct subquery"},
      {"foo @ 100", "column 5: unsupported construct \"@\""},
      {"topk(3, foo)", "column 1: unsupported construct aggregation \"topk\""},
      {"quantile(0.5, foo)", "column 1: unsupported construct aggregation \"quantile\""},
      {"label_replace(foo, \"a\", \"b\", \"c\", \"d\")",
       "column 1: unsupported construct function \"label_replace\""},
      {"nosuchfn(foo)", "column 1: unsupported construct function \"nosuchfn\""},
      {"foo atan2 bar", "column 5: unsupported construct \"atan2\""},
      {"\"text\"", "column 1: unsupported construct string literal"},
      {"sum(foo, 2)", "column 8: unsupported construct parameter for aggregation \"sum\""},
      {"1 > 2", "column 3: comparisons between scalars must use the bool modifier"},
      {"foo + bool bar", "column 7: bool modifier can only be used on comparison operators"},
      {"1 and foo", "column 3: set operator \"and\" not allowed with a scalar operand"},
      {"1 + on(a) foo", "column 3: vector matching only allowed between instant vectors"},
      {"{}", "column 1: vector selector must contain at least one non-empty matcher"},
      {"{a=\"\"}", "column 1: vector selector must contain at least one non-empty matcher"},
      {"{a=~\".*\"}", "column 1: vector selector must contain at least one non-empty matcher"},
      {"foo{__name__=\"bar\"}", "column 5: metric name must not be set twice"},
      {"foo{a=~\"(\"}", "column 8: invalid regex"},
      {"rate(foo)",
       "column 6: argument 1 of \"rate\" must be of type range vector, got instant vector"},
      {"rate(foo[5m], 1)", "column 1: function \"rate\" takes 1 argument(s), got 2"},
      {"clamp(foo, 1)", "column 1: function \"clamp\" takes 3 argument(s), got 2"},
      {"sum(foo[5m])", "column 5: aggregation \"sum\" expects an instant vector, got range vector"},
      {"foo[5m] + 1",
       "column 1: binary expression must contain only scalar and instant vector types"},
      {"foo offset 5m [1m]", "column 15: no offset modifiers allowed before range"},
      {"foo[5m] offset 1m offset 2m", "column 19: offset may not be set multiple times"},
      {"(foo)[5m]", "column 6: unsupported construct subquery"},
      {"1 offset 5m", "column 3: offset modifier must be preceded by a selector"},
      {"foo[5]", "column 5: unexpected \"5\", expected a duration"},
      {"foo[0s]", "column 5: range must be greater than zero"},
      {"foo[5x]", "column 5: bad number or duration \"5x\""},
      {"foo[1m1h]", "column 5: bad duration \"1m1h\""},
      {"foo{a=\"b\\q\"}", "column 9: invalid escape \\q in string"},
      {"foo{a=\"b", "column 7: unterminated string"},
      {"foo ! bar", "column 5: unexpected character '!'"},
      {"sum by (a) foo", "column 12: unexpected \"foo\", expected \"(\" after aggregation"},
      {"sum by (a-b) (foo)", "column 10: unexpected \"-\", expected \",\" or \")\""},
      {"foo{1a=\"b\"}", "column 5: bad number or duration \"1a\""},
      {"-foo[5m]", "column 1: unary expression only allowed on scalars and instant vectors"},
      {"by", "column 1: unexpected keyword \"by\""},
      {"foo +\n  bar{", "line 2, column 7: unexpected end of input"},
  };
  test::expect_refusals(rows, [](const std::string& query) { return parse_promql(query); });
}

TEST(PromqlParserTest, DeepNestingIsRefusedNotOverflowed) {
  std::string deep(5000, '(');
  deep += "1";
  deep += std::string(5000, ')');
  auto e = parse_promql(deep);
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.error().find("nests"), std::string::npos) << e.error();
  std::string chain = "1";
  for (int i = 0; i < 5000; ++i) chain += " + 1";
  EXPECT_FALSE(parse_promql(chain).ok());
}

TEST(PromqlLexerTest, DurationsFollowPrometheusRules) {
  struct Row {
    const char* text;
    std::int64_t ms;  // -1: invalid
  };
  const Row rows[] = {{"5m", 300000},      {"1h30m", 5400000},   {"100ms", 100},
                      {"1y", 31536000000}, {"2w3d", 1468800000}, {"1m1h", -1},
                      {"5", -1},           {"1mm", -1},          {"", -1},
                      {"1s500ms", 1500}};
  for (const Row& r : rows) {
    auto d = parse_promql_duration(r.text);
    if (r.ms < 0) {
      EXPECT_FALSE(d.ok()) << r.text;
    } else {
      ASSERT_TRUE(d.ok()) << r.text << ": " << d.error();
      EXPECT_EQ(*d, r.ms) << r.text;
    }
  }
}

TEST(PromqlLexerTest, StringEscapesAreDecoded) {
  auto toks = lex_promql(R"("a\"b\\c\n\x41\u00e9" 'x\'y' `raw\n`)");
  ASSERT_TRUE(toks.ok()) << toks.error();
  ASSERT_EQ(toks->size(), 4u);
  EXPECT_EQ((*toks)[0].str, "a\"b\\c\nA\xc3\xa9");
  EXPECT_EQ((*toks)[1].str, "x'y");
  EXPECT_EQ((*toks)[2].str, "raw\\n");
}

}  // namespace
}  // namespace limitscope::metrics
