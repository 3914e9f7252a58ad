#include "core/redis/stream_entries.h"

#include <algorithm>

namespace limitscope::redis {

Result<std::vector<StreamEntry>> newest_stream_entries(Connection& c, const std::string& key,
                                                       std::size_t count) {
  auto reply = c.command(
      {"XREVRANGE", key, "+", "-", "COUNT", std::to_string(std::max<std::size_t>(count, 1))});
  if (!reply) return reply.error();
  if (!reply->is_array())
    return make_redis_error(ErrorKind::protocol, "XREVRANGE: " + reply->describe());
  std::vector<StreamEntry> out;
  out.reserve(reply->elements.size());
  for (Value& e : reply->elements) {
    if (!e.is_array() || e.elements.size() != 2 || !e.elements[1].is_array()) {
      return make_redis_error(ErrorKind::protocol, "XREVRANGE entry: " + e.describe());
    }
    StreamEntry entry;
    entry.id = std::move(e.elements[0].str);
    auto& kv = e.elements[1].elements;
    entry.fields.reserve(kv.size() / 2);
    for (std::size_t i = 0; i + 1 < kv.size(); i += 2)
      entry.fields.emplace_back(std::move(kv[i].str), std::move(kv[i + 1].str));
    out.push_back(std::move(entry));
  }
  return out;
}

}  // namespace limitscope::redis
