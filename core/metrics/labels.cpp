#include "core/metrics/labels.h"

#include <algorithm>

namespace limitscope::metrics {

Labels::Labels(std::initializer_list<std::pair<std::string, std::string>> pairs) {
  for (const auto& [n, v] : pairs) set(n, v);
}

Labels Labels::from_pairs(std::vector<std::pair<std::string, std::string>> pairs) {
  Labels l;
  for (auto& [n, v] : pairs) l.set(n, v);
  return l;
}

void Labels::set(std::string_view name, std::string_view value) {
  auto it = std::lower_bound(pairs_.begin(), pairs_.end(), name,
                             [](const auto& p, std::string_view n) { return p.first < n; });
  if (it != pairs_.end() && it->first == name) {
    it->second = std::string(value);
  } else {
    pairs_.emplace(it, std::string(name), std::string(value));
  }
}

void Labels::erase(std::string_view name) {
  auto it = std::lower_bound(pairs_.begin(), pairs_.end(), name,
                             [](const auto& p, std::string_view n) { return p.first < n; });
  if (it != pairs_.end() && it->first == name) pairs_.erase(it);
}

std::string_view Labels::get(std::string_view name) const {
  auto it = std::lower_bound(pairs_.begin(), pairs_.end(), name,
                             [](const auto& p, std::string_view n) { return p.first < n; });
  if (it != pairs_.end() && it->first == name) return it->second;
  return {};
}

bool Labels::has(std::string_view name) const {
  auto it = std::lower_bound(pairs_.begin(), pairs_.end(), name,
                             [](const auto& p, std::string_view n) { return p.first < n; });
  return it != pairs_.end() && it->first == name;
}

Labels Labels::without_name() const {
  Labels l = *this;
  l.erase("__name__");
  return l;
}

std::uint64_t Labels::hash() const {
  std::uint64_t h = 1469598103934665603ULL;
  auto mix = [&h](std::string_view s) {
    for (unsigned char c : s) {
      h ^= c;
      h *= 1099511628211ULL;
    }
    h ^= 0xff;  // separator: ("ab","c") and ("a","bc") differ
    h *= 1099511628211ULL;
  };
  for (const auto& [n, v] : pairs_) {
    mix(n);
    mix(v);
  }
  return h;
}

namespace {
void append_escaped(std::string& out, std::string_view v) {
  for (char c : v) {
    switch (c) {
      case '\\': out += "\\\\"; break;
      case '"': out += "\\\""; break;
      case '\n': out += "\\n"; break;
      default: out += c;
    }
  }
}
}  // namespace

std::string Labels::to_string() const {
  std::string out(metric_name());
  bool first = true;
  for (const auto& [n, v] : pairs_) {
    if (n == "__name__") continue;
    out += first ? "{" : ", ";
    first = false;
    out += n;
    out += "=\"";
    append_escaped(out, v);
    out += '"';
  }
  if (!first) out += '}';
  return out;
}

}  // namespace limitscope::metrics
