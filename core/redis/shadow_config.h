#pragma once
// A rule's shadow config (issue 19): a candidate stored beside the live config, with the same
// fields, its own version, compare-and-set and its own audit stream (docs/redis-schema.md).
// Storage only: no gateway evaluates it yet, so it neither enforces nor counts anything.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/redis/connection.h"
#include "core/redis/key_schema.h"
#include "core/redis/rule_config.h"

namespace limitscope::redis {

/// What the shadow hash holds: a config, or none (never set, or cleared: then the version the
/// clear created, so the next set follows it).
struct ShadowState {
  std::optional<RuleConfig> config;
  std::int64_t version = 0;  ///< the shadow's current version (0: never set)
  std::int64_t updated_at_ms = 0;
  std::string updated_by;
  std::string reason;
};

/// Said wherever a shadow is shown, until the gateway evaluates it.
inline constexpr std::string_view kShadowNotEvaluated =
    "not yet evaluated: no gateway reads the shadow config, so it enforces nothing and counts nothing";

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
