#pragma once
// The newest entries of a stream (an audit stream: a rule's config, its shadow, its rollout),
// read with XREVRANGE and the reply's shape checked once for every reader.

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "core/redis/connection.h"

namespace limitscope::redis {

struct StreamEntry {
  std::string id;
  std::vector<std::pair<std::string, std::string>> fields;  ///< in the order written
};

/// The newest `count` (at least 1) entries of stream `key`, newest first; a reply of another
/// shape is a protocol error.
Result<std::vector<StreamEntry>> newest_stream_entries(Connection& c, const std::string& key,
                                                       std::size_t count);

}  // namespace limitscope::redis
