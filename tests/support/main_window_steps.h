#pragma once
// Driving a MainWindow over an embedded simulation in tests: run simulated time and wait until
// the window shows it.

#include <gtest/gtest.h>

#include <QTest>
#include <algorithm>
#include <cstdint>
#include <string>

#include "ui/main_window.h"

namespace limitscope::test {

/// How long a GUI test waits for a condition at most; an upper bound, not a sleep.
constexpr int kGuiWaitMs = 60'000;

/// The embedded simulation of `scenario` ("runaway", "burst", ...) with `seed`.
inline EmbeddedSimulationOptions simulation_of(const std::string& scenario, std::uint64_t seed) {
  EmbeddedSimulationOptions o;
  o.scenario = scenario;
  o.seed = seed;
  return o;
}

/// Runs `seconds` of simulated time in the window and waits until it shows the result: the
/// newest time, drawn for the window's current view (its width sets the columns).
inline void advance(ui::MainWindow& w, double seconds) {
  ASSERT_TRUE(QTest::qWaitFor([&] { return w.lastSnapshot() != nullptr; }, kGuiWaitMs));
  const qint64 before = w.lastSnapshot()->now_ms;
  w.fastForward(seconds);
  ASSERT_TRUE(QTest::qWaitFor(
      [&] {
        return w.lastSnapshot() &&
               w.lastSnapshot()->now_ms >= before + static_cast<qint64>(seconds * 1000) &&
               w.lastSnapshot()->view.columns == std::max(50, w.viewRequest().columns) &&
               w.lastSnapshot()->view.max_lines == w.viewRequest().max_lines;
      },
      kGuiWaitMs));
}

}  // namespace limitscope::test
