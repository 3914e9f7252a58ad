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

std::unique_lock<std::mutex> PendingSettlements::lock() {
  locks_.fetch_add(1, std::memory_order_relaxed);
  return std::unique_lock(mu_);
}

bool PendingSettlements::add(const std::string& rule, const std::string& key, double delta,
                             Nanos now) {
  std::string k = map_key(rule, key);
  const auto held = lock();
  auto it = pending_.find(k);
  if (it == pending_.end()) {
    if (pending_.size() >= max_keys_) return false;
    pending_.emplace(std::move(k), Entry{delta, now});
    recount();
    return true;
  }
  it->second.delta += delta;
  return true;
}

double PendingSettlements::take(const std::string& rule, const std::string& key) {
  // Nothing pending: no lock. An add() racing with this is not lost: it is seen by the key's
  // next decision or sent by the flusher, as if it had come just after this decision.
  if (count_.load(std::memory_order_acquire) == 0) return 0;
  const std::string k = map_key(rule, key);
  const auto held = lock();
  auto it = pending_.find(k);
  if (it == pending_.end()) return 0;
  const double delta = it->second.delta;
  pending_.erase(it);
  recount();
  return delta;
}

std::vector<PendingSettlement> PendingSettlements::take_older_than(Nanos cutoff) {
  std::vector<PendingSettlement> out;
  if (count_.load(std::memory_order_acquire) == 0) return out;
  const auto held = lock();
  for (auto it = pending_.begin(); it != pending_.end();) {
    if (it->second.since <= cutoff) {
      out.push_back(unpack(it->first, it->second));
      it = pending_.erase(it);
    } else {
      ++it;
    }
  }
  recount();
  return out;
}

std::vector<PendingSettlement> PendingSettlements::take_all() {
  const auto held = lock();
  std::vector<PendingSettlement> out;
  out.reserve(pending_.size());
  for (const auto& [k, e] : pending_) out.push_back(unpack(k, e));
  pending_.clear();
  recount();
  return out;
}

}  // namespace limitscope::gateway
