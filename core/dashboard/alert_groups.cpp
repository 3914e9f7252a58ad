#include "core/dashboard/alert_groups.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "core/dashboard/alert_view.h"

namespace limitscope {

int alert_severity_rank(AlertState s) {
  switch (s) {
    case AlertState::firing:
      return 0;
    case AlertState::pending:
      return 1;
    case AlertState::no_data:
      return 2;
    case AlertState::resolved:
      return 3;
    case AlertState::inactive:
      return 4;
  }
  return 5;
}

namespace {

// True when `a` is worse than `b` (both of one rule).
bool worse(const AlertRow& a, const AlertRow& b) {
  const int ra = alert_severity_rank(a.state), rb = alert_severity_rank(b.state);
  if (ra != rb) return ra < rb;
  if (a.higher_is_worse && a.value != b.value && a.state != AlertState::no_data) {
    return *a.higher_is_worse ? a.value > b.value : a.value < b.value;
  }
  return a.since_ms < b.since_ms;  // in that state longest
}

}  // namespace

std::vector<AlertGroup> group_alerts(const std::vector<AlertRow>& rows) {
  std::vector<AlertGroup> groups;
  std::map<std::pair<std::string_view, std::string_view>, std::size_t>
      index;  // (rule, origin) → group
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto [it, fresh] = index.try_emplace({rows[i].rule, rows[i].origin}, groups.size());
    if (fresh) groups.push_back(AlertGroup{rows[i].rule, rows[i].origin, {}, 0});
    AlertGroup& g = groups[it->second];
    g.members.push_back(i);
    const AlertState st = rows[i].state;
    if (st == AlertState::firing || st == AlertState::pending || st == AlertState::no_data)
      ++g.active;
  }
  for (AlertGroup& g : groups) {
    std::stable_sort(g.members.begin(), g.members.end(),
                     [&](std::size_t a, std::size_t b) { return worse(rows[a], rows[b]); });
  }
  std::stable_sort(groups.begin(), groups.end(), [&](const AlertGroup& a, const AlertGroup& b) {
    const int ra = alert_severity_rank(rows[a.worst()].state),
              rb = alert_severity_rank(rows[b.worst()].state);
    return std::tie(ra, a.rule, a.origin) < std::tie(rb, b.rule, b.origin);
  });
  return groups;
}

std::string worst_entity(const AlertGroup& g, const std::vector<AlertRow>& rows) {
  return alert_display_name(rows[g.worst()]);
}

}  // namespace limitscope
