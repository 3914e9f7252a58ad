#include "core/redis/key_schema.h"

#include <cstdint>

namespace limitscope::redis {

Status KeySchema::check_prefix() const {
  if (prefix_.find_first_of("{}") != std::string::npos) {
    return make_error("key prefix \"" + prefix_ +
                      "\" must not contain '{' or '}' (they would move the hash tag)");
  }
  return {};
}

Status KeySchema::check_names(std::string_view rule) const {
  if (Status prefix = check_prefix(); !prefix.ok()) return prefix;
  return check_rule(rule);
}

Status KeySchema::check_rule(std::string_view rule) {
  if (rule.empty() || rule.size() > 128) {
    return make_error("rule name must be 1 to 128 characters, got " + std::to_string(rule.size()));
  }
  for (char c : rule) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '_' || c == '-' || c == '.' || c == ':';
    if (!ok) {
      return make_error("rule name \"" + std::string(rule) +
                        "\" may only hold letters, digits and _ - . :");
    }
  }
  return {};
}

namespace {
// CRC16/XMODEM (polynomial 0x1021, initial 0), the checksum Redis Cluster slots use.
std::uint16_t crc16(std::string_view s) {
  std::uint16_t crc = 0;
  for (unsigned char byte : s) {
    crc = static_cast<std::uint16_t>(crc ^ (static_cast<std::uint16_t>(byte) << 8));
    for (int i = 0; i < 8; ++i) {
      crc = (crc & 0x8000) != 0 ? static_cast<std::uint16_t>((crc << 1) ^ 0x1021)
                                : static_cast<std::uint16_t>(crc << 1);
    }
  }
  return crc;
}
}  // namespace

int cluster_slot(std::string_view key) {
  // Only the part between the first '{' and the next '}' counts, when it is not empty.
  const auto open = key.find('{');
  if (open != std::string_view::npos) {
    const auto close = key.find('}', open + 1);
    if (close != std::string_view::npos && close > open + 1)
      key = key.substr(open + 1, close - open - 1);
  }
  return crc16(key) % 16384;
}

}  // namespace limitscope::redis
