#pragma once
// The Go-template subset Prometheus alert labels and annotations use, parsed once when a rule
// loads (a syntax error makes the rule invalid, as in Prometheus) and expanded at every
// evaluation. Supported: text with `{{ }}` actions and `{{- -}}` trimming, comments,
// $labels / $value / $externalLabels / $externalURL and the same through `.Labels`, `.Value`,
// `.ExternalLabels`, `.ExternalURL`, `$x := ...` variables, pipelines with `|`, parentheses,
// `if` / `else if` / `else` / `end`, and the functions humanize, humanize1024,
// humanizeDuration, humanizePercentage, humanizeTimestamp, printf, print, toUpper, toLower,
// title, match, reReplaceAll, index, len, not, and, or, eq, ne, lt, le, gt, ge.
// Output is formatted as Go's text/template and Prometheus format it (see go_format.h).
// Not supported (refused at load with the reason): range, with, define/template/block and
// the query functions (query, first, label, value, sortByLabel, ...), which need a querier.

#include <memory>
#include <string>
#include <string_view>

#include "core/common/expected.h"
#include "core/metrics/labels.h"

namespace limitscope::metrics {

/// What a template sees: Prometheus's AlertTemplateData.
struct TemplateData {
  const Labels* labels = nullptr;           ///< the series as the expression returned it
                                            ///< (with __name__ when it has one, as in 2.42)
  double value = 0;                         ///< the sample value of the alert's series
  const Labels* external_labels = nullptr;  ///< nullptr: empty map
  std::string_view external_url;
};

class AlertTemplate {
 public:
  /// The empty template (expands to "").
  AlertTemplate();

  /// Parses a template.
  /// @param text the template source, e.g. "{{ $labels.tier }} is at {{ $value | humanize }}".
  /// @param name names the template in errors, e.g. "annotations.summary".
  /// @return the template, or an error "template NAME: line L, column C: REASON".
  static Expected<AlertTemplate> parse(std::string_view text, std::string_view name);

  /// Expands against data.
  /// @return the text, or an error "template NAME: line L, column C: REASON" for a runtime
  ///   failure (a function refusing its argument); Prometheus then shows
  ///   "<error expanding template: ...>", which expand_or_error() returns.
  Expected<std::string> expand(const TemplateData& data) const;
  /// expand(), with an error rendered as Prometheus renders it into the label/annotation.
  std::string expand_or_error(const TemplateData& data) const;

  const std::string& text() const;
  /// False when the text has no `{{`: expansion returns it unchanged.
  bool has_actions() const;

  struct Impl;

 private:
  explicit AlertTemplate(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}
  std::shared_ptr<const Impl> impl_;  // immutable after parse: safe to share across threads
};

}  // namespace limitscope::metrics
