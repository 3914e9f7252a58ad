#pragma once
// SHA-256 (FIPS 180-4, from OpenSSL's libcrypto: core/common/sha.cpp), for hashing API keys
// before they appear in labels or logs: an `api_key_hash` must not reveal the key, which a
// suffix of the key would.

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace limitscope {

/// The 32-byte digest of data.
std::array<std::uint8_t, 32> sha256(std::string_view data);
/// Lower-case hex of the digest.
std::string sha256_hex(std::string_view data);
/// The label value for an API key: the first 12 hex digits (48 bits) of its SHA-256.
std::string api_key_hash(std::string_view api_key);

}  // namespace limitscope
