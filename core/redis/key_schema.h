#pragma once
// limitscope's own Redis key schema (docs/redis-schema.md): every key of rule R is
// "<prefix>{R}:...", so all keys one decision touches share the hash tag {R} and one cluster
// slot.

#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "core/common/expected.h"

namespace limitscope::redis {

inline constexpr std::string_view kDefaultPrefix = "limitscope:";

class KeySchema {
 public:
  /// @param prefix prepended to every key; must not contain '{' or '}' (checked by valid())
  explicit KeySchema(std::string prefix = std::string(kDefaultPrefix))
      : prefix_(std::move(prefix)) {}

  const std::string& prefix() const { return prefix_; }

  /// "<prefix>{R}:config": the rule's parameters (hash).
  std::string config_key(std::string_view rule) const { return tagged(rule) + ":config"; }
  /// "<prefix>{R}:stamp": "<version> <µs>", rewritten with the config at every change (a string
  /// decide.lua reads with the states in one MGET, to know its parsed config is current).
  std::string config_stamp_key(std::string_view rule) const { return tagged(rule) + ":stamp"; }
  /// "<prefix>{R}:s:<key>": the state of one limited key (a composite's limits add ":<name>").
  std::string state_key(std::string_view rule, std::string_view key) const {
    return tagged(rule) + ":s:" + std::string(key);
  }
  /// "<prefix>{R}:audit": the stream of config changes.
  std::string audit_key(std::string_view rule) const { return tagged(rule) + ":audit"; }
  /// "<prefix>{R}:shadow": a candidate config stored beside the live one (hash, same fields
  /// and its own version; shadow_config.h).
  std::string shadow_key(std::string_view rule) const { return tagged(rule) + ":shadow"; }
  /// "<prefix>{R}:shadow:audit": the stream of shadow config changes.
  std::string shadow_audit_key(std::string_view rule) const {
    return tagged(rule) + ":shadow:audit";
  }
  /// "<prefix>{R}:pressure": the rule's pressure index, the keys a decision left below a tenth
  /// of their capacity scored by when they are full again (sorted set, written by decide.lua).
  std::string pressure_key(std::string_view rule) const { return tagged(rule) + ":pressure"; }
  /// "<prefix>{R}:shadow:counts": what decide.lua counted of the current shadow (hash: allowed,
  /// rejected, would_reject, would_admit), deleted at every shadow change.
  std::string shadow_counts_key(std::string_view rule) const {
    return tagged(rule) + ":shadow:counts";
  }
  /// "<prefix>{R}:sh:<key>": the shadow's state of one limited key (a composite shadow's limits
  /// add ":<name>"), beside state_key()'s.
  std::string shadow_state_key(std::string_view rule, std::string_view key) const {
    return tagged(rule) + ":sh:" + std::string(key);
  }
  /// "<prefix>{R}:decisions": the optional, capped stream of sampled decisions.
  std::string decisions_key(std::string_view rule) const { return tagged(rule) + ":decisions"; }

  /// @return ok, or why the prefix is unusable.
  Status check_prefix() const;
  /// A rule name: 1..128 characters of [A-Za-z0-9_.:-] (no braces, so the tag stays {R}).
  /// @return ok, or why `rule` is unusable.
  static Status check_rule(std::string_view rule);
  /// The prefix, then `rule`. @return ok, or why the first unusable one is.
  Status check_names(std::string_view rule) const;

 private:
  std::string tagged(std::string_view rule) const {
    return prefix_ + "{" + std::string(rule) + "}";
  }

  std::string prefix_;
};

/// The Redis Cluster slot of `key` (CRC16/XMODEM of its hash tag, mod 16384).
int cluster_slot(std::string_view key);

}  // namespace limitscope::redis
