#pragma once
// The token-bucket state string of decide.lua (docs/redis-schema.md, "State keys"): 16 bytes,
// tokens then ts (µs since the epoch), each an IEEE-754 double, little-endian, exactly as
// Lua's struct.pack('<dd', tokens, ts) writes it. Readers (probe, key browser, live source)
// and tests use this one codec.

#include <optional>
#include <string>
#include <string_view>

namespace limitscope::redis {

struct TokenBucketStateValue {
  double tokens = 0;  ///< the level at ts; below zero a settlement's debt
  double ts_us = 0;   ///< µs since the epoch the level was computed at (an integer)
};

/// The double in the first 8 bytes of `b` (at least 8), little-endian, as Lua's
/// struct.pack('<d') writes it (state strings, decide.lua's decision records).
double decode_le_double(std::string_view b);

/// The 16-byte string for `s`.
std::string encode_token_bucket_state(const TokenBucketStateValue& s);

/// The state in `bytes`, or nullopt when it is not 16 bytes.
std::optional<TokenBucketStateValue> decode_token_bucket_state(std::string_view bytes);

}  // namespace limitscope::redis
