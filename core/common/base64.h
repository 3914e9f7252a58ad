#pragma once
// Base64 (RFC 4648 §4, standard alphabet, '=' padding): HTTP Basic credentials, and the
// embeddings the mock upstream answers as packed floats (encoding_format "base64").

#include <string>
#include <string_view>

namespace limitscope {

/// @return `data` in base64, padded to a multiple of 4 characters
std::string base64_encode(std::string_view data);

}  // namespace limitscope
