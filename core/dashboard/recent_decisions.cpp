#include "core/dashboard/recent_decisions.h"

#include <chrono>

#include "core/common/duration_round.h"

namespace limitscope {

std::optional<std::int64_t> retry_after_header_s(const DecisionRow& d) {
  if (d.allowed || !d.retry_after_s) return std::nullopt;
  const auto wait =
      std::chrono::duration_cast<Nanos>(std::chrono::duration<double>(*d.retry_after_s));
  return retry_after_seconds(wait);
}

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
