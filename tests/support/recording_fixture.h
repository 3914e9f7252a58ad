#pragma once
// A deterministic session recorded in memory: the embedded simulation on a fixed scenario
// and seed, stepped by simulated time (no sleeps), its recording written to a string.

#include <memory>
#include <sstream>
#include <string>

#include "core/sources/embedded_simulation_source.h"

namespace limitscope::test {

inline EmbeddedSimulationOptions recorded_scenario() {
  EmbeddedSimulationOptions o;
  o.scenario = "burst";
  o.seed = 11;
  // Short layout: the burst (and its 429s) comes within the first minutes.
  o.scenario_length = std::chrono::minutes(4);
  return o;
}

inline std::unique_ptr<EmbeddedSimulationSource> make_recorded_source() {
  auto s = EmbeddedSimulationSource::create(default_policy(), recorded_scenario());
  if (!s.ok()) return nullptr;
  return std::move(*s);
}

}  // namespace limitscope::test
