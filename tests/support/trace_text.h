#pragma once
// Request traces written as JSON lines (docs/tuner.md), for tests that replay them.

#include <string>

namespace limitscope::test {

/// `n` events a line each, the i-th at `start` + i x `step` seconds, each with `fields` (the
/// JSON members after "t", e.g. "\"key\": \"a\"").
inline std::string trace_events(int n, double step, const std::string& fields, double start = 0) {
  std::string t;
  for (int i = 0; i < n; ++i)
    t += "{\"t\": " + std::to_string(start + step * i) + ", " + fields + "}\n";
  return t;
}

}  // namespace limitscope::test
