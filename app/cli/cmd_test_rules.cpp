// limitscope-cli test-rules: runs Prometheus rule unit-test files (promtool's format) and
// prints per-file SUCCESS / FAILED with the differences, as `promtool test rules` does.

#include <iostream>
#include <nlohmann/json.hpp>

#include "app/cli/commands.h"
#include "app/cli/json_output.h"
#include "app/options/args.h"
#include "core/metrics/promtool_test_file.h"
#include "core/metrics/promtool_test_runner.h"

namespace limitscope::cli {

namespace {

std::string_view verdict_name(metrics::RuleTestReport::Verdict v) {
  switch (v) {
    case metrics::RuleTestReport::Verdict::passed:
      return "passed";
    case metrics::RuleTestReport::Verdict::failed:
      return "failed";
    case metrics::RuleTestReport::Verdict::bad_input:
      return "bad_input";
  }
  return "bad_input";
}

}  // namespace

int run_test_rules(const CommandArgs& argv) {
  const Expected<Args> command_line = Args::parse(
      "test-rules FILE...",
      "Run rule unit-test files in the format of `promtool test rules`: input series,\n"
      "alert_rule_test (firing alerts at eval_time) and promql_expr_test.\n"
      "Exit 0 when every test passes, 1 when one fails, 2 when a file (test or rule file)\n"
      "is unreadable or malformed, or on bad usage.",
      {{"json", "", "print one JSON object instead of promtool-style text"}}, argv,
      /*allow_positional=*/true);
  if (const auto exit = early_exit(command_line, "test-rules")) return *exit;
  const Args& args = *command_line;
  if (args.positional().empty()) return usage_error("test-rules", "expects at least one FILE");

  const bool json = args.has("json");
  nlohmann::json files = nlohmann::json::array();
  bool any_failed = false;
  bool any_bad = false;
  for (const std::string& path : args.positional()) {
    metrics::RuleTestReport report;
    auto file = metrics::load_rule_test_file(path);
    if (!file.ok()) {
      report.verdict = metrics::RuleTestReport::Verdict::bad_input;
      report.input_error = file.error();
    } else {
      report = metrics::run_rule_test_file(*file);
    }
    any_failed = any_failed || report.verdict == metrics::RuleTestReport::Verdict::failed;
    any_bad = any_bad || report.verdict == metrics::RuleTestReport::Verdict::bad_input;
    if (json) {
      files.push_back({{"file", path},
                       {"verdict", verdict_name(report.verdict)},
                       {"failures", report.failures},
                       {"error", report.input_error}});
      continue;
    }
    std::cout << "Unit Testing:  " << path << "\n" << std::flush;
    switch (report.verdict) {
      case metrics::RuleTestReport::Verdict::passed:
        std::cout << "  SUCCESS\n";
        break;
      case metrics::RuleTestReport::Verdict::failed:
        std::cerr << "  FAILED:\n";
        for (const auto& f : report.failures) std::cerr << f << "\n\n";
        break;
      case metrics::RuleTestReport::Verdict::bad_input:
        std::cerr << "limitscope-cli test-rules: " << report.input_error << "\n";
        break;
    }
    std::cerr << std::flush;
    std::cout << "\n" << std::flush;
  }
  if (json) {
    std::size_t passed = 0;
    for (const auto& f : files) passed += f["verdict"] == "passed" ? 1 : 0;
    std::cout << json_text(
                     nlohmann::json{{"files", files}, {"passed", passed}, {"total", files.size()}},
                     2)
              << "\n";
  }
  if (any_bad) return 2;
  return any_failed ? 1 : 0;
}

}  // namespace limitscope::cli
