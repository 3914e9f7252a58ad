#pragma once
// Prometheus rule files: groups of recording and alerting rules, in YAML (the Prometheus
// format, byte for byte) or the same structure in JSON. Validation follows Prometheus 2.42's
// rulefmt so that a file limitscope accepts is one `promtool check rules` accepts: unknown
// keys, missing or conflicting fields, bad durations, expressions that do not parse (with the
// PromQL error), invalid label names and template syntax errors all refuse the file.

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/common/expected.h"
#include "core/metrics/alert_template.h"
#include "core/metrics/promql_ast.h"

namespace limitscope::metrics {

enum class RuleKind { recording, alerting };

/// A label or annotation as written: name, raw text, and (alerting rules) its template.
struct TemplatedPair {
  std::string name;
  std::string text;
  AlertTemplate tmpl;
};

struct Rule {
  RuleKind kind = RuleKind::alerting;
  std::string name;                        ///< `record:` or `alert:` value
  std::string expr_text;                   ///< as written
  ExprPtr expr;                            ///< parsed once at load
  std::int64_t for_ms = 0;                 ///< alerting: pending time before firing
  std::int64_t keep_firing_for_ms = 0;     ///< alerting: firing time kept after the condition ends
  std::vector<TemplatedPair> labels;       ///< sorted by name; templated for alerting rules
  std::vector<TemplatedPair> annotations;  ///< sorted by name; alerting only
  int line = 0;  ///< 1-based source line of the rule (0 when unknown, e.g. JSON)
};

struct RuleGroup {
  std::string name;
  std::int64_t interval_ms = 0;  ///< 0: the engine's default evaluation interval
  std::size_t limit = 0;         ///< 0: no limit on alerts/series a rule may produce
  std::vector<Rule> rules;
  std::string file;  ///< where the group came from (for messages and ALERTS ownership)
};

struct RuleFile {
  std::string path;
  std::vector<RuleGroup> groups;
};

enum class RuleFileFormat { automatic, yaml, json };

/// Parses rule-file text.
/// @param text the file contents (an empty file is valid and has no groups).
/// @param name names the input in errors (usually the path).
/// @param format automatic: JSON when the first non-blank character is `{`, else YAML.
/// @return the groups, or the first error as
///   `NAME:LINE: group "G", rule N ("X"): REASON` (plus " (and K more errors)").
Expected<RuleFile> parse_rule_file(std::string_view text, std::string_view name,
                                   RuleFileFormat format = RuleFileFormat::automatic);

/// The largest rule file read (bytes).
inline constexpr std::size_t kMaxRuleFileBytes = 64u << 20;
/// Reads and parses a rule file; ".json" files are JSON, everything else YAML.
/// @return as parse_rule_file, or an error naming the path when it cannot be read or is
/// larger than kMaxRuleFileBytes.
Expected<RuleFile> load_rule_file(const std::string& path);

/// Checks a Prometheus metric name ([a-zA-Z_:][a-zA-Z0-9_:]*).
bool is_valid_metric_name(std::string_view name);
/// Checks a Prometheus label name ([a-zA-Z_][a-zA-Z0-9_]*).
bool is_valid_label_name(std::string_view name);

}  // namespace limitscope::metrics
