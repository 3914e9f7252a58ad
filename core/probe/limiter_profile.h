#pragma once
// Schema profiles: how to read a limiter key that some gateway wrote (DESIGN §4, issue #7).
// A profile names a key pattern, a kind (the shape of the state) and what the state does not
// say itself (capacity, refill, window, limit, time unit). Profiles come from a JSON file
// (`--profiles FILE`) and a built-in list; the first profile whose pattern matches a key wins.
//
//   {"profiles": [
//     {"name": "gw-free", "match": "rl:free-*", "kind": "token_bucket_hash",
//      "fields": {"tokens": "tokens", "updated": "ts"}, "time_unit": "ms",
//      "capacity": 60, "refill": "1/s"},
//     {"name": "sw", "match": "rate_limit:*", "kind": "sliding_window_zset",
//      "time_unit": "ms", "window": "60s", "limit": 100}]}

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/common/expected.h"
#include "core/limiter/rate.h"

namespace limitscope::probe {

enum class ProfileKind {
  limitscope,            ///< our own schema (docs/redis-schema.md): self-describing
  token_bucket_hash,     ///< hash: tokens (float) and last update time
  sliding_window_zset,   ///< sorted set: one member per request, score = request time
  gcra_tat,              ///< string: the theoretical arrival time
  counter_ttl,           ///< string: points consumed in the window; PTTL ends the window
  fixed_window_counter,  ///< string: count; the window start is the key's last "_" field
};

std::string_view to_string(ProfileKind kind);
std::optional<ProfileKind> parse_profile_kind(std::string_view text);

enum class TimeUnit { s, ms, us, ns };
std::string_view to_string(TimeUnit unit);
std::optional<TimeUnit> parse_time_unit(std::string_view text);
/// Microseconds in one unit, as a double (1e6 for s, 1e-3 for ns).
double us_per_unit(TimeUnit unit);

struct LimiterProfile {
  std::string name;
  std::string match;  ///< Redis glob
  ProfileKind kind = ProfileKind::token_bucket_hash;
  std::string tokens_field = "tokens";  ///< token_bucket_hash
  std::string updated_field = "ts";     ///< token_bucket_hash
  TimeUnit time_unit = TimeUnit::ms;
  std::optional<double> capacity;  ///< bucket size (token_bucket_hash, gcra_tat burst)
  std::optional<Rate> refill;      ///< token_bucket_hash, gcra_tat
  std::optional<Nanos> window;     ///< sliding_window_zset, counter_ttl, fixed_window_counter
  std::optional<double> limit;     ///< per window
  bool builtin = false;

  /// One line for tables: "gw-free: token_bucket_hash rl:free-* C=60 r=1/s".
  std::string describe() const;
};

/// Parses a profiles document. Errors name the JSON path and the reason
/// ("profiles[1].window: required for kind sliding_window_zset").
Expected<std::vector<LimiterProfile>> parse_profiles(std::string_view json_text);
/// Reads and parses a profiles file (errors name the file).
Expected<std::vector<LimiterProfile>> load_profiles_file(const std::string& path);

/// The built-in profiles: limitscope's own keys and the field schemas of DESIGN §4 whose
/// parameters are not stored (levels shown as stored, without capacity).
std::vector<LimiterProfile> builtin_profiles();

/// The profile as one element of a profiles document (what parse_profiles() reads back).
std::string profile_to_json(const LimiterProfile& profile);

/// The first profile matching `key`, or nullptr.
const LimiterProfile* match_profile(const std::vector<LimiterProfile>& profiles,
                                    std::string_view key);

}  // namespace limitscope::probe
