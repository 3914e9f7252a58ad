#pragma once
// The limiting policy an operator writes: which tier each API key belongs to, each tier's
// limit (any of the six algorithms) and daily quota, and each model's cost weight and price.
// The file format is documented with a full example in docs/policy.md. A key's tier always
// comes from here, never from anything the client sends.
//
// Shape (nested: a tier's optional second limit, on LLM tokens per minute, sits next to
// "requests"; the gateway admits a request only when both admit, as providers' RPM + TPM):
//   { "default_tier": "free",
//     "tiers":  { "free": { "requests": { "algorithm": "token-bucket", "capacity": 60,
//                                         "refill": "1/s" },
//                           "llm_tokens": { "algorithm": "token-bucket", "capacity": 100000,
//                                           "refill": "100000/min" },
//                           "daily_quota": 1000 } },
//     "models": { "gpt-4.1": { "cost": 8, "price_per_million_tokens": 8.0 } },
//     "keys":   { "demo-free-1": "free",
//                 "sk-acme": { "tier": "free", "name": "acme-prod" } } }

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/common/expected.h"
#include "core/limiter/limit_params.h"

namespace limitscope {

/// Longest name a policy key may carry (it becomes a metric label value and a legend).
inline constexpr std::size_t kMaxKeyNameLength = 128;

struct TierPolicy {
  std::string name;
  /// The per-request limit; cost units are model cost weights.
  LimitParams requests;
  /// Cost units a key of this tier may spend per UTC day; nullopt = no daily quota.
  std::optional<double> daily_quota;
  /// The limit on LLM tokens (prompt + completion), token-bucket only, because the gateway
  /// settles a request's estimate against the upstream's usage afterwards (refund or extra
  /// charge), which a bucket level supports exactly; nullopt = tokens are not limited.
  /// Last, with a default, so aggregate initialisations written before it stay valid.
  std::optional<LimitParams> llm_tokens = std::nullopt;
};

struct ModelPolicy {
  std::string name;
  /// Cost units one request to this model takes from the tier's limit.
  double cost = 1;
  /// Dollars per million LLM tokens (input and output alike); 0 when unknown.
  double price_per_million_tokens = 0;
};

/// std::string keys looked up with std::string_view, without a temporary string.
struct TransparentStringHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const noexcept {
    return std::hash<std::string_view>{}(s);
  }
};

class Policy {
 public:
  /// Where the policy came from (file path, "<embedded default>"), for messages.
  std::string source;
  /// Tiers sorted by name; indexes into this vector are stable for one Policy value.
  std::vector<TierPolicy> tiers;
  /// Models sorted by name.
  std::vector<ModelPolicy> models;
  /// Listed API keys -> index into tiers.
  std::unordered_map<std::string, std::size_t, TransparentStringHash, std::equal_to<>> keys;
  /// Listed API keys that carry a name ("acme-prod") -> that name, what operators call the
  /// tenant; the gateway exports it beside the key's hash, never the key.
  std::unordered_map<std::string, std::string, TransparentStringHash, std::equal_to<>> key_names;
  /// Tier of keys that are not listed; nullopt = unknown keys are refused.
  std::optional<std::size_t> default_tier;

  /// @return the tier index for an API key (listed tier, else the default tier), or nullopt
  ///         when the key is unknown and there is no default tier.
  std::optional<std::size_t> tier_index_for_key(std::string_view api_key) const;
  /// @return the tier for an API key, or nullptr when it is refused (see tier_index_for_key).
  const TierPolicy* tier_for_key(std::string_view api_key) const;
  /// @return the tier named `name`, or nullptr.
  const TierPolicy* find_tier(std::string_view name) const;
  /// @return the index into tiers of the tier named `name`, or nullopt.
  std::optional<std::size_t> tier_index(std::string_view name) const;
  /// @return the index into models of the model named `name`, or nullopt.
  std::optional<std::size_t> model_index(std::string_view name) const;
  /// @return the model named `name`, or an error listing the known models.
  Expected<const ModelPolicy*> model(std::string_view name) const;
  /// @return cost units of one request to `model`, or an error for an unknown model.
  Expected<double> model_cost(std::string_view model) const;
  /// @return dollars for `llm_tokens` tokens of `model`, or an error for an unknown model.
  Expected<double> price_of_tokens(std::string_view model, double llm_tokens) const;
};

/// Parses and validates a policy document. Every invalid value is refused with one error line
/// "<source_name>: <json path>: <reason>", e.g.
/// "policy.json: /tiers/free/requests/capacity: must be a finite number > 0, got -1";
/// malformed JSON is reported with line and column.
/// @param json_text the document
/// @param source_name names the input in errors (a path, "<embedded default>")
Expected<Policy> parse_policy(std::string_view json_text, std::string_view source_name);

/// Reads and parses a policy file; errors name the path.
Expected<Policy> load_policy_file(const std::string& path);

/// The default policy (DESIGN.md section 3), compiled into the binary from
/// resources/default-policy.json so installed binaries need no source tree.
const Policy& default_policy();
/// The text of the embedded default policy.
std::string_view default_policy_json();

}  // namespace limitscope
