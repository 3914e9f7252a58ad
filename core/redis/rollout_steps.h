#pragma once
// The steps of a staged rollout (core/redis/rollout.h) as an operator writes them: "1,10,50,100",
// percentages of the keys, increasing, the last 100. Apart from rollout.h so the fuzz target
// (fuzz/rollout_steps_fuzz.cpp) links it alone.

#include <cstdint>
#include <string_view>
#include <vector>

#include "core/common/expected.h"

namespace limitscope::redis {

/// Shares are basis points of the keys (10000 = all).
inline constexpr std::int64_t kAllKeys = 10000;

/// "1,10,50,100" (percent, increasing, at least 0.01, the last 100) as basis points.
/// @return the steps, or an error naming the part that is wrong
Expected<std::vector<std::int64_t>> parse_rollout_steps(std::string_view text);

}  // namespace limitscope::redis
