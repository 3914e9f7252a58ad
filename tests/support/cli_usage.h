#pragma once
// Command lines limitscope-cli must refuse as bad usage, checked the one way every CLI test
// checks them.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/process.h"
#include "support/test_paths.h"

namespace limitscope::test {

/// Arguments after the subcommand, and what the usage error must say.
struct UsageErrorCase {
  std::string args;
  std::string message;
};

/// Runs `run(args)` for each case: it must exit 2 with `message` on stderr (and, with
/// `one_line`, nothing else than that one line).
template <class Run>
void expect_usage_errors_of(Run run, const std::vector<UsageErrorCase>& cases, bool one_line) {
  for (const auto& c : cases) {
    SCOPED_TRACE(c.args);
    const ProcessResult r = run(c.args);
    EXPECT_EQ(r.exit_code, 2) << r.out;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << r.err;
    if (one_line) {
      EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "one line: " << r.err;
    }
  }
}

/// expect_usage_errors_of `limitscope-cli command args`.
inline void expect_usage_errors(const std::string& command,
                                const std::vector<UsageErrorCase>& cases, bool one_line = false) {
  expect_usage_errors_of([&](const std::string& args) { return run_cli(command + " " + args); },
                         cases, one_line);
}

/// expect_usage_errors_of `limitscope-gateway args`, each error one line.
inline void expect_gateway_usage_errors(const std::vector<UsageErrorCase>& cases) {
  expect_usage_errors_of(
      [](const std::string& args) {
        return run_process(binary_path("app/limitscope-gateway"), args);
      },
      cases, /*one_line=*/true);
}

}  // namespace limitscope::test
