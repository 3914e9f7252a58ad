// The exposition formats' names, their detection from text and Content-Type, and the
// collecting visitor behind parse_exposition_collect (exposition_parser.h).

#include <algorithm>
#include <utility>
#include <vector>

#include "core/metrics/exposition_parser.h"

namespace limitscope::metrics {

std::string_view format_name(ExpositionFormat f) {
  switch (f) {
    case ExpositionFormat::kAuto:
      return "auto";
    case ExpositionFormat::kPrometheus:
      return "prometheus";
    case ExpositionFormat::kOpenMetrics:
      return "openmetrics";
  }
  return "auto";
}

std::optional<ExpositionFormat> parse_format_name(std::string_view name) {
  if (name == "auto") return ExpositionFormat::kAuto;
  if (name == "prometheus") return ExpositionFormat::kPrometheus;
  if (name == "openmetrics") return ExpositionFormat::kOpenMetrics;
  return std::nullopt;
}

std::string_view type_name(MetricType t) {
  switch (t) {
    case MetricType::kUnknown:
      return "unknown";
    case MetricType::kCounter:
      return "counter";
    case MetricType::kGauge:
      return "gauge";
    case MetricType::kHistogram:
      return "histogram";
    case MetricType::kGaugeHistogram:
      return "gaugehistogram";
    case MetricType::kSummary:
      return "summary";
    case MetricType::kInfo:
      return "info";
    case MetricType::kStateSet:
      return "stateset";
  }
  return "unknown";
}

namespace {

class Collector final : public ExpositionVisitor {
 public:
  Collector(ParsedExposition& out, std::size_t max_errors) : out_(out), max_errors_(max_errors) {}
  void on_sample(const SampleView& s) override {
    ParsedSample p;
    std::vector<std::pair<std::string, std::string>> pairs;
    pairs.reserve(s.labels.size() + 1);
    pairs.emplace_back("__name__", std::string(s.name));
    for (const auto& l : s.labels) pairs.emplace_back(std::string(l.name), std::string(l.value));
    p.labels = Labels::from_pairs(std::move(pairs));
    p.value = s.value;
    p.timestamp_ms = s.timestamp_ms;
    p.family = s.family;
    p.line = s.line;
    out_.samples.push_back(std::move(p));
  }
  void on_error(const ParseError& e) override {
    if (out_.errors.size() < max_errors_) out_.errors.push_back(e);
  }

 private:
  ParsedExposition& out_;
  std::size_t max_errors_;
};

}  // namespace

ExpositionFormat detect_format(std::string_view text, std::string_view content_type) {
  if (content_type.find("application/openmetrics-text") != std::string_view::npos) {
    return ExpositionFormat::kOpenMetrics;
  }
  if (content_type.find("text/plain") != std::string_view::npos) {
    return ExpositionFormat::kPrometheus;
  }
  constexpr std::string_view kEof = "# EOF";
  std::size_t pos = 0;
  while ((pos = text.find(kEof, pos)) != std::string_view::npos) {
    const bool at_line_start = pos == 0 || text[pos - 1] == '\n';
    const std::size_t after = pos + kEof.size();
    const bool at_line_end = after == text.size() || text[after] == '\n' || text[after] == '\r';
    if (at_line_start && at_line_end) return ExpositionFormat::kOpenMetrics;
    pos = after;
  }
  return ExpositionFormat::kPrometheus;
}

ParsedExposition parse_exposition_collect(std::string_view text, const ParseOptions& options,
                                          std::size_t max_errors) {
  ParsedExposition out;
  Collector collector(out, max_errors);
  out.report = parse_exposition(text, collector, options);
  // Missing +Inf buckets are found when their series ends, a line or two later.
  std::stable_sort(out.errors.begin(), out.errors.end(),
                   [](const ParseError& a, const ParseError& b) { return a.line < b.line; });
  return out;
}

}  // namespace limitscope::metrics
