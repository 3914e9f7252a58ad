#include "core/metrics/labels.h"

#include <algorithm>
#include <atomic>

#include "core/metrics/exposition_writer.h"

namespace limitscope::metrics {

struct Labels::Rep {
  Pairs pairs;  // sorted by name, unique names
  // hash() of pairs once computed, else 0 (a set whose hash is 0 recomputes it each time).
  // Several threads may read one shared set: the same value is stored by whoever computes it.
  mutable std::atomic<std::uint64_t> hash{0};
  // This set without __name__, made by the first without_name() on it: PromQL drops the
  // name of every series a rate() or an arithmetic operator returns, at every evaluation.
  mutable std::atomic<std::shared_ptr<Rep>> nameless;
};

namespace {
const Labels::Pairs& no_pairs() {
  static const Labels::Pairs empty;
  return empty;
}

auto find_name(const Labels::Pairs& pairs, std::string_view name) {
  return std::lower_bound(pairs.begin(), pairs.end(), name,
                          [](const auto& p, std::string_view n) { return p.first < n; });
}

std::uint64_t hash_pairs(const Labels::Pairs& pairs) {
  std::uint64_t h = 1469598103934665603ULL;
  auto mix = [&h](std::string_view s) {
    for (unsigned char c : s) {
      h ^= c;
      h *= 1099511628211ULL;
    }
    h ^= 0xff;  // separator: ("ab","c") and ("a","bc") differ
    h *= 1099511628211ULL;
  };
  for (const auto& [n, v] : pairs) {
    mix(n);
    mix(v);
  }
  return h;
}
}  // namespace

Labels::Labels(std::initializer_list<std::pair<std::string, std::string>> pairs) {
  for (const auto& [n, v] : pairs) set(n, v);
}

Labels Labels::from_pairs(std::vector<std::pair<std::string, std::string>> pairs) {
  Labels l;
  for (auto& [n, v] : pairs) l.set(n, v);
  return l;
}

const Labels::Pairs& Labels::pairs() const {
  return rep_ ? rep_->pairs : no_pairs();
}

Labels::Pairs& Labels::own() {
  if (!rep_) {
    rep_ = std::make_shared<Rep>();
  } else if (rep_.use_count() > 1) {
    auto copy = std::make_shared<Rep>();
    copy->pairs = rep_->pairs;
    rep_ = std::move(copy);
  }
  rep_->hash.store(0, std::memory_order_relaxed);
  rep_->nameless.store(nullptr, std::memory_order_relaxed);
  return rep_->pairs;
}

void Labels::set(std::string_view name, std::string_view value) {
  const Pairs& current = pairs();
  auto found = find_name(current, name);
  if (found != current.end() && found->first == name && found->second == value) return;
  const auto at = found - current.begin();
  Pairs& p = own();
  auto it = p.begin() + at;
  if (it != p.end() && it->first == name) {
    it->second = std::string(value);
  } else {
    p.emplace(it, std::string(name), std::string(value));
  }
}

void Labels::erase(std::string_view name) {
  const Pairs& current = pairs();
  auto found = find_name(current, name);
  if (found == current.end() || found->first != name) return;
  if (name == "__name__" && rep_.use_count() > 1) {
    *this = without_name();  // shares the set's nameless copy
    return;
  }
  const auto at = found - current.begin();
  Pairs& p = own();
  p.erase(p.begin() + at);
}

std::string_view Labels::get(std::string_view name) const {
  const Pairs& p = pairs();
  auto it = find_name(p, name);
  if (it != p.end() && it->first == name) return it->second;
  return {};
}

bool Labels::has(std::string_view name) const {
  return find(name).has_value();
}

std::optional<std::string_view> Labels::find(std::string_view name) const {
  const Pairs& p = pairs();
  auto it = find_name(p, name);
  if (it != p.end() && it->first == name) return std::string_view(it->second);
  return std::nullopt;
}

Labels Labels::without_name() const {
  if (!has("__name__")) return *this;  // shared, not copied
  Labels l;
  l.rep_ = rep_->nameless.load(std::memory_order_acquire);
  if (l.rep_) return l;
  auto made = std::make_shared<Rep>();
  made->pairs.reserve(size() - 1);
  for (const auto& pair : pairs()) {
    if (pair.first != "__name__") made->pairs.push_back(pair);
  }
  // Two threads may both make one: the first stored is kept, the other is dropped.
  std::shared_ptr<Rep> expected;
  if (!rep_->nameless.compare_exchange_strong(expected, made, std::memory_order_acq_rel))
    made = expected;
  l.rep_ = std::move(made);
  return l;
}

std::uint64_t Labels::hash() const {
  if (!rep_) return hash_pairs(no_pairs());
  std::uint64_t h = rep_->hash.load(std::memory_order_relaxed);
  if (h == 0) {
    h = hash_pairs(rep_->pairs);
    rep_->hash.store(h, std::memory_order_relaxed);
  }
  return h;
}

bool operator==(const Labels& a, const Labels& b) {
  if (a.rep_ == b.rep_) return true;
  const Labels::Pairs& pa = a.pairs();
  const Labels::Pairs& pb = b.pairs();
  if (pa.size() != pb.size()) return false;
  // Hashes already known and different settle it without comparing strings.
  if (a.rep_ && b.rep_) {
    const std::uint64_t ha = a.rep_->hash.load(std::memory_order_relaxed);
    const std::uint64_t hb = b.rep_->hash.load(std::memory_order_relaxed);
    if (ha != 0 && hb != 0 && ha != hb) return false;
  }
  return pa == pb;
}

std::string Labels::to_string() const {
  std::string out(metric_name());
  bool first = true;
  for (const auto& [n, v] : pairs()) {
    if (n == "__name__") continue;
    out += first ? "{" : ", ";
    first = false;
    out += n;
    out += "=\"";
    append_escaped_label_value(out, v);
    out += '"';
  }
  if (!first) out += '}';
  return out;
}

}  // namespace limitscope::metrics
