#pragma once
// A staged rollout of a rule's shadow config (issue 19 item 3): the shadow is enforced for a
// growing share of the keys (by a hash of the key, so a key stays in or out and every gateway
// agrees), held at each step while a guard is watched, then made the live config; a guard that
// trips returns every key to the live config at once. The state lives in Redis
// ("<prefix>{R}:shadow:rollout", a hash, and "<prefix>{R}:shadow:rollout:audit", a stream), so a
// restarted controller continues it (docs/redis-schema.md, docs/cli.md).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/common/expected.h"
#include "core/redis/connection.h"
#include "core/redis/key_schema.h"
#include "core/redis/rollout_steps.h"
#include "core/redis/rule_config.h"

namespace limitscope::redis {

/// "<prefix>{R}:shadow:rollout": the rollout of the rule's shadow (hash).
inline std::string rollout_key(const KeySchema& schema, std::string_view rule) {
  return schema.shadow_key(rule) + ":rollout";
}
/// "<prefix>{R}:shadow:rollout:audit": one entry per rollout change (stream).
inline std::string rollout_audit_key(const KeySchema& schema, std::string_view rule) {
  return rollout_key(schema, rule) + ":audit";
}

struct RolloutState {
  /// running, paused (held: no step, the share stays), completed (the shadow is the live
  /// config), rolled_back (the guard tripped: share 0), aborted (share 0).
  std::string state;
  std::vector<std::int64_t> steps_bp;  ///< the shares of the steps, increasing, the last 10000
  std::size_t step = 0;                ///< index into steps_bp
  std::int64_t share_bp = 0;           ///< enforced now (decide.lua reads it)
  std::int64_t hold_ms = 0;            ///< how long each step holds before the next
  std::string guard;                   ///< a PromQL expression: trips when it returns a sample
  std::string source;                  ///< the /metrics URL the guard is evaluated on
  std::int64_t shadow_version = 0;     ///< the candidate rolled out (a new shadow stops it)
  std::int64_t step_started_ms = 0;    ///< when the current step began (Redis TIME, ms)
  /// Paused: how long the step had held when it was paused (the hold timer is frozen while
  /// paused; resume continues it, so time paused does not count toward the hold).
  std::int64_t held_ms = 0;
  std::string started_by;             ///< who started the rollout
  std::optional<double> guard_value;  ///< the guard's last value (nullopt: returned nothing)
  std::int64_t guard_checked_ms = 0;  ///< when a check between steps wrote it (0: none did)
  std::int64_t seq = 0;               ///< +1 per write (compare-and-set)
  std::string reason;                 ///< of the latest change ("guard tripped: ...")
  std::int64_t updated_at_ms = 0;

  bool active() const { return state == "running" || state == "paused"; }
};

/// How much of the current step's hold is left at now_ms: running, the hold minus the time
/// since the step began; paused, minus what it had held when paused; 0 when not active.
std::int64_t hold_left_ms(const RolloutState& s, std::int64_t now_ms);

/// Whether `key` (the limited key, as decided) is inside a share: the first 28 bits of its
/// SHA-1, mod 10000, below share_bp. decide.lua computes the same.
bool in_rollout_share(std::string_view key, std::int64_t share_bp);

/// The rule's rollout, nullopt when none was ever started.
Result<std::optional<RolloutState>> get_rollout(Connection& c, const KeySchema& schema,
                                                std::string_view rule);

/// Writes `s` (seq + 1, the stamp rewritten so the next decision uses its share, an audit entry
/// with `action`), compare-and-set on expect_seq (0: no rollout yet).
/// @return the state as written; reply "LSCAS ..." when another controller moved it
Result<RolloutState> write_rollout(Connection& c, const KeySchema& schema, std::string_view rule,
                                   const RolloutState& s, std::int64_t expect_seq,
                                   std::string_view action, const std::string& by);

/// Records the guard's value of a check between steps, compare-and-set on expect_seq (the
/// state's seq is left as it is; no audit entry, no stamp change: rollout_set.lua's check).
/// @return when it was written (Redis TIME, ms); reply "LSCAS ..." when the rollout moved
Result<std::int64_t> write_guard_value(Connection& c, const KeySchema& schema,
                                       std::string_view rule, const std::optional<double>& value,
                                       std::int64_t expect_seq);

/// One entry of the rollout's audit stream.
struct RolloutEvent {
  std::string id;
  std::int64_t seq = 0;
  std::string action;  ///< start, step, pause, resume, trip, complete, abort
  std::string by;
  std::int64_t at_ms = 0;
  std::string reason;
  std::string state;
  std::int64_t share_bp = 0;
  std::optional<double> guard_value;
};

/// The newest `count` entries, newest first.
Result<std::vector<RolloutEvent>> rollout_history(Connection& c, const KeySchema& schema,
                                                  std::string_view rule, std::size_t count);

}  // namespace limitscope::redis
