#include "core/sources/recent_decisions.h"

namespace limitscope {

void RecentDecisions::add(DecisionRow row) {
  if (per_key_ == 0) return;
  auto it = rings_.find(row.api_key);
  if (it == rings_.end()) it = rings_.emplace(row.api_key, std::deque<DecisionRow>{}).first;
  std::deque<DecisionRow>& ring = it->second;
  if (ring.size() == per_key_) ring.pop_front();
  ring.push_back(std::move(row));
}

std::vector<DecisionRow> RecentDecisions::newest_first(const std::string& api_key) const {
  const auto it = rings_.find(api_key);
  if (it == rings_.end()) return {};
  return {it->second.rbegin(), it->second.rend()};
}

std::map<std::string, std::vector<DecisionRow>> RecentDecisions::for_keys(
    const std::vector<std::string>& keys) const {
  std::map<std::string, std::vector<DecisionRow>> out;
  for (const std::string& k : keys) out[k] = newest_first(k);
  return out;
}

}  // namespace limitscope
