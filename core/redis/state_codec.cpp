#include "core/redis/state_codec.h"

#include <bit>
#include <cstdint>

namespace limitscope::redis {

namespace {

void put_le(std::string& out, double v) {
  const auto bits = std::bit_cast<std::uint64_t>(v);
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((bits >> (8 * i)) & 0xffU));
}

}  // namespace

double decode_le_double(std::string_view b) {
  std::uint64_t bits = 0;
  for (int i = 7; i >= 0; --i)
    bits = (bits << 8) | static_cast<unsigned char>(b[static_cast<std::size_t>(i)]);
  return std::bit_cast<double>(bits);
}

std::string encode_token_bucket_state(const TokenBucketStateValue& s) {
  std::string out;
  out.reserve(24);
  put_le(out, s.tokens);
  put_le(out, s.ts_us);
  put_le(out, s.exp_ms);
  return out;
}

std::string encode_token_bucket_state_v1(const TokenBucketStateValue& s) {
  std::string out;
  out.reserve(16);
  put_le(out, s.tokens);
  put_le(out, s.ts_us);
  return out;
}

std::optional<TokenBucketStateValue> decode_token_bucket_state(std::string_view bytes) {
  if (bytes.size() != 24 && bytes.size() != 16) return std::nullopt;
  return TokenBucketStateValue{decode_le_double(bytes.substr(0, 8)),
                               decode_le_double(bytes.substr(8, 8)),
                               bytes.size() == 24 ? decode_le_double(bytes.substr(16, 8)) : 0.0};
}

}  // namespace limitscope::redis
