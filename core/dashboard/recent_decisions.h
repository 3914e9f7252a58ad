#pragma once
// The last N decisions of each API key, for the details pane. Bounded: N per key, and keys
// come from the source's policy or recording, so memory follows the number of keys.

#include <cstddef>
#include <deque>
#include <map>
#include <string>
#include <vector>

#include "core/dashboard/dashboard_snapshot.h"

namespace limitscope {

class RecentDecisions {
 public:
  /// @param per_key decisions kept per API key (older ones are dropped)
  explicit RecentDecisions(std::size_t per_key = 50) : per_key_(per_key) {}

  /// Adds a decision of row.api_key; decisions arrive in time order.
  void add(DecisionRow row);
  /// @return the key's kept decisions, newest first (empty for an unknown key)
  std::vector<DecisionRow> newest_first(const std::string& api_key) const;
  /// Fills snapshot-style decisions for each of `keys`.
  std::map<std::string, std::vector<DecisionRow>> for_keys(
      const std::vector<std::string>& keys) const;
  std::size_t per_key() const { return per_key_; }

 private:
  std::size_t per_key_;
  std::map<std::string, std::deque<DecisionRow>, std::less<>> rings_;
};

}  // namespace limitscope
