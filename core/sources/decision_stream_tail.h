#pragma once
// Follows the decision streams of limitscope's own rules ("<prefix>{R}:decisions", written by
// the limiter scripts when callers log decisions: t in µs, key, cost, allowed, level, a
// composite's reported limit, a refusal's retry_us, and when the caller gave them the model and
// the request's LLM tokens, and while the rule has a shadow config what it decided, `shadow`;
// docs/redis-schema.md). Each
// refresh reads, per stream, the entries after the last id seen with XRANGE and a COUNT
// budget: never a blocking XREAD, never more than the budget per refresh (a stream that has
// more is read further at the next refresh, and the lag is reported). A stream seen for the
// first time gives its newest entries as a backlog (for the recent-decisions view), not as
// new traffic, so rates start from the moment the dashboard connected.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/dashboard/dashboard_snapshot.h"
#include "core/redis/connection.h"

namespace limitscope {

struct DecisionStreamOptions {
  std::size_t count_per_refresh = 10'000;  ///< entries read per stream and refresh, at most
  std::size_t backlog = 50;                ///< newest entries read when a stream is first seen
  std::size_t max_streams = 64;            ///< streams followed, at most (first come)
};

struct StreamRead {
  std::vector<DecisionRow> backlog;  ///< entries older than the first read, oldest first
  std::vector<DecisionRow> fresh;    ///< entries since the last read, oldest first
  std::size_t lagging = 0;           ///< streams that had more than the budget
  std::vector<std::string> errors;   ///< malformed entries ("<key> entry <id>: …"), the first few
};

/// The decision stream key of the rule whose config hash is `config_key`
/// ("<prefix>{R}:config" → "<prefix>{R}:decisions"); empty when it is not a config key.
std::string decisions_key_for_config(const std::string& config_key);

class DecisionStreamTail {
 public:
  explicit DecisionStreamTail(DecisionStreamOptions options = {}) : options_(options) {}

  /// Reads the streams of `rules` (rule name → its decisions key), pipelined. A stream that
  /// does not exist yet is followed from its start once it appears. Each row's tier is the rule;
  /// a composite's row names its limit (the one that refused a 429) with that limit's level
  /// and, when `limit_order` gives the rule's limits in order (the order of the logged costs),
  /// that limit's cost; a 429's retry_after comes from the entry's retry_us.
  redis::Result<StreamRead> read(
      redis::Connection& c, const std::map<std::string, std::string>& rules,
      const std::map<std::string, std::vector<std::string>>& limit_order = {});

  /// Streams followed so far.
  std::size_t streams() const { return last_id_.size(); }

 private:
  DecisionStreamOptions options_;
  std::map<std::string, std::string> last_id_;  // stream key → last id read
};

}  // namespace limitscope
