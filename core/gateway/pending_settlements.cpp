#include "core/gateway/pending_settlements.h"

namespace limitscope::gateway {

// Rule names never hold '\n' (KeySchema::check_rule), so the first one splits the pair.
std::string PendingSettlements::map_key(const std::string& rule, const std::string& key) {
  std::string k;
  k.reserve(rule.size() + 1 + key.size());
  k += rule;
  k += '\n';
  k += key;
  return k;
}

PendingSettlement PendingSettlements::unpack(const std::string& map_key, const Entry& e) {
  const std::size_t cut = map_key.find('\n');
  return PendingSettlement{map_key.substr(0, cut), map_key.substr(cut + 1), e.delta};
}

bool PendingSettlements::add(const std::string& rule, const std::string& key, double delta, Nanos now) {
  std::string k = map_key(rule, key);
  std::lock_guard lock(mu_);
  auto it = pending_.find(k);
  if (it == pending_.end()) {
    if (pending_.size() >= max_keys_) return false;
    pending_.emplace(std::move(k), Entry{delta, now});
    return true;
  }
  it->second.delta += delta;
  return true;
}

double PendingSettlements::take(const std::string& rule, const std::string& key) {
  const std::string k = map_key(rule, key);
  std::lock_guard lock(mu_);
  auto it = pending_.find(k);
  if (it == pending_.end()) return 0;
  const double delta = it->second.delta;
  pending_.erase(it);
  return delta;
}

std::vector<PendingSettlement> PendingSettlements::take_older_than(Nanos cutoff) {
  std::vector<PendingSettlement> out;
  std::lock_guard lock(mu_);
  for (auto it = pending_.begin(); it != pending_.end();) {
    if (it->second.since <= cutoff) {
      out.push_back(unpack(it->first, it->second));
      it = pending_.erase(it);
    } else {
      ++it;
    }
  }
  return out;
}

std::vector<PendingSettlement> PendingSettlements::take_all() {
  std::lock_guard lock(mu_);
  std::vector<PendingSettlement> out;
  out.reserve(pending_.size());
  for (const auto& [k, e] : pending_) out.push_back(unpack(k, e));
  pending_.clear();
  return out;
}

std::size_t PendingSettlements::size() const {
  std::lock_guard lock(mu_);
  return pending_.size();
}

}  // namespace limitscope::gateway
