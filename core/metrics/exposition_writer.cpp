#include "core/metrics/exposition_writer.h"

#include <charconv>
#include <cmath>

namespace limitscope::metrics {

void append_value(std::string& out, double v) {
  if (std::isnan(v)) {
    out += "NaN";
    return;
  }
  if (std::isinf(v)) {
    out += v > 0 ? "+Inf" : "-Inf";
    return;
  }
  char buf[32];
  auto r = std::to_chars(buf, buf + sizeof buf, v);  // shortest round-trip form
  out.append(buf, r.ptr);
}

void append_escaped_label_value(std::string& out, std::string_view v) {
  for (char c : v) {
    switch (c) {
      case '\\':
        out += "\\\\";
        break;
      case '"':
        out += "\\\"";
        break;
      case '\n':
        out += "\\n";
        break;
      default:
        out += c;
    }
  }
}

void append_help_line(std::string& out, std::string_view name, std::string_view help) {
  out += "# HELP ";
  out += name;
  out += ' ';
  for (char c : help) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  out += '\n';
}

void append_type_line(std::string& out, std::string_view name, MetricType type) {
  out += "# TYPE ";
  out += name;
  out += ' ';
  out += type == MetricType::kUnknown ? std::string_view("untyped") : type_name(type);
  out += '\n';
}

void append_sample_line(std::string& out, std::string_view name, std::span<const LabelView> labels,
                        double value, const LabelView* extra,
                        std::optional<std::int64_t> timestamp_ms) {
  out += name;
  if (!labels.empty() || extra != nullptr) {
    out += '{';
    bool first = true;
    auto put = [&](const LabelView& l) {
      if (!first) out += ',';
      first = false;
      out += l.name;
      out += "=\"";
      append_escaped_label_value(out, l.value);
      out += '"';
    };
    for (const auto& l : labels) put(l);
    if (extra != nullptr) put(*extra);
    out += '}';
  }
  out += ' ';
  append_value(out, value);
  if (timestamp_ms) {
    char buf[24];
    auto r = std::to_chars(buf, buf + sizeof buf, *timestamp_ms);
    out += ' ';
    out.append(buf, r.ptr);
  }
  out += '\n';
}

}  // namespace limitscope::metrics
