// Verifies the exposition parser: golden files, the malformed corpus with line-numbered
// errors, format detection, values, limits, and that a bad line never stops the parse.

#include "core/metrics/exposition_parser.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "support/test_paths.h"

namespace limitscope::metrics {
namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in) << path;
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string escape_help(const std::string& h) {
  std::string out;
  for (char c : h) out += c == '\n' ? std::string("\\n") : std::string(1, c);
  return out;
}

std::string format_number(double v) {
  std::ostringstream s;
  s.precision(17);
  s << v;
  return s.str();
}

// A stable text dump of everything the parser found, compared with the .golden files.
std::string dump(const ParsedExposition& p) {
  std::ostringstream out;
  out << "format " << format_name(p.report.format) << "\n";
  for (const auto& f : p.report.families) {
    out << "family " << f.name << " " << type_name(f.type) << (f.typed ? "" : " (inferred)")
        << " unit=\"" << f.unit << "\" help=\"" << escape_help(f.help) << "\"\n";
  }
  for (const auto& s : p.samples) {
    out << "line " << s.line << " family " << s.family << " " << s.labels.to_string() << " "
        << format_number(s.value);
    if (s.timestamp_ms) out << " @" << *s.timestamp_ms;
    out << "\n";
  }
  out << "series " << p.report.series << " samples " << p.report.samples << " lines "
      << p.report.lines << "\n";
  return out.str();
}

class Golden : public ::testing::TestWithParam<const char*> {};

TEST_P(Golden, MatchesDump) {
  const std::string path = test::data_path(std::string("metrics/valid/") + GetParam());
  const std::string text = read_file(path);
  const ParsedExposition p = parse_exposition_collect(text);
  for (const auto& e : p.errors) ADD_FAILURE() << "line " << e.line << ": " << e.message;
  const std::string got = dump(p);
  if (std::getenv("LIMITSCOPE_UPDATE_GOLDEN") != nullptr) {
    std::ofstream(path + ".golden") << got;
  }
  EXPECT_EQ(got, read_file(path + ".golden"));
}

INSTANTIATE_TEST_SUITE_P(Files, Golden, ::testing::Values("gateway.prom", "gateway.om.txt"),
                         [](const auto& row) {
                           std::string n = row.param;
                           for (char& c : n)
                             c = std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
                           return n;
                         });

struct ExpectedError {
  std::string file;
  ExpositionFormat format;
  std::size_t line;
  std::string substring;
};

std::vector<ExpectedError> load_expected() {
  std::vector<ExpectedError> rows;
  std::istringstream in(read_file(test::data_path("metrics/malformed/expected.tsv")));
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream cols(line);
    ExpectedError e;
    std::string format;
    std::string line_no;
    std::getline(cols, e.file, '\t');
    std::getline(cols, format, '\t');
    std::getline(cols, line_no, '\t');
    std::getline(cols, e.substring);
    e.format = *parse_format_name(format);
    e.line = std::stoul(line_no);
    rows.push_back(e);
  }
  return rows;
}

TEST(Malformed, EachFileGivesExactlyItsLineNumberedErrors) {
  const auto rows = load_expected();
  ASSERT_GT(rows.size(), 30u);
  std::vector<std::string> files;
  for (const auto& r : rows) {
    if (std::find(files.begin(), files.end(), r.file) == files.end()) files.push_back(r.file);
  }
  for (const auto& file : files) {
    SCOPED_TRACE(file);
    std::vector<ExpectedError> want;
    for (const auto& r : rows) {
      if (r.file == file) want.push_back(r);
    }
    ParseOptions opts;
    opts.format = want[0].format;
    const auto p =
        parse_exposition_collect(read_file(test::data_path("metrics/malformed/" + file)), opts);
    ASSERT_EQ(p.errors.size(), want.size()) << [&] {
      std::string all;
      for (const auto& e : p.errors) all += "\n  line " + std::to_string(e.line) + ": " + e.message;
      return all;
    }();
    for (std::size_t i = 0; i < want.size(); ++i) {
      EXPECT_EQ(p.errors[i].line, want[i].line) << p.errors[i].message;
      EXPECT_NE(p.errors[i].message.find(want[i].substring), std::string::npos)
          << "got: " << p.errors[i].message << "\nwant: " << want[i].substring;
    }
  }
}

TEST(Malformed, BadLinesAreSkippedAndTheRestIsKept) {
  const auto p = parse_exposition_collect("a 1\nb{x=\"1\" 2\nc 3\nd four\ne 5\n");
  ASSERT_EQ(p.errors.size(), 2u);
  ASSERT_EQ(p.samples.size(), 3u);
  EXPECT_EQ(p.samples[2].labels.metric_name(), "e");
  EXPECT_EQ(p.samples[2].line, 5u);
}

// Prometheus refuses a label value that is not UTF-8 ("invalid label value"); so does the parser,
// for escaped and unescaped values, naming the label and the line, and keeps the other lines.
TEST(Malformed, LabelValuesMustBeValidUtf8) {
  const std::string bad[] = {"\xff",         "ab\xc3",           "\xc0\xaf",
                             "\xed\xa0\x80", "\xf4\x90\x80\x80", "esc\\\"aped\xfe",
                             "12345678\x80"};
  for (const std::string& v : bad) {
    const auto p = parse_exposition_collect("ok{a=\"héllo €𝄞\"} 1\nm{k=\"" + v + "\"} 2\nz 3\n");
    ASSERT_EQ(p.errors.size(), 1u) << v;
    EXPECT_EQ(p.errors[0].line, 2u);
    EXPECT_NE(p.errors[0].message.find("value of label \"k\" is not valid UTF-8"),
              std::string::npos)
        << p.errors[0].message;
    EXPECT_EQ(p.samples.size(), 2u) << "the valid lines are kept";
  }
}

struct ValueRow {
  const char* text;
  double value;
};

class Values : public ::testing::TestWithParam<ValueRow> {};

TEST_P(Values, Parse) {
  const auto p = parse_exposition_collect(std::string("m ") + GetParam().text + "\n");
  ASSERT_TRUE(p.errors.empty()) << p.errors[0].message;
  ASSERT_EQ(p.samples.size(), 1u);
  const double want = GetParam().value;
  if (std::isnan(want)) {
    EXPECT_TRUE(std::isnan(p.samples[0].value));
  } else {
    EXPECT_EQ(p.samples[0].value, want);
  }
}

INSTANTIATE_TEST_SUITE_P(Specials, Values,
                         ::testing::Values(ValueRow{"1", 1}, ValueRow{"-2.5", -2.5},
                                           ValueRow{"+3", 3}, ValueRow{"1e3", 1000},
                                           ValueRow{"1.5E-3", 0.0015},
                                           ValueRow{"NaN", std::nan("")},
                                           ValueRow{"nan", std::nan("")},
                                           ValueRow{"+Inf", INFINITY}, ValueRow{"-Inf", -INFINITY},
                                           ValueRow{"Inf", INFINITY}, ValueRow{"0.1", 0.1}),
                         [](const auto& row) { return std::to_string(row.index); });

TEST(Values, RejectsNonNumbers) {
  for (const char* bad : {"", "+", "++1", "+-1", "1,5", "0x10", "1e999", "one", "1.2.3"}) {
    const auto p = parse_exposition_collect(std::string("m ") + bad + "\n");
    EXPECT_EQ(p.samples.size(), 0u) << bad;
    EXPECT_EQ(p.errors.size(), 1u) << bad;
  }
}

TEST(Timestamps, MillisecondsIn004SecondsInOpenMetrics) {
  auto p = parse_exposition_collect("m 1 1732800000123\nn 1 -5\n");
  ASSERT_EQ(p.samples.size(), 2u);
  EXPECT_EQ(*p.samples[0].timestamp_ms, 1732800000123);
  EXPECT_EQ(*p.samples[1].timestamp_ms, -5);
  p = parse_exposition_collect("m 1 1732800000.123\n# EOF\n");
  ASSERT_EQ(p.samples.size(), 1u);
  EXPECT_EQ(*p.samples[0].timestamp_ms, 1732800000123);
  p = parse_exposition_collect("m 1\n");
  EXPECT_FALSE(p.samples[0].timestamp_ms.has_value());
}

struct DetectRow {
  const char* text;
  const char* content_type;
  ExpositionFormat want;
};

class Detect : public ::testing::TestWithParam<DetectRow> {};

TEST_P(Detect, ChoosesFormat) {
  EXPECT_EQ(detect_format(GetParam().text, GetParam().content_type), GetParam().want);
}

INSTANTIATE_TEST_SUITE_P(
    Rows, Detect,
    ::testing::Values(
        DetectRow{"a 1\n", "", ExpositionFormat::kPrometheus},
        DetectRow{"a 1\n# EOF\n", "", ExpositionFormat::kOpenMetrics},
        DetectRow{"a 1\n# EOF", "", ExpositionFormat::kOpenMetrics},
        DetectRow{"# EOF\nb 1\n", "", ExpositionFormat::kOpenMetrics},
        DetectRow{"a 1\n# EOF is near\n", "", ExpositionFormat::kPrometheus},
        DetectRow{"a 1\n", "application/openmetrics-text; version=1.0.0; charset=utf-8",
                  ExpositionFormat::kOpenMetrics},
        DetectRow{"a 1\n# EOF\n", "text/plain; version=0.0.4", ExpositionFormat::kPrometheus}),
    [](const auto& row) { return std::to_string(row.index); });

TEST(Formats, EofIsAPlainCommentIn004) {
  ParseOptions opts;
  opts.format = ExpositionFormat::kPrometheus;
  const auto p = parse_exposition_collect("a 1\n# EOF\nb 2\n", opts);
  EXPECT_TRUE(p.errors.empty());
  EXPECT_EQ(p.samples.size(), 2u);
}

TEST(Formats, EmptyInput) {
  auto p = parse_exposition_collect("");
  EXPECT_TRUE(p.errors.empty());
  EXPECT_EQ(p.report.lines, 0u);
  ParseOptions om;
  om.format = ExpositionFormat::kOpenMetrics;
  p = parse_exposition_collect("", om);
  ASSERT_EQ(p.errors.size(), 1u);
  EXPECT_EQ(p.errors[0].line, 1u);
}

TEST(Families, SuffixedSamplesJoinTheirFamily) {
  const auto p = parse_exposition_collect(
      "# TYPE h histogram\nh_bucket{le=\"+Inf\"} 1\nh_sum 2\nh_count 1\n"
      "# TYPE c counter\nc_total 1\nc_created 5\n"
      "h_bucket_extra 1\n");
  ASSERT_TRUE(p.errors.empty()) << p.errors[0].message;
  ASSERT_EQ(p.report.families.size(), 3u);
  EXPECT_EQ(p.report.families[0].name, "h");
  EXPECT_EQ(p.report.families[1].name, "c");
  EXPECT_EQ(p.report.families[2].name, "h_bucket_extra");
  EXPECT_EQ(p.report.families[2].type, MetricType::kUnknown);
  EXPECT_FALSE(p.report.families[2].typed);
  for (std::size_t i = 0; i < 3; ++i) EXPECT_EQ(p.samples[i].family, 0u);
  EXPECT_EQ(p.samples[3].family, 1u);
  EXPECT_EQ(p.samples[4].family, 1u);
}

TEST(Families, LabelOrderDoesNotMakeANewSeries) {
  const auto p = parse_exposition_collect("a{x=\"1\",y=\"2\"} 1\na{x=\"2\",y=\"1\"} 1\n");
  EXPECT_TRUE(p.errors.empty());
  EXPECT_EQ(p.report.series, 2u);
}

struct LimitRow {
  const char* name;
  ParseLimits limits;
  std::string text;
  const char* limit_in_message;
};

ParseLimits with(void (*f)(ParseLimits&)) {
  ParseLimits l;
  f(l);
  return l;
}

class Limits : public ::testing::TestWithParam<LimitRow> {};

TEST_P(Limits, ExceedingOneIsAnErrorNamingIt) {
  ParseOptions opts;
  opts.limits = GetParam().limits;
  const auto p = parse_exposition_collect(GetParam().text, opts);
  ASSERT_FALSE(p.errors.empty());
  EXPECT_NE(p.errors[0].message.find(GetParam().limit_in_message), std::string::npos)
      << p.errors[0].message;
  // The line after the offending one is still parsed.
  ASSERT_FALSE(p.samples.empty());
  EXPECT_EQ(p.samples.back().labels.metric_name(), "last");
}

INSTANTIATE_TEST_SUITE_P(
    Rows, Limits,
    ::testing::Values(LimitRow{"line", with([](ParseLimits& l) { l.max_line_length = 20; }),
                               "a{x=\"0123456789012345\"} 1\nlast 1\n", "max_line_length"},
                      LimitRow{"labels", with([](ParseLimits& l) { l.max_labels_per_sample = 2; }),
                               "a{x=\"1\",y=\"2\",z=\"3\"} 1\nlast 1\n", "max_labels_per_sample"},
                      LimitRow{"series", with([](ParseLimits& l) { l.max_series = 2; }),
                               "a 1\nlast 1\nb 1\nc 1\n", "max_series"},
                      LimitRow{"families", with([](ParseLimits& l) { l.max_families = 2; }),
                               "a 1\nlast 1\nb 1\n", "max_families"},
                      LimitRow{"name", with([](ParseLimits& l) { l.max_metric_name_length = 5; }),
                               "abcdefgh 1\nlast 1\n", "max_metric_name_length"},
                      LimitRow{"label_name",
                               with([](ParseLimits& l) { l.max_label_name_length = 3; }),
                               "a{abcd=\"1\"} 1\nlast 1\n", "max_label_name_length"},
                      LimitRow{"label_value",
                               with([](ParseLimits& l) { l.max_label_value_length = 3; }),
                               "a{x=\"a\\\\bcd\"} 1\nlast 1\n", "max_label_value_length"}),
    [](const auto& row) { return std::string(row.param.name); });

TEST(Limits, HostileInputStaysBounded) {
  // 20,000 distinct series against a cap of 100: 100 kept, the rest are errors (counted by
  // the visitor, at most 10 stored here).
  std::string text;
  for (int i = 0; i < 20000; ++i) text += "m{i=\"" + std::to_string(i) + "\"} 1\n";
  ParseOptions opts;
  opts.limits.max_series = 100;
  const auto p = parse_exposition_collect(text, opts, 10);
  EXPECT_EQ(p.report.series, 100u);
  EXPECT_EQ(p.report.errors, 19900u);
  EXPECT_EQ(p.errors.size(), 10u);
}

TEST(Limits, BinaryGarbageGivesErrorsNotCrashes) {
  std::string text;
  for (int i = 0; i < 4096; ++i) text += static_cast<char>((i * 131) % 256);
  const auto p = parse_exposition_collect(text);
  EXPECT_GT(p.report.errors, 0u);
}

class CountingVisitor final : public ExpositionVisitor {
 public:
  void on_sample(const SampleView& s) override {
    ++samples;
    labels += s.labels.size();
  }
  void on_error(const ParseError&) override { ++errors; }
  std::size_t samples = 0;
  std::size_t labels = 0;
  std::size_t errors = 0;
};

TEST(Visitor, SeesViewsOfUnescapedValues) {
  struct Capture final : ExpositionVisitor {
    void on_sample(const SampleView& s) override {
      for (const auto& l : s.labels) values.emplace_back(l.value);
    }
    void on_error(const ParseError&) override {}
    std::vector<std::string> values;
  } v;
  const std::string text = "a{x=\"plain\",y=\"q\\\"uote\\\\back\\nnl\"} 1\n";
  parse_exposition(text, v);
  ASSERT_EQ(v.values.size(), 2u);
  EXPECT_EQ(v.values[0], "plain");
  EXPECT_EQ(v.values[1], "q\"uote\\back\nnl");
}

TEST(Visitor, KnowsTheFamilyOfEachSample) {
  struct Capture final : ExpositionVisitor {
    void on_sample(const SampleView& s) override {
      seen.push_back(std::string(type_name(s.family_info->type)) + " " + s.family_info->name + " " +
                     s.family_info->help);
    }
    void on_error(const ParseError&) override {}
    std::vector<std::string> seen;
  } v;
  parse_exposition("# HELP h Usage.\n# TYPE h histogram\nh_bucket{le=\"+Inf\"} 1\nx 2\n", v);
  EXPECT_EQ(v.seen, (std::vector<std::string>{"histogram h Usage.", "unknown x "}));
}

TEST(Visitor, CountsMatchTheReport) {
  CountingVisitor v;
  const auto r = parse_exposition("a{x=\"1\"} 1\nb 2\nbad\n", v);
  EXPECT_EQ(v.samples, r.samples);
  EXPECT_EQ(v.errors, r.errors);
  EXPECT_EQ(v.labels, 1u);
  EXPECT_EQ(r.lines, 3u);
}

}  // namespace
}  // namespace limitscope::metrics
