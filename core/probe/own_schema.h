#pragma once
// Reading limitscope's own limiter keys (docs/redis-schema.md): "<prefix>{R}:s:<key>[:<limit>]"
// whose rule R has its parameters in "<prefix>{R}:config". The state is parsed into the core
// algorithm's State and the level computed by that algorithm's available() at the server's
// time, so the dashboard shows exactly what the next decision would see.

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/probe/key_reading.h"
#include "core/redis/rule_config.h"

namespace limitscope::probe {

/// The parts of an own-schema state key.
struct OwnKey {
  std::string config_key;  ///< "<prefix>{R}:config"
  std::string rule;        ///< R
  std::string rest;        ///< what follows ":s:" (the limited key, maybe ":<limit name>")
};

/// Splits "<prefix>{R}:s:<rest>"; nullopt when the key is not of that shape.
std::optional<OwnKey> parse_own_key(const std::string& key);

/// "<prefix>{R}:pressure" (the rule's pressure index) for its "<prefix>{R}:config".
std::string pressure_key_for_config(const std::string& config_key);
/// "<prefix>{R}:stamp" (the rule's config stamp) for its "<prefix>{R}:config".
std::string stamp_key_for_config(const std::string& config_key);
/// Whether a token-bucket state of a rule may still be a hash written before issue 18, from
/// its config stamp (`stamp`: GET's reply) at `now_us`: no stamp (a rule not configured since),
/// or a "legacy <µs>" mark not yet passed (docs/redis-schema.md).
bool legacy_states_possible(const redis::Value& stamp, std::int64_t now_us);
/// The state keys of limited key `label` under `config` (a composite: one per limit), for a
/// rule whose config key is `config_key`.
std::vector<std::string> state_keys_for_label(const std::string& config_key,
                                              const redis::RuleConfig& config,
                                              const std::string& label);

/// The limit of `config` that state key `rest` belongs to (a composite's ":<name>" suffix),
/// or nullptr when it belongs to none.
const redis::NamedLimit* limit_for(const redis::RuleConfig& config, const std::string& rest);

/// Adds the commands that read the state of `params`'s algorithm at `key` to `out` (then
/// PTTL when `with_ttl`); a token bucket's old hash form too unless `legacy` is false.
/// @return the number of commands added
std::size_t own_read_commands(redis::CommandBatch& out, const LimitParams& params,
                              const std::string& key, std::int64_t now_us, bool with_ttl = true,
                              bool legacy = true);

/// The reading from own_read_commands()'s replies. `parameters`: params.describe() when the
/// caller has it already (a refresh describes each limit once, not once per key).
KeyReading own_evaluate(const std::string& profile, const std::string& key,
                        const LimitParams& params, std::span<const redis::Value> replies,
                        std::int64_t now_us, const std::string* parameters = nullptr);
/// The same into `r`, whose identity (key, profile, kind, algorithm, parameters) is set
/// already: only its figures are written (clear_figures() first), so a reading kept across
/// refreshes keeps its strings.
void own_evaluate_into(KeyReading& r, const LimitParams& params,
                       std::span<const redis::Value> replies, std::int64_t now_us);

}  // namespace limitscope::probe
