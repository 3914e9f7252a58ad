#pragma once
// limitscope-cli's --json answers, read the one way the CLI tests read them.

#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "support/process.h"

namespace limitscope::test {

/// The JSON `limitscope-cli args` prints. Throws (gtest reports it as the test's failure, with
/// the command and its stderr) when the command exits other than 0 or prints no JSON.
inline nlohmann::json cli_json(const std::string& args) {
  const ProcessResult r = run_cli(args);
  if (r.exit_code != 0) {
    throw std::runtime_error("limitscope-cli " + args + ": exit " + std::to_string(r.exit_code) +
                             ": " + r.err);
  }
  return nlohmann::json::parse(r.out);
}

}  // namespace limitscope::test
