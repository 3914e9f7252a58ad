#pragma once
// Command lines limitscope-cli must refuse as bad usage, checked the one way every CLI test
// checks them.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/process.h"

namespace limitscope::test {

/// Arguments after the subcommand, and what the usage error must say.
struct UsageErrorCase {
  std::string args;
  std::string message;
};

/// Runs `limitscope-cli command args` for each case: it must exit 2 with `message` on stderr
/// (and, with `one_line`, nothing else than that one line).
inline void expect_usage_errors(const std::string& command,
                                const std::vector<UsageErrorCase>& cases, bool one_line = false) {
  for (const auto& c : cases) {
    SCOPED_TRACE(c.args);
    auto r = run_cli(command + " " + c.args);
    EXPECT_EQ(r.exit_code, 2) << r.out;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << r.err;
    if (one_line) {
      EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "one line: " << r.err;
    }
  }
}

}  // namespace limitscope::test
