#pragma once
// What operators call the API keys the dashboard shows. Live sources see keys only hashed:
// the gateway exports api_key_hash (12 hex digits of the key's SHA-256) and our Redis schema
// holds 32 of those digits in each limited key ("<32 hex>:<model>:<limit>"). Names come from
// limitscope_key_info{api_key_hash, name, tier} (a gateway's /metrics, or a Prometheus that
// scrapes it) and from an operator's CSV file (`--key-names FILE`: api_key_hash,name), joined
// on the first 12 hex digits. A key without a name is shown by those 12 digits, the same text
// the gateway's metrics carry.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "core/common/expected.h"
#include "core/metrics/series_store.h"

namespace limitscope {

/// Hex digits of a key's SHA-256 that identify it everywhere (api_key_hash()).
inline constexpr std::size_t kKeyHashDigits = 12;

/// An own-schema limited key split into the parts the key table shows.
struct LimitedKeyParts {
  std::string api_key;  ///< "<32 hex>" for the gateway's keys, else the key as written
  std::string model;    ///< the gateway's keys: the model; else empty
  std::string limit;    ///< a composite's limit ("requests", "llm_tokens"); else empty
};

/// Splits what follows ":s:" in our schema: "<32 hex>:<model>[:<limit>]" (the gateway's keys)
/// or any other key, whose `limit_name` suffix (a composite's ":<name>") is split off.
/// @param limit_name the rule's limit this state belongs to ("" when not a composite)
LimitedKeyParts split_limited_key(std::string_view rest, std::string_view limit_name);

class KeyNames {
 public:
  /// Names `hash` (at least 12 hex digits; the first 12 count). @return false when it is not one
  bool set(std::string_view hash, std::string name);
  /// Takes the names of the newest limitscope_key_info samples in `store` (an empty name is
  /// no name), over any the file gave for the same key.
  void join_key_info(const metrics::SeriesStore& store);
  /// The name of the key `api_key` (a hash, or an identity starting with one), or nullptr.
  const std::string* find(std::string_view api_key) const;
  /// Its name, else its first 12 hex digits when it is a hash, else `api_key` as is.
  std::string display(std::string_view api_key) const;
  std::size_t size() const { return by_hash_.size(); }
  /// Takes every name of `other`, over any this has for the same key.
  void merge(const KeyNames& other);

 private:
  std::map<std::string, std::string, std::less<>> by_hash_;  // 12 hex digits → name
};

/// The 12-digit hash `api_key` starts with (lower case), or nullopt when it does not start
/// with 12 hex digits followed by the end, ':' or more hex digits.
std::optional<std::string> key_hash_prefix(std::string_view api_key);

/// Parses a key-names CSV: lines "api_key_hash,name" (a first line "api_key_hash,name" is a
/// header; blank lines and lines starting with '#' are skipped; a name may be quoted "...").
/// @param source names the input in errors
/// @return the names, or the first bad line as "<source>:<line>: <reason>"
Expected<KeyNames> parse_key_names_csv(std::string_view text, std::string_view source);
/// Reads and parses a key-names file; errors name the path.
Expected<KeyNames> load_key_names_file(const std::string& path);

}  // namespace limitscope
