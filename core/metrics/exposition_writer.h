#pragma once
// Writes the Prometheus text exposition format 0.0.4, line by line, into a std::string.
// The registry renders through these; the parser reads the result back to the same values.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "core/metrics/exposition_parser.h"

namespace limitscope::metrics {

/// Appends a value as Prometheus writes it: "+Inf", "-Inf", "NaN", else the shortest text
/// that reads back to the same double.
void append_value(std::string& out, double v);

/// Appends a label value with \\, \" and \n escaped.
void append_escaped_label_value(std::string& out, std::string_view v);

/// Appends `# HELP name text` (\\ and \n escaped) and a newline.
void append_help_line(std::string& out, std::string_view name, std::string_view help);

/// Appends `# TYPE name type` and a newline; kUnknown is written "untyped" (0.0.4).
/// @pre type is one 0.0.4 knows: counter, gauge, histogram, summary or unknown.
void append_type_line(std::string& out, std::string_view name, MetricType type);

/// Appends one sample line: `name{l="v",...} value [timestamp_ms]`.
/// @param labels written in the given order; `{}` is omitted when there are none
/// @param extra one more label written last (the `le` of a bucket), or nullptr
void append_sample_line(std::string& out, std::string_view name, std::span<const LabelView> labels,
                        double value, const LabelView* extra = nullptr,
                        std::optional<std::int64_t> timestamp_ms = std::nullopt);

}  // namespace limitscope::metrics
