#pragma once
// One step of a staged rollout's controller (issue 19 item 3), the same for `limitscope-cli
// rollout start|resume` and any other driver: read the state from Redis, check the guard, then
// trip (share 0 at once, audited, with the guard's value), step to the next share once the step
// has held, or complete (the shadow becomes the live config through config_set, audited, so
// `config undo` returns to the config before the rollout; then the shadow is cleared). The time
// is passed in (the server's clock in the CLI, any in tests).

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "core/redis/connection.h"
#include "core/redis/key_schema.h"
#include "core/redis/rollout.h"

namespace limitscope::redis {

/// What the guard said at one check (core/probe/rollout_guard.h gives it for a /metrics source).
struct GuardCheck {
  bool tripped = false;
  std::optional<double> value;  ///< the first sample's value (or the scalar); nullopt: none
};
/// The guard at one check, or why it could not be evaluated: the rollout then holds (it never
/// steps on an unknown guard).
using GuardFn = std::function<Expected<GuardCheck>()>;

/// Starts a rollout of the rule's current shadow at steps_bp[0] (refused when the rule has no
/// shadow, the shadow is a composite, or a rollout is active).
Result<RolloutState> start_rollout(Connection& c, const KeySchema& schema, std::string_view rule,
                                   RolloutState plan, std::int64_t now_ms, const std::string& by);

/// One tick at now_ms. @return the state after it (unchanged when nothing was due)
Result<RolloutState> rollout_tick(Connection& c, const KeySchema& schema, std::string_view rule,
                                  const GuardFn& guard, std::int64_t now_ms, const std::string& by);

/// Pauses a running rollout at now_ms: the share stays enforced and the guard is still
/// watched (a trip still rolls back), but no step is taken; the hold timer is frozen (held_ms
/// keeps what the step had held). Audited "pause"; refused unless running.
Result<RolloutState> pause_rollout(Connection& c, const KeySchema& schema, std::string_view rule,
                                   std::int64_t now_ms, const std::string& by,
                                   const std::string& reason);

/// Resumes a paused rollout at now_ms from the step it was paused at, with the rest of that
/// step's hold still to serve. Audited "resume"; refused unless paused.
Result<RolloutState> resume_rollout(Connection& c, const KeySchema& schema, std::string_view rule,
                                    std::int64_t now_ms, const std::string& by);

/// Ends an active rollout: share 0 at once (state aborted), audited with `reason`.
Result<RolloutState> abort_rollout(Connection& c, const KeySchema& schema, std::string_view rule,
                                   const std::string& by, const std::string& reason);

}  // namespace limitscope::redis
