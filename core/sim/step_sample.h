#pragma once
// What one simulation step produces: exactly what the dashboard plots and the CLI prints.
// Plain structs, no Qt. Counts are per step; levels are read at the end of the step.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/common/clock.h"
#include "core/limiter/limit_params.h"

namespace limitscope {

/// One (API key, model) limiter state during one step.
struct KeyStepSample {
  std::string api_key;
  std::string tier;
  std::string model;
  Algorithm algorithm = Algorithm::token_bucket;
  /// Cost units that could be admitted now / the most the state can hold (capacity or window
  /// limit), in [0, 1], at the end of the step. 1 = full bucket / empty window.
  double level = 1;
  /// Window algorithms: cost units used in the current window / limit, in [0, 1]; leaky
  /// bucket: queue fill. nullopt for token bucket and GCRA.
  std::optional<double> occupancy;
  std::int64_t admitted = 0;    // requests admitted in this step (degraded ones included)
  std::int64_t rejected = 0;    // requests answered 429 in this step
  std::int64_t degraded = 0;    // admitted without limiting during a backend outage (fail-open)
  std::int64_t retries = 0;     // requests in this step that were retries of an earlier 429
  double cost = 0;              // cost units admitted in this step
  std::int64_t llm_tokens = 0;  // LLM tokens of the admitted requests
  double spend = 0;             // dollars: llm_tokens x model price / 1e6
  /// Cost units this key (all models) consumed today / its tier's daily quota; 0 when the
  /// tier has none. Degraded requests are not counted (the limiter never saw them).
  double quota_burn = 0;
};

/// Totals of a group (a tier or a model) during one step.
struct GroupStepSample {
  std::string name;
  std::int64_t admitted = 0;
  std::int64_t rejected = 0;
  std::int64_t degraded = 0;
  double spend = 0;  // dollars
};

struct StepSample {
  Nanos time{0};                          // end of the step, simulated time since the run began
  Nanos step{0};                          // length of the step
  std::vector<KeyStepSample> keys;        // sorted by (api_key, model)
  std::vector<GroupStepSample> by_tier;   // every tier of the policy, sorted by name
  std::vector<GroupStepSample> by_model;  // every model of the policy, sorted by name
  std::int64_t admitted = 0;
  std::int64_t rejected = 0;
  std::int64_t degraded = 0;
  std::int64_t retries = 0;
  std::int64_t gave_up = 0;  // requests a client dropped after a 429 (no retry left/allowed)
  double spend = 0;          // dollars
  double ratio_429 = 0;      // rejected / (admitted + rejected); 0 when there were none
  std::vector<std::string> incidents;  // incidents active during the step (describe())
};

/// Totals over many steps, per key, per tier, per model and overall.
struct SimTotals {
  struct Row {
    std::string tier;  // keys only
    std::int64_t admitted = 0;
    std::int64_t rejected = 0;
    std::int64_t degraded = 0;
    std::int64_t retries = 0;
    std::int64_t llm_tokens = 0;
    double cost = 0;
    double spend = 0;
    double quota_burn = 0;  // keys only: the last value seen
  };
  Nanos duration{0};
  std::map<std::string, Row> by_key;  // api key -> totals over its models
  std::map<std::string, Row> by_tier;
  std::map<std::string, Row> by_model;
  Row all;
  std::int64_t gave_up = 0;

  void add(const StepSample& s);
  double ratio_429() const;
};

}  // namespace limitscope
