#pragma once
// bench-probe --own: limiter keys in limitscope's own schema, as decide.lua writes them, for one
// server or a cluster. A rule of capacity 60 refilled at 1/min (so the states, whose TTL is
// their time until full, outlive the run), N token-bucket states with levels between half and
// full, and a key emptied as traffic empties it: a burst of 60 one-unit decisions.

#include <string>
#include <vector>

#include "core/limiter/limit_params.h"
#include "core/redis/key_schema.h"
#include "core/redis/redis_limiter.h"

namespace limitscope::cli {

/// The rule's parameters: token bucket, capacity 60, 1/min.
LimitParams own_bench_params();
/// The limited key of seeded key i: "free-<i>".
std::string own_label(long long i);
/// SET of seeded key i of `rule` at `now_us`: the 24-byte state with its TTL until full.
std::vector<std::string> own_seed_command(const redis::KeySchema& schema, const std::string& rule,
                                          long long i, double now_us);
/// The decisions that empty `label`: 60 of one unit (decide them in one call).
std::vector<redis::DecideRequest> own_drain_burst(const std::string& label);

}  // namespace limitscope::cli
