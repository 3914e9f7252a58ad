#include "core/sources/composite_live_source.h"

#include <algorithm>

namespace limitscope {

CompositeLiveSource::CompositeLiveSource(std::shared_ptr<SessionState> series,
                                         std::vector<std::unique_ptr<LiveSource>> parts)
    : LiveSource(std::move(series)), parts_(std::move(parts)) {
  own_key_rows();  // the recording's key table is the union of the parts'
}

int CompositeLiveSource::advance(Nanos d) {
  int n = 0;
  for (auto& p : parts_) n += p->advance(d);
  return n;
}

std::int64_t CompositeLiveSource::now_ms() const {
  std::int64_t t = 0;
  for (const auto& p : parts_) t = std::max(t, p->now_ms());
  return t;
}

std::string CompositeLiveSource::name() const {
  std::string n;
  for (const auto& p : parts_) n += (n.empty() ? "" : " + ") + p->name();
  return n;
}

std::string CompositeLiveSource::connection() const {
  // One word when every part agrees, else each part's state by its kind.
  bool same = true;
  for (const auto& p : parts_) same = same && p->connection() == parts_.front()->connection();
  if (same && !parts_.empty()) return parts_.front()->connection();
  std::string c;
  for (const auto& p : parts_) {
    const std::string n = p->name();
    c += (c.empty() ? "" : ", ") + n.substr(0, n.find(':')) + " " + p->connection();
  }
  return c;
}

std::string CompositeLiveSource::last_error() const {
  for (const auto& p : parts_) {
    if (std::string e = p->last_error(); !e.empty()) {
      const std::string n = p->name();
      return n.substr(0, n.find(':')) + ": " + e;
    }
  }
  return {};
}

void CompositeLiveSource::contribute(DashboardSnapshot& s) const {
  for (const auto& p : parts_) p->contribute(s);
}

void CompositeLiveSource::add_status(std::vector<SourceStatus>& out) const {
  for (const auto& p : parts_) p->add_status(out);
}

}  // namespace limitscope
