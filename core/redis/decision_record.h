#pragma once
// One decision of decide.lua's reply, as the C++ reads it: the 44-byte record common.lua's
// ls_record writes (docs/redis-schema.md, "The reply"). Its own file so the fuzzer
// (fuzz/decision_record_fuzz.cpp) builds it without the rest of the Redis client.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/limiter/decision.h"
#include "core/redis/redis_error.h"
#include "core/redis/redis_value.h"

namespace limitscope::redis {

/// One decision made in Redis.
struct RedisDecision {
  Decision decision;                ///< as core/limiter gives it (delay is always 0)
  std::int64_t config_version = 0;  ///< the rule config version it was made under
  std::string binding_limit;        ///< composite: the limit remaining and limit describe: the
                                    ///< one that refused, or with the least remaining when all
                                    ///< admitted (CompositeLimiter's choice); else ""
  bool state_reset = false;         ///< the stored state was unreadable or out of range and was
                                    ///< replaced by the most restrictive state (schema doc)
  /// What the rule's shadow config (shadow_config.h) decided for the same request, never
  /// enforced: nullopt when the rule has no shadow (or it could not evaluate this request).
  std::optional<bool> shadow_allowed;
};

/// Bytes of a decision record of decide.lua's reply before the reported limit's name: allowed,
/// reason code, state_reset, shadow outcome (0: none, for issue 19: 1 refused, 2 admitted),
/// then remaining, limit, retry_after ns (-1: never), reset_after ns and the config version as
/// little-endian doubles (common.lua's ls_record).
inline constexpr std::size_t kRecordBytes = 44;
/// Bytes of the short record of an admission with nothing else to report (reason allowed, no
/// reset, no shadow, retry_after 0, no name): remaining, limit, reset_after ns and the config
/// version as little-endian doubles (lean.lua's ls_tb_admit, issue 18: a pack of 4 fields
/// instead of 9).
inline constexpr std::size_t kAdmittedRecordBytes = 32;

/// Parses one decision of decide.lua's reply: a record (kRecordBytes and the name, or
/// kAdmittedRecordBytes), or the error of a decision not made (nothing was written). Exposed
/// for tests.
Result<RedisDecision> parse_decision_record(const Value& v);

/// A protocol error about decide.lua's reply `v`: "decide.lua reply: <what> in <v>".
RedisError decide_reply_error(const Value& v, std::string_view what);

}  // namespace limitscope::redis
