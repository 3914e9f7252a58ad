#pragma once
// One parameter shape for every algorithm, so the policy, the tuner's sweeps, the Redis config
// hash and the UI all speak the same language. Which fields matter depends on the algorithm:
//   token_bucket, gcra, leaky_bucket:   capacity (cost units / queue depth), refill (rate)
//   sliding_log, sliding_counter, fixed_window:   limit (cost units per window), window

#include <optional>
#include <string>
#include <string_view>

#include "core/common/clock.h"
#include "core/common/expected.h"
#include "core/limiter/rate.h"

namespace limitscope {

enum class Algorithm {
  token_bucket,
  gcra,
  sliding_log,
  sliding_counter,
  fixed_window,
  leaky_bucket
};

/// "token-bucket", "gcra", "sliding-log", "sliding-counter", "fixed-window", "leaky-bucket".
std::string_view to_string(Algorithm a);
/// Accepts the names above (and '_' for '-'); nullopt otherwise.
std::optional<Algorithm> parse_algorithm(std::string_view name);
/// Bucket algorithms use capacity/refill; window algorithms use limit/window.
bool is_window_algorithm(Algorithm a);

struct LimitParams {
  Algorithm algorithm = Algorithm::token_bucket;
  double capacity = 0;  // bucket size or queue depth, cost units
  Rate refill;          // refill (buckets) or drain (leaky bucket) rate
  double limit = 0;     // cost units admitted per window
  Nanos window{0};      // window length

  /// The most cost one request can ever be admitted with (capacity or limit).
  double max_cost() const { return is_window_algorithm(algorithm) ? limit : capacity; }
  /// Checks the fields this algorithm uses: finite, > 0, window >= 1 ms.
  /// @return ok, or the reason (e.g. "capacity must be > 0, got -1").
  Status validate() const;
  /// "token-bucket capacity=500 refill=50/s" for logs, tooltips and the audit trail.
  std::string describe() const;
};

}  // namespace limitscope
