// Verifies the text-format writer: value spelling, escaping, and that what it writes reads
// back through the parser to the same names, labels and values.

#include "core/metrics/exposition_writer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace limitscope::metrics {
namespace {

struct ValueRow {
  double value;
  const char* text;
};

class WriteValue : public ::testing::TestWithParam<ValueRow> {};

TEST_P(WriteValue, SpellsAsPrometheus) {
  std::string out;
  append_value(out, GetParam().value);
  EXPECT_EQ(out, GetParam().text);
}

INSTANTIATE_TEST_SUITE_P(Rows, WriteValue,
                         ::testing::Values(ValueRow{0, "0"}, ValueRow{5, "5"}, ValueRow{0.1, "0.1"},
                                           ValueRow{-2.5, "-2.5"}, ValueRow{1e21, "1e+21"},
                                           ValueRow{INFINITY, "+Inf"}, ValueRow{-INFINITY, "-Inf"},
                                           ValueRow{std::nan(""), "NaN"}),
                         [](const auto& row) { return std::to_string(row.index); });

TEST(WriteLines, EscapesLabelValuesAndHelp) {
  std::string out;
  append_help_line(out, "m", "line one\nback\\slash \"quoted\"");
  append_type_line(out, "m", MetricType::kUnknown);
  const LabelView labels[] = {{"path", "C:\\x"}, {"q", "say \"hi\"\nbye"}};
  const LabelView le{"le", "+Inf"};
  append_sample_line(out, "m", labels, 1.5, &le, 1234);
  append_sample_line(out, "n", {}, 2);
  EXPECT_EQ(out,
            "# HELP m line one\\nback\\\\slash \"quoted\"\n"
            "# TYPE m untyped\n"
            "m{path=\"C:\\\\x\",q=\"say \\\"hi\\\"\\nbye\",le=\"+Inf\"} 1.5 1234\n"
            "n 2\n");
}

TEST(WriteLines, RoundTripsThroughTheParser) {
  const double values[] = {
      0,        1,        -1, 0.1, 1.0 / 3.0, 1e-300, 1.7976931348623157e308, 5e-324, 123456789.125,
      INFINITY, -INFINITY};
  const std::string tricky[] = {"",          "plain",       "quote\"", "back\\slash",
                                "new\nline", "\\n literal", "ünïcödé", "{}=,"};
  std::string out;
  append_help_line(out, "rt", "help with \\ and\nnewline");
  append_type_line(out, "rt", MetricType::kGauge);
  std::size_t n = 0;
  for (double v : values) {
    for (const auto& t : tricky) {
      const std::string id = std::to_string(n++);
      const LabelView labels[] = {{"id", id}, {"v", t}};
      append_sample_line(out, "rt", labels, v);
    }
  }
  const auto p = parse_exposition_collect(out);
  ASSERT_TRUE(p.errors.empty()) << p.errors[0].line << ": " << p.errors[0].message;
  ASSERT_EQ(p.samples.size(), n);
  EXPECT_EQ(p.report.families[0].help, "help with \\ and\nnewline");
  n = 0;
  for (double v : values) {
    for (const auto& t : tricky) {
      const auto& s = p.samples[n++];
      EXPECT_EQ(s.value, v);
      EXPECT_EQ(s.labels.get("v"), t);
      EXPECT_EQ(s.labels.metric_name(), "rt");
    }
  }
}

}  // namespace
}  // namespace limitscope::metrics
