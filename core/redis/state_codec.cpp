#include "core/redis/state_codec.h"

#include <bit>
#include <cmath>
#include <cstdint>
#include <initializer_list>

namespace limitscope::redis {

namespace {

// The doubles, little-endian one after the other, as struct.pack('<dd...') writes them.
std::string le_doubles(std::initializer_list<double> values) {
  std::string out;
  out.reserve(8 * values.size());
  for (const double v : values) {
    const auto bits = std::bit_cast<std::uint64_t>(v);
    for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((bits >> (8 * i)) & 0xffU));
  }
  return out;
}

}  // namespace

double decode_le_double(std::string_view b) {
  std::uint64_t bits = 0;
  for (int i = 7; i >= 0; --i)
    bits = (bits << 8) | static_cast<unsigned char>(b[static_cast<std::size_t>(i)]);
  return std::bit_cast<double>(bits);
}

std::string encode_token_bucket_state(const TokenBucketStateValue& s) {
  return le_doubles({s.tokens, s.ts_us, s.exp_ms});
}

std::string encode_token_bucket_state_v1(const TokenBucketStateValue& s) {
  return le_doubles({s.tokens, s.ts_us});
}

std::optional<TokenBucketStateValue> decode_token_bucket_state(std::string_view bytes) {
  if (bytes.size() != 24 && bytes.size() != 16) return std::nullopt;
  return TokenBucketStateValue{decode_le_double(bytes.substr(0, 8)),
                               decode_le_double(bytes.substr(8, 8)),
                               bytes.size() == 24 ? decode_le_double(bytes.substr(16, 8)) : 0.0};
}

std::int64_t GcraStateValue::tat_ns() const {
  return static_cast<std::int64_t>(tat_us) * 1000 + static_cast<std::int64_t>(rem_ns);
}

std::string encode_gcra_state(const GcraStateValue& s) {
  return le_doubles({s.tat_us, s.rem_ns, s.exp_ms});
}

std::optional<GcraStateValue> decode_gcra_state(std::string_view bytes) {
  const auto integral = [](double x) { return std::isfinite(x) && std::floor(x) == x; };
  if (bytes.size() == 24) {
    const GcraStateValue v{decode_le_double(bytes.substr(0, 8)),
                           decode_le_double(bytes.substr(8, 8)),
                           decode_le_double(bytes.substr(16, 8))};
    if (!integral(v.tat_us) || v.tat_us < 0 || v.tat_us > 9007199254740992.0) return std::nullopt;
    if (!integral(v.rem_ns) || v.rem_ns < 0 || v.rem_ns > 999) return std::nullopt;
    if (!integral(v.exp_ms) || v.exp_ms < 0) return std::nullopt;
    return v;
  }
  if (bytes.empty() || bytes.size() > 19) return std::nullopt;
  std::int64_t ns = 0;  // at most 19 digits: below 10^19, and checked against int64's range
  for (const char c : bytes) {
    if (c < '0' || c > '9') return std::nullopt;
    const int digit = c - '0';
    if (ns > (INT64_MAX - digit) / 10) return std::nullopt;
    ns = ns * 10 + digit;
  }
  // Past 2^53 µs decide.lua's doubles are no longer exact: a state it resets.
  if (ns / 1000 > (std::int64_t{1} << 53)) return std::nullopt;
  return GcraStateValue{static_cast<double>(ns / 1000), static_cast<double>(ns % 1000), 0};
}

}  // namespace limitscope::redis
