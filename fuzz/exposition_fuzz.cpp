// libFuzzer target for the exposition parser. Each input is parsed in all three format modes,
// with default and with tight limits; the visitor checks what it is handed, and every sample
// found is written back with the writer and must parse again to the same series and values.
// seed-corpus: tests/data/metrics
// dict: fuzz/exposition.dict

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "core/metrics/exposition_parser.h"
#include "core/metrics/exposition_writer.h"
#include "fuzz/fuzz_check.h"

namespace {

using namespace limitscope::metrics;

bool inside(std::string_view part, std::string_view whole) {
  return part.empty() ||
         (part.data() >= whole.data() && part.data() + part.size() <= whole.data() + whole.size());
}

// Checks every callback against the input and the limits, and rewrites samples as 0.0.4.
class CheckingVisitor final : public ExpositionVisitor {
 public:
  CheckingVisitor(std::string_view text, const ParseLimits& limits)
      : text_(text), limits_(limits) {}

  void on_sample(const SampleView& s) override {
    check(!s.name.empty() && inside(s.name, text_));
    check(s.name.size() <= limits_.max_metric_name_length);
    check(s.labels.size() <= limits_.max_labels_per_sample);
    check(s.line >= 1 && s.line >= last_line_);
    last_line_ = s.line;
    for (const auto& l : s.labels) {
      check(!l.name.empty() && inside(l.name, text_));
      check(l.name.size() <= limits_.max_label_name_length);
      check(l.value.size() <= limits_.max_label_value_length);
    }
    append_sample_line(rewritten, s.name, s.labels, s.value, nullptr, s.timestamp_ms);
    values.push_back(s.value);
    timestamps.push_back(s.timestamp_ms);
  }
  void on_error(const ParseError& e) override {
    check(e.line >= 1 && !e.message.empty());
    ++errors;
  }

  std::string rewritten;
  std::vector<double> values;
  std::vector<std::optional<std::int64_t>> timestamps;
  std::size_t errors = 0;

 private:
  std::string_view text_;
  ParseLimits limits_;
  std::size_t last_line_ = 0;
};

bool same_value(double a, double b) {
  return (std::isnan(a) && std::isnan(b)) || a == b;
}

void parse_and_round_trip(std::string_view text, ExpositionFormat format,
                          const ParseLimits& limits) {
  ParseOptions opts;
  opts.format = format;
  opts.limits = limits;
  CheckingVisitor v(text, limits);
  const ParseReport r = parse_exposition(text, v, opts);
  check(r.samples == v.values.size() && r.errors == v.errors);
  check(r.series == r.samples);  // duplicates are errors, so every sample is a new series
  check(r.families.size() <= limits.max_families);
  check(r.series <= limits.max_series);

  ParseOptions again;
  again.format = ExpositionFormat::kPrometheus;
  again.limits.max_line_length = 1 << 20;  // OpenMetrics seconds become longer milliseconds
  again.limits.max_labels_per_sample = limits.max_labels_per_sample;
  CheckingVisitor w(v.rewritten, again.limits);
  const ParseReport r2 = parse_exposition(v.rewritten, w, again);
  check(w.errors == 0);
  check(r2.samples == r.samples);
  for (std::size_t i = 0; i < w.values.size(); ++i) {
    check(same_value(w.values[i], v.values[i]));
    check(w.timestamps[i] == v.timestamps[i]);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  ParseLimits tight;
  tight.max_line_length = 256;
  tight.max_labels_per_sample = 4;
  tight.max_series = 16;
  tight.max_families = 4;
  tight.max_metric_name_length = 32;
  tight.max_label_name_length = 16;
  tight.max_label_value_length = 32;
  for (auto format :
       {ExpositionFormat::kAuto, ExpositionFormat::kPrometheus, ExpositionFormat::kOpenMetrics}) {
    parse_and_round_trip(text, format, ParseLimits{});
    parse_and_round_trip(text, format, tight);
  }
  return 0;
}
