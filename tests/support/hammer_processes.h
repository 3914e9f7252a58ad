#pragma once
// Several `limitscope-cli hammer` processes on one key at once, for the contention checks of
// the CLI tests (one server and a cluster): at most C + r·span may be admitted over them all.

#include <string>

namespace limitscope::test {

/// What the processes' `--json` reports say together.
struct HammerTotals {
  long long admitted = 0;
  long long decided = 0;  ///< admitted + rejected
  double span_s = 0;      ///< server time from the earliest start to the latest end
};

/// Runs `processes` hammer processes at once on key "shared" of `rule` at `url`, each with
/// `threads` threads for `duration` ("2s"), and adds up their reports. Every process must exit
/// 0 and report no errors and no degraded decisions (gtest failures otherwise).
/// @param stem names the processes' report files in the temp directory
HammerTotals run_hammer_processes(const std::string& url, const std::string& rule, int processes,
                                  int threads, const std::string& duration,
                                  const std::string& stem);

}  // namespace limitscope::test
