#include "support/hammer_processes.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <sstream>

#include "support/process.h"
#include "support/test_paths.h"

namespace limitscope::test {

HammerTotals run_hammer_processes(const std::string& url, const std::string& rule, int processes,
                                  int threads, const std::string& duration,
                                  const std::string& stem) {
  const std::string cli = binary_path("app/limitscope-cli");
  std::ostringstream script;
  for (int p = 0; p < processes; ++p) {
    script << quoted(cli) << " hammer --redis " << url << " --rule " << rule
           << " --key shared --threads " << threads << " --requests 100000000 --duration "
           << duration << " --json > " << quoted(temp_path(stem + std::to_string(p) + ".json"))
           << " & ";
  }
  script << "wait";
  const auto run = run_process("/bin/sh", "-c " + quoted(script.str()));
  EXPECT_EQ(run.exit_code, 0) << run.err;

  HammerTotals totals;
  std::int64_t start = INT64_MAX;
  std::int64_t end = 0;
  for (int p = 0; p < processes; ++p) {
    const auto text = read_file(temp_path(stem + std::to_string(p) + ".json"));
    const auto j = nlohmann::json::parse(text);
    EXPECT_EQ(j["errors"].get<long long>(), 0) << text;
    EXPECT_EQ(j["degraded"].get<long long>(), 0) << text;
    totals.admitted += j["admitted"].get<long long>();
    totals.decided += j["admitted"].get<long long>() + j["rejected"].get<long long>();
    start = std::min(start, j["server_start_us"].get<std::int64_t>());
    end = std::max(end, j["server_end_us"].get<std::int64_t>());
  }
  totals.span_s = static_cast<double>(end - start) / 1e6;
  return totals;
}

}  // namespace limitscope::test
