#pragma once
// Parser for the Prometheus text exposition format 0.0.4 and OpenMetrics 1.0 text.
//
// The parser walks the input line by line through a std::string_view (it never copies the
// whole input) and hands each sample to a visitor as views into the input, so the hot path
// allocates nothing per sample. A bad line is reported with its 1-based line number and
// skipped; the parse always goes on to the end. Limits bound what hostile input can make the
// parser hold (the series set, the families and the per-line scratch space).

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/metrics/labels.h"

namespace limitscope::metrics {

enum class ExpositionFormat { kAuto, kPrometheus, kOpenMetrics };

/// "auto", "prometheus" (text 0.0.4), "openmetrics".
std::string_view format_name(ExpositionFormat f);
std::optional<ExpositionFormat> parse_format_name(std::string_view name);

enum class MetricType {
  kUnknown,  // "untyped" in 0.0.4, "unknown" in OpenMetrics
  kCounter,
  kGauge,
  kHistogram,
  kGaugeHistogram,  // OpenMetrics only
  kSummary,
  kInfo,      // OpenMetrics only
  kStateSet,  // OpenMetrics only
};

std::string_view type_name(MetricType t);

/// Limits that keep hostile input safe. Exceeding one is an error naming the limit; the
/// offending line (or series) is dropped and the parse goes on.
struct ParseLimits {
  std::size_t max_line_length = 64 * 1024;         // bytes, one line without its newline
  std::size_t max_labels_per_sample = 64;          // labels in braces (not counting the name)
  std::size_t max_series = 1'000'000;              // distinct series in one exposition
  std::size_t max_families = 100'000;              // distinct metric families
  std::size_t max_metric_name_length = 1024;       // bytes
  std::size_t max_label_name_length = 1024;        // bytes
  std::size_t max_label_value_length = 16 * 1024;  // bytes, after unescaping
};

struct ParseOptions {
  ExpositionFormat format = ExpositionFormat::kAuto;
  /// Optional HTTP Content-Type of a scrape; used by kAuto before looking at the text.
  std::string_view content_type;
  ParseLimits limits;
};

struct MetricFamily {
  std::string name;
  MetricType type = MetricType::kUnknown;
  std::string help;
  std::string unit;    // OpenMetrics UNIT, empty otherwise
  bool typed = false;  // a TYPE line was seen (else the type was inferred)
};

struct ParseError {
  std::size_t line = 0;  // 1-based; one past the last line for "missing # EOF"
  std::string message;
};

/// One label as found in the input (value unescaped); views are valid during the callback.
struct LabelView {
  std::string_view name;
  std::string_view value;
};

/// One sample as the visitor sees it; every view is valid only during on_sample().
struct SampleView {
  std::string_view name;              // the series name, e.g. "foo_bucket"
  std::span<const LabelView> labels;  // in input order, without __name__
  double value = 0;
  std::optional<std::int64_t> timestamp_ms;  // ms since epoch (OpenMetrics seconds * 1000)
  std::size_t line = 0;
  std::size_t family = 0;                     // index into ParseReport::families
  const MetricFamily* family_info = nullptr;  // that family as known so far (type, help)
};

class ExpositionVisitor {
 public:
  virtual ~ExpositionVisitor() = default;
  virtual void on_sample(const SampleView& sample) = 0;
  virtual void on_error(const ParseError& error) = 0;
};

struct ParseReport {
  ExpositionFormat format = ExpositionFormat::kPrometheus;  // the format actually used
  std::vector<MetricFamily> families;                       // in order of first appearance
  std::size_t bytes = 0;
  std::size_t lines = 0;
  std::size_t samples = 0;  // samples passed to the visitor
  std::size_t series = 0;   // distinct series among them
  std::size_t errors = 0;   // errors passed to the visitor
};

/// Chooses the format: a Content-Type naming openmetrics-text or text/plain decides;
/// otherwise a line "# EOF" anywhere in the text means OpenMetrics.
ExpositionFormat detect_format(std::string_view text, std::string_view content_type = {});

/// Streams the exposition into the visitor.
/// @param text the whole exposition; not copied, must outlive the call
/// @param visitor receives each valid sample and each error, in line order
/// @param options format (or auto) and limits
/// @return the families, counts and the format used
ParseReport parse_exposition(std::string_view text, ExpositionVisitor& visitor,
                             const ParseOptions& options = {});

/// A sample with an owned series identity (Labels include "__name__").
struct ParsedSample {
  Labels labels;
  double value = 0;
  std::optional<std::int64_t> timestamp_ms;
  std::size_t family = 0;
  std::size_t line = 0;
};

struct ParsedExposition {
  ParseReport report;
  std::vector<ParsedSample> samples;
  std::vector<ParseError> errors;  // at most max_errors; report.errors counts them all
};

/// Convenience: collects every sample and up to max_errors errors.
ParsedExposition parse_exposition_collect(std::string_view text, const ParseOptions& options = {},
                                          std::size_t max_errors = 1000);

}  // namespace limitscope::metrics
