#pragma once
// A clock injected into a real process (Debian package faketime: libfaketime, LD_PRELOADed):
// every clock the process reads, CLOCK_MONOTONIC (std::chrono::steady_clock) included, runs at
// real speed plus an offset the test moves forward, so a test can let a process's time pass
// without waiting for it. The offset is in a file the library reads at each clock call
// (FAKETIME_NO_CACHE=1).

#include <chrono>
#include <fstream>
#include <string>
#include <vector>

#include "support/process.h"

namespace limitscope::test {

class FakeClock {
 public:
  /// @param name distinguishes the offset file of one test
  explicit FakeClock(const std::string& name) : path_(write_temp(name + ".faketime", "+0\n")) {}

  /// The environment that puts a process on this clock (GatewayProcess's env).
  std::vector<std::string> env() const {
    return {"LD_PRELOAD=/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1",
            "FAKETIME_TIMESTAMP_FILE=" + path_, "FAKETIME_NO_CACHE=1"};
  }

  /// Moves the process's clocks forward by `by` (at once, for its next clock read).
  void advance(std::chrono::seconds by) {
    offset_ += by;
    std::ofstream(path_, std::ios::trunc) << "+" << offset_.count() << "s\n";
  }

 private:
  std::string path_;
  std::chrono::seconds offset_{0};
};

}  // namespace limitscope::test
