#pragma once
// The token-bucket state string of decide.lua (docs/redis-state.md), as Lua's
// struct.pack writes it: IEEE-754 doubles, little-endian. Format 2 (24 bytes, '<ddd'): tokens,
// ts (µs since the epoch) and exp (ms since the epoch: the end of the key's TTL as the decision
// that last set it computed it; a write keeps the TTL while it lasts long enough). Format 1 (16
// bytes, '<dd', issue 18 before format 2): tokens and ts only, still read (its exp is 0,
// unknown), and replaced by format 2 at the key's next write. GCRA's state of format 3 (24 bytes,
// '<ddd'): the TAT as µs and a 0..999 ns remainder, and exp as the token bucket's; before format 3
// (and until a rule is switched to it) the TAT's decimal ns text. Readers (probe, key browser,
// live source) and tests use this one codec.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace limitscope::redis {

struct TokenBucketStateValue {
  double tokens = 0;  ///< the level at ts; below zero a settlement's debt
  double ts_us = 0;   ///< µs since the epoch the level was computed at (an integer)
  double exp_ms = 0;  ///< format 2: ms since the epoch the key's TTL ends at; 0: unknown
};

/// The double in the first 8 bytes of `b` (at least 8), little-endian, as Lua's
/// struct.pack('<d') writes it (state strings, decide.lua's decision records).
double decode_le_double(std::string_view b);

/// The 24-byte string (format 2) for `s`.
std::string encode_token_bucket_state(const TokenBucketStateValue& s);

/// The 16-byte string of format 1 (tokens and ts; `s.exp_ms` is not written): what decisions
/// before format 2 stored, for tests and benchmarks of the migration on read.
std::string encode_token_bucket_state_v1(const TokenBucketStateValue& s);

/// The state in `bytes` (format 2, or format 1 with exp_ms 0), or nullopt when it is neither 24
/// nor 16 bytes.
std::optional<TokenBucketStateValue> decode_token_bucket_state(std::string_view bytes);

struct GcraStateValue {
  double tat_us = 0;  ///< the TAT's whole µs since the epoch (an integer, at most 2^53)
  double rem_ns = 0;  ///< and its ns beyond them (an integer in [0, 999])
  double exp_ms = 0;  ///< ms since the epoch the key's TTL ends at
  std::int64_t tat_ns() const;
};

/// The 24-byte string (format 3) for `s`.
std::string encode_gcra_state(const GcraStateValue& s);

/// The GCRA state in `bytes`: format 3's 24 bytes, checked as decide.lua checks them (tat_us an
/// integer in [0, 2^53], rem_ns one in [0, 999], exp_ms one >= 0), or the TAT's decimal ns text
/// (at most 19 digits, at most 2^53 µs; exp_ms 0). nullopt for anything else: a state the next
/// decision resets.
std::optional<GcraStateValue> decode_gcra_state(std::string_view bytes);

}  // namespace limitscope::redis
