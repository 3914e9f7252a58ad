#pragma once
// SHA-1 (FIPS 180-4, from OpenSSL's libcrypto: core/common/sha.cpp), only for naming Lua scripts
// the way Redis does (EVALSHA takes the script's SHA-1 in lowercase hex). Not for anything
// security-related.

#include <string>
#include <string_view>

namespace limitscope {

/// @return the SHA-1 of `data` as 40 lowercase hex digits
std::string sha1_hex(std::string_view data);

}  // namespace limitscope
