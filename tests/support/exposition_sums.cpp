#include "support/exposition_sums.h"

#include <gtest/gtest.h>

#include "core/metrics/exposition_parser.h"

namespace limitscope::test {

namespace {
metrics::ParsedExposition parse(std::string_view text) {
  metrics::ParseOptions opts;
  opts.format = metrics::ExpositionFormat::kPrometheus;
  return metrics::parse_exposition_collect(text, opts);
}
}  // namespace

double sum_samples(std::string_view text, std::string_view name, const LabelMatch& match) {
  const auto parsed = parse(text);
  EXPECT_TRUE(parsed.errors.empty())
      << (parsed.errors.empty() ? "" : parsed.errors.front().message);
  if (!parsed.errors.empty()) return -1;
  double sum = 0;
  for (const auto& s : parsed.samples) {
    if (s.labels.metric_name() != name) continue;
    bool ok = true;
    for (const auto& [k, v] : match) ok = ok && s.labels.get(k) == v;
    if (ok) sum += s.value;
  }
  return sum;
}

std::string first_label(std::string_view text, std::string_view name, std::string_view label) {
  for (const auto& s : parse(text).samples) {
    if (s.labels.metric_name() == name) return std::string(s.labels.get(label));
  }
  return "";
}

}  // namespace limitscope::test
