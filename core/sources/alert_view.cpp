#include "core/sources/alert_view.h"

#include <algorithm>

namespace limitscope {

// Alert rows (firing, then pending, then resolved; newest first within a state) and one
// shading band per rule and state: the union of its alerts' intervals, so twenty pending
// alerts of one rule shade the chart once, not twenty times darker.
void alert_view(const metrics::AlertSnapshot& alerts, std::int64_t now_ms, std::vector<AlertRow>& rows,
                std::vector<AlertInterval>& intervals, const KeyNames* names) {
  for (const metrics::Alert& a : alerts.alerts) {
    AlertRow row;
    row.rule = a.rule;
    if (a.state == metrics::AlertState::firing) {
      row.state = AlertState::firing;
      row.since_ms = a.fired_at_ms.value_or(a.active_at_ms);
    } else if (a.state == metrics::AlertState::pending) {
      row.state = AlertState::pending;
      row.since_ms = a.active_at_ms;
    } else {
      row.state = a.resolved_at_ms ? AlertState::resolved : AlertState::inactive;
      row.since_ms = a.resolved_at_ms.value_or(a.active_at_ms);
    }
    row.value = a.value;
    metrics::Labels shown = a.labels;
    shown.erase("alertname");
    row.severity = std::string(shown.get("severity"));
    shown.erase("severity");
    row.labels = shown.to_string();
    row.summary = std::string(a.annotations.get("summary"));
    for (std::string_view label : {"api_key", "api_key_hash"}) {
      const std::string_view key = a.labels.get(label);
      if (names == nullptr || key.empty()) continue;
      row.entity = names->display(key);
      // The summary templates name the key by its label: say what operators call it.
      for (auto at = row.summary.find(key); at != std::string::npos; at = row.summary.find(key, at + row.entity.size())) {
        row.summary.replace(at, key.size(), row.entity);
      }
      break;
    }
    rows.push_back(std::move(row));
  }
  std::stable_sort(rows.begin(), rows.end(), [](const AlertRow& x, const AlertRow& y) {
    const auto rank = [](AlertState st) { return st == AlertState::firing ? 0 : st == AlertState::pending ? 1 : 2; };
    if (rank(x.state) != rank(y.state)) return rank(x.state) < rank(y.state);
    return x.since_ms > y.since_ms;
  });
  for (const metrics::RuleStatus& rule : alerts.rules) {
    for (const bool firing : {false, true}) {
      struct Span {
        std::int64_t start, end;
        bool open;
      };
      std::vector<Span> spans;
      for (const metrics::StateInterval& iv : rule.history) {
        if ((iv.state == metrics::AlertState::firing) != firing) continue;
        spans.push_back({iv.start_ms, iv.end_ms.value_or(now_ms), !iv.end_ms.has_value()});
      }
      std::sort(spans.begin(), spans.end(), [](const Span& a, const Span& b) {
        return a.start != b.start ? a.start < b.start : a.end < b.end;
      });
      for (std::size_t i = 0; i < spans.size();) {
        Span merged = spans[i];
        for (++i; i < spans.size() && spans[i].start <= merged.end; ++i) {
          merged.end = std::max(merged.end, spans[i].end);
          merged.open = merged.open || spans[i].open;
        }
        intervals.push_back(AlertInterval{rule.name, merged.start, merged.end, firing, merged.open});
      }
    }
  }
}

void bind_chart_rules(std::vector<ChartData>& charts, const metrics::AlertSnapshot& alerts) {
  for (ChartData& c : charts) {
    for (const metrics::RuleStatus& rule : alerts.rules) {
      if (rule.kind != metrics::RuleKind::alerting) continue;
      const bool reads = std::any_of(rule.reads.begin(), rule.reads.end(),
                                     [&](const std::string& m) { return chart_reads_metric(c.kind, m); });
      if (reads && std::find(c.rules.begin(), c.rules.end(), rule.name) == c.rules.end()) c.rules.push_back(rule.name);
    }
  }
}

}  // namespace limitscope
