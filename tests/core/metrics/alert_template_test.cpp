// Verifies alert template parsing and expansion against outputs recorded from promtool 2.42.

#include "core/metrics/alert_template.h"

#include <gtest/gtest.h>

namespace limitscope::metrics {
namespace {

struct Row {
  const char* text;
  const char* expected;
};

// Series x{tier="pro",model="m1"} = 1.5, rendered by promtool 2.42 (tests/data/rules holds
// the same expectations as promtool test files).
TEST(AlertTemplate, ExpandsAsPromtool) {
  const Row rows[] = {
      {"{{ $value | humanizeTimestamp }}", "1970-01-01 00:00:01.5 +0000 UTC"},
      {"{{ $labels }}", "map[__name__:x model:m1 tier:pro]"},
      {"{{ .Labels }}", "map[__name__:x model:m1 tier:pro]"},
      {"{{ .Labels.tier }}/{{ $labels.model }}", "pro/m1"},
      {"a  {{- \" b \" -}}  c", "a b c"},
      {"{{/* comment */}}x", "x"},
      {"{{- /* c */ -}} y ", "y "},
      {"{{ if gt $value 1.0 }}big{{ else if eq $value 1.0 }}one{{ else }}small{{ end }}", "big"},
      {"{{ if eq $labels.tier \"pro\" }}P{{ end }}", "P"},
      {"{{ $x := \"v\" }}{{ $x }}{{ $x = \"w\" }}{{ $x }}", "vw"},
      {"{{ printf \"%s-%d-%.1f\" $labels.tier 3 $value }}", "pro-3-1.5"},
      {"{{ print 1 2 \"a\" \"b\" 3 }}", "1 2ab3"},
      {"{{ len $labels }}", "3"},
      {"{{ index $labels \"tier\" }}", "pro"},
      {"{{ \"x\" | printf \"%s/%s\" \"y\" }}", "y/x"},
      {"{{ toLower \"ABC\" | toUpper }}", "ABC"},
      {"{{ title \"rate-limit exceeded_now x\" }}", "Rate-Limit Exceeded_now X"},
      {"{{ humanize \"1234\" }}", "1.234k"},
      {"{{ 1e6 }} {{ 90 }} {{ 1.50 }} {{ 0x10 }} {{ -3 }}", "1e+06 90 1.5 16 -3"},
      {"{{ $value }}", "1.5"},
      {"{{ .Value }}", "1.5"},
      {"{{ $externalLabels }}{{ $externalURL }}", "map[]"},
      {"{{ match \"^p.o$\" $labels.tier }}", "true"},
      {"{{ reReplaceAll \"(.)r(.)\" \"$2$1\" \"prox\" }}", "opx"},
      {"{{ and 1 0 }}{{ or 0 \"\" \"z\" }}{{ not true }}", "0zfalse"},
      {"{{ humanizePercentage .Value }}", "150%"},
      {"{{ $labels.nope }}|", "|"},
      {"{{ .Labels.tier | len }}", "3"},
      {"{{ (printf \"%.0f\" $value) }}", "2"},
      {"{{ lt 1 2 }} {{ ge \"b\" \"a\" }} {{ ne 1.5 1.5 }}", "true true false"},
      {"plain text", "plain text"},
  };
  const Labels series{{"__name__", "x"}, {"tier", "pro"}, {"model", "m1"}};
  TemplateData data;
  data.labels = &series;
  data.value = 1.5;
  for (const auto& r : rows) {
    auto t = AlertTemplate::parse(r.text, "a");
    ASSERT_TRUE(t.ok()) << r.text << ": " << t.error();
    auto out = t->expand(data);
    ASSERT_TRUE(out.ok()) << r.text << ": " << out.error();
    EXPECT_EQ(*out, r.expected) << r.text;
  }
}

TEST(AlertTemplate, ParseErrorsNameTemplateAndPosition) {
  const Row rows[] = {
      {"{{ $labels.x ", "template t: line 1, column 1: unclosed action"},
      {"ok\n {{ nope 1 }}", "template t: line 2, column 5: function \"nope\" not defined"},
      {"{{ $undefined }}", "template t: line 1, column 4: undefined variable \"$undefined\""},
      {"{{ if $value }}x", "template t: line 1, column 4: unexpected EOF: {{if}} without {{end}}"},
      {"{{ end }}", "template t: line 1, column 4: unexpected {{end}}"},
      {"{{ range $labels }}{{ end }}",
       "template t: line 1, column 4: action \"range\" is not supported by limitscope templates"},
      {"{{ query \"up\" }}",
       "template t: line 1, column 4: function \"query\" is not supported by "
       "limitscope templates (no querier)"},
      {"{{ \"abc }}", "template t: line 1, column 4: unterminated quoted string"},
      {"{{ }}", "template t: line 1, column 3: missing value for command"},
      {"{{ (1 }}", "template t: line 1, column 4: unclosed left paren"},
  };
  for (const auto& r : rows) {
    auto t = AlertTemplate::parse(r.text, "t");
    ASSERT_FALSE(t.ok()) << r.text;
    EXPECT_EQ(t.error(), r.expected) << r.text;
  }
}

TEST(AlertTemplate, RuntimeErrorsRenderAsPrometheus) {
  auto t = AlertTemplate::parse("v={{ humanize \"abc\" }}", "summary");
  ASSERT_TRUE(t.ok());
  TemplateData data;
  EXPECT_EQ(t->expand_or_error(data),
            "<error expanding template: template summary: line 1, column 6: error calling "
            "humanize: strconv.ParseFloat: parsing \"abc\": invalid syntax>");
  auto cmp = AlertTemplate::parse("{{ gt $value 1 }}", "c");  // float64 vs int, as in Go
  ASSERT_TRUE(cmp.ok());
  EXPECT_FALSE(cmp->expand(data).ok());
}

TEST(AlertTemplate, PlainTextHasNoActions) {
  auto t = AlertTemplate::parse("just text", "x");
  ASSERT_TRUE(t.ok());
  EXPECT_FALSE(t->has_actions());
  EXPECT_EQ(t->text(), "just text");
}

}  // namespace
}  // namespace limitscope::metrics

namespace limitscope::metrics {
namespace {

// Bad input never crashes: random soups of template tokens either parse and expand, or are
// refused with a message.
TEST(AlertTemplate, RandomTokenSoupNeverCrashes) {
  const char* pieces[] = {"{{",     "}}",       "{{- ",   " -}}",      "$labels", ".Labels", ".x",
                          "$value", "|",        "(",      ")",         "\"s\"",   "`r`",     "1",
                          "-2.5",   "humanize", "printf", "\"%d %s\"", "if",      "else",    "end",
                          " ",      "$v",       ":=",     "=",         "/*",      "*/",      "eq",
                          "len",    "title",    "index",  "and",       "nil",     "true",    "\\",
                          "\n",     "x"};
  std::uint64_t seed = 42;
  const auto next = [&seed] {
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<std::size_t>(seed >> 33);
  };
  const Labels series{{"__name__", "x"}, {"x", "1"}};
  TemplateData data;
  data.labels = &series;
  data.value = 3;
  std::size_t parsed = 0;
  for (int i = 0; i < 20000; ++i) {
    std::string text;
    const std::size_t n = 1 + next() % 12;
    for (std::size_t k = 0; k < n; ++k) text += pieces[next() % std::size(pieces)];
    auto t = AlertTemplate::parse(text, "fuzz");
    if (!t.ok()) {
      EXPECT_EQ(t.error().rfind("template fuzz: line ", 0), 0u) << t.error();
      continue;
    }
    ++parsed;
    (void)t->expand_or_error(data);
  }
  EXPECT_GT(parsed, 100u);
}

}  // namespace
}  // namespace limitscope::metrics
