#pragma once
// A rule's shadow config (issue 19): a candidate stored beside the live config, with the same
// fields, its own version, compare-and-set and its own audit stream (docs/redis-schema.md).
// Every decision of the rule evaluates it on the same request, on its own state keys, and never
// enforces it (decide.lua); what it decided is counted in "<prefix>{R}:shadow:counts".

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/redis/connection.h"
#include "core/redis/key_schema.h"
#include "core/redis/rule_config.h"

namespace limitscope::redis {

/// What decide.lua counted of the current shadow since it was set (every decision of the rule
/// it evaluated, on every gateway).
struct ShadowCounts {
  std::int64_t allowed = 0;
  std::int64_t rejected = 0;
  std::int64_t would_reject = 0;  ///< the live config admitted, the shadow would have refused
  std::int64_t would_admit = 0;   ///< the live config refused, the shadow would have admitted
  std::int64_t evaluated() const { return allowed + rejected; }
};

/// What the shadow hash holds: a config, or none (never set, or cleared: then the version the
/// clear created, so the next set follows it).
struct ShadowState {
  std::optional<RuleConfig> config;
  std::int64_t version = 0;  ///< the shadow's current version (0: never set)
  std::int64_t updated_at_ms = 0;
  std::string updated_by;
  std::string reason;
  ShadowCounts counts;  ///< all 0 until a decision evaluated this shadow
};

/// Said where a shadow is shown that no decision has evaluated yet.
inline constexpr std::string_view kShadowNotEvaluated =
    "not yet evaluated: no decision of the rule has been made since the shadow was set";

/// The rule's shadow. Refused (reply) when the hash is not one limitscope wrote.
Result<ShadowState> get_shadow(Connection& c, const KeySchema& schema, std::string_view rule);

/// Stores `config` as the rule's shadow (version + 1, audit entry "set"), with compare-and-set
/// on change.expect_version when given. Checked as set_config() checks a live config.
Result<RuleConfig> set_shadow(Connection& c, const KeySchema& schema, std::string_view rule,
                              const RuleConfig& config, const ChangeInfo& change);

/// Removes the rule's shadow (version + 1, audit entry "clear"), compare-and-set on
/// change.expect_version when given. Refused (reply) when there is no shadow.
/// @return the state after the clear (no config, the new version)
Result<ShadowState> clear_shadow(Connection& c, const KeySchema& schema, std::string_view rule,
                                 const ChangeInfo& change);

/// The newest `count` entries of the shadow's audit stream, newest first.
Result<std::vector<AuditEntry>> shadow_history(Connection& c, const KeySchema& schema,
                                               std::string_view rule, std::size_t count);

/// True for the error clear_shadow() returns when there is no shadow.
bool is_no_shadow(const RedisError& e);

}  // namespace limitscope::redis
