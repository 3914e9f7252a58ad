#pragma once
// A rule's live configuration in Redis (docs/redis-schema.md): the config hash decide.lua
// reads at every decision, changed only by compare-and-set on its version together with an
// audit stream entry (old, new, who, when, reason), with history and undo.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/common/expected.h"
#include "core/limiter/limit_params.h"
#include "core/redis/connection.h"
#include "core/redis/key_schema.h"
#include "core/redis/redis_error.h"

namespace limitscope::redis {

struct NamedLimit {
  std::string name;  ///< "" for a single-limit rule; a composite's limit name otherwise
  LimitParams params;
};

struct RuleConfig {
  /// One unnamed limit, or a composite's named limits (every one must admit).
  std::vector<NamedLimit> limits;
  /// One key's own parameters in place of the rule's (single-limit rules only, same
  /// algorithm), keyed by the limited key. Stored in the same hash as `o.<field>.<key>`, so a
  /// change to one is a new version of the rule, with its audit entry and undo.
  std::map<std::string, LimitParams> overrides;
  std::int64_t version = 0;        ///< 1 for the first config; +1 per change
  std::int64_t updated_at_ms = 0;  ///< epoch ms (the server's TIME)
  std::string updated_by;
  std::string reason;

  bool composite() const { return limits.size() != 1 || !limits.front().name.empty(); }
  /// "token-bucket capacity=100 refill=10/s", composites "rpm: ...; tpm: ...", then
  /// "; override alice: capacity=..." per override.
  std::string describe() const;
  /// The parameters `key` is limited with: its override, else the single limit.
  const LimitParams& params_for(const std::string& key) const;
};

/// A rule config with a single limit.
RuleConfig single_limit(const LimitParams& params);

/// Checks what Redis can run: every limit valid (LimitParams::validate), an algorithm the
/// scripts have (not leaky-bucket), windows in whole µs, periods and windows below 2^53 ns,
/// composite limit names of [A-Za-z0-9_-] and distinct; overrides only on a single-limit rule,
/// with its algorithm, for keys of 1 to 512 bytes.
/// @return ok, or the reason.
Status check_for_redis(const RuleConfig& config);

/// The config that setting a rule's limits to `next` makes of its live config: `live`'s
/// per-key overrides are kept when `next` is a single limit of the same algorithm, else dropped
/// (their keys appended to `dropped`, when given).
RuleConfig with_rule_limits(const std::optional<RuleConfig>& live, RuleConfig next,
                            std::vector<std::string>* dropped = nullptr);

/// `live` with key's override set to `params` (nullopt: removed). Check the result with
/// check_for_redis (the algorithm must stay the rule's).
RuleConfig with_override(const RuleConfig& live, const std::string& key,
                         const std::optional<LimitParams>& params);

/// The hash fields a config is stored as (without version and updated_*).
std::vector<std::pair<std::string, std::string>> config_fields(const RuleConfig& config);
/// A config from its hash fields (HGETALL), with version and updated_*.
Expected<RuleConfig> parse_config_fields(const std::map<std::string, std::string>& fields);

/// One config change, newest first in history().
struct AuditEntry {
  std::string id;            ///< stream entry id
  std::int64_t version = 0;  ///< the version this change created
  std::string action;        ///< "set" or "undo"
  std::string by;
  std::int64_t at_ms = 0;
  std::string reason;
  std::map<std::string, std::string> old_fields;  ///< empty when the rule was created
  std::map<std::string, std::string> new_fields;
};

struct ChangeInfo {
  std::string by;  ///< who (user, tool)
  std::string reason;
  std::optional<std::int64_t> expect_version;  ///< compare-and-set; nullopt = whatever it is
  /// The compare-and-set of a repair (takes precedence over expect_version): the stored
  /// `version` field must be exactly this ("" = absent), as stored_version_field() read it. It
  /// replaces a config that does not parse, even one whose version is not an integer (the new
  /// version then follows the audit stream's newest entry).
  std::optional<std::string> expect_raw_version = std::nullopt;
};

/// True for the error set_config() returns when the version moved (LSCAS).
bool is_version_conflict(const RedisError& e);

/// The rule's config, or nullopt when it has none.
Result<std::optional<RuleConfig>> get_config(Connection& c, const KeySchema& schema,
                                             std::string_view rule);
/// The rule config's `version` field as stored, unparsed ("" when absent): what a repair of an
/// unreadable config compares and sets on (ChangeInfo::expect_raw_version).
Result<std::string> stored_version_field(Connection& c, const KeySchema& schema,
                                         std::string_view rule);
/// Replaces the config (version + 1) and appends the audit entry in one atomic script. An
/// invalid config is refused (usage, with check_for_redis's reason) and nothing changes; a
/// moved version is refused (reply, is_version_conflict()).
/// @return the config as stored (version, updated_at_ms filled)
Result<RuleConfig> set_config(Connection& c, const KeySchema& schema, std::string_view rule,
                              const RuleConfig& config, const ChangeInfo& change);
/// The newest `count` audit entries, newest first.
Result<std::vector<AuditEntry>> config_history(Connection& c, const KeySchema& schema,
                                               std::string_view rule, std::size_t count);
/// Re-applies the config before the latest change as a new version (audited as "undo"), with
/// compare-and-set on the current version. Undoing an undo re-applies the undone config.
/// Refused (usage) when the rule has no config, the latest change created the rule, or the
/// latest audit entry is not the current version.
Result<RuleConfig> undo_config(Connection& c, const KeySchema& schema, std::string_view rule,
                               const ChangeInfo& change);

/// Where a config is kept: its hash and the audit stream of its changes (the rule's live
/// config, or its shadow: shadow_config.h).
struct ConfigPlace {
  std::string hash;
  std::string audit;
  /// The live config's stamp (KeySchema::config_stamp_key), rewritten with it so decisions see
  /// the change (for a shadow: given the shadow's mark, so decisions read the shadow again).
  std::string stamp = {};
  /// A shadow's counts (KeySchema::shadow_counts_key), deleted by the change; empty for a live
  /// config.
  std::string counts = {};
};

/// The fields of the config hash `key` (empty when there is none), refused (reply) when its
/// version is not an integer >= 0, as get_config() does.
Result<std::map<std::string, std::string>> read_config_hash(Connection& c, const std::string& key);
/// The same check on an HGETALL reply of `key` already read (one of a pipeline's replies).
Result<std::map<std::string, std::string>> config_hash_fields(const Value& reply,
                                                              const std::string& key);
/// set_config() at any place: compare-and-set, version + 1, audit entry with `action`, in one
/// script. The caller checks the rule's name.
Result<RuleConfig> write_config(Connection& c, const ConfigPlace& place, std::string_view rule,
                                const RuleConfig& config, const ChangeInfo& change,
                                std::string_view action);
/// The newest `count` entries of an audit stream, newest first.
Result<std::vector<AuditEntry>> read_audit(Connection& c, const std::string& audit_key,
                                           std::size_t count);

/// The audit stream's MAXLEN ~ (entries kept per rule).
inline constexpr std::int64_t kAuditMaxLen = 10000;

}  // namespace limitscope::redis
