#include "core/dashboard/alert_view.h"

#include <algorithm>
#include <map>
#include <string_view>
#include <tuple>

#include "core/dashboard/alert_groups.h"
#include "core/metrics/promql.h"

namespace limitscope {

std::string alert_row_labels(const metrics::Labels& labels) {
  metrics::Labels shown = labels;
  shown.erase("alertname");
  shown.erase("severity");
  return shown.to_string();
}

std::string alert_subject(const metrics::Labels& labels, const KeyNames* names) {
  for (std::string_view label : {"api_key", "api_key_hash"}) {
    const std::string_view key = labels.get(label);
    if (!key.empty()) return names != nullptr ? names->display(key) : KeyNames{}.display(key);
  }
  const std::string_view tier = labels.get("tier"), model = labels.get("model");
  if (!tier.empty())
    return "tier " + std::string(tier) + (model.empty() ? "" : " · " + std::string(model));
  if (!model.empty()) return "model " + std::string(model);
  return {};
}

std::string alert_display_name(const AlertRow& a) {
  if (!a.entity.empty()) return a.entity;
  if (a.labels.empty() || a.labels == "{}") return {};
  // AlertRow::labels is a label set as a selector writes it: the PromQL parser reads it back.
  const auto parsed = metrics::parse_promql(a.labels);
  if (parsed.ok()) {
    if (const auto* sel = std::get_if<metrics::VectorSelector>(&(*parsed)->node)) {
      metrics::Labels labels;
      for (const metrics::LabelMatcher& m : sel->matchers) {
        if (m.op() == metrics::MatchOp::equal) labels.set(m.name(), m.value());
      }
      if (std::string subject = alert_subject(labels, nullptr); !subject.empty()) return subject;
    }
  }
  return a.labels;
}

std::string short_duration(std::int64_t ms) {
  static constexpr std::pair<std::int64_t, std::string_view> kUnits[] = {
      {86400, "d"}, {3600, "h"}, {60, "m"}, {1, "s"}};
  std::int64_t left = std::max<std::int64_t>(0, ms) / 1000;
  std::string out;
  int parts = 0;
  for (const auto& [secs, name] : kUnits) {
    const std::int64_t n = left / secs;
    if (n > 0) {
      out += std::to_string(n);
      out += name;
      left -= n * secs;
      if (++parts == 2) break;
    } else if (parts > 0) {
      break;  // "1h", not "1h0m5s"
    }
  }
  return out.empty() ? "0s" : out;
}

std::string alert_state_text(const AlertRow& a) {
  std::string text(to_string(a.state));
  if (a.state != AlertState::pending) return text;
  text += " " + short_duration(a.pending_ms);
  if (a.for_ms > 0) text += " of " + short_duration(a.for_ms);
  return text;
}

void set_pending_progress(std::vector<AlertRow>& rows, std::int64_t now_ms) {
  for (AlertRow& r : rows) {
    r.pending_ms = r.state == AlertState::pending && r.since_ms > 0
                       ? std::max<std::int64_t>(0, now_ms - r.since_ms)
                       : 0;
  }
}

// Alert rows (firing, then pending, then resolved; newest first within a state) and one
// shading band per rule and state: the union of its alerts' intervals, so twenty pending
// alerts of one rule shade the chart once, not twenty times darker.
void alert_view(const metrics::AlertSnapshot& alerts, std::int64_t now_ms,
                std::vector<AlertRow>& rows, std::vector<AlertInterval>& intervals,
                const KeyNames* names) {
  std::map<std::string_view, const metrics::RuleStatus*> rule_of;
  for (const metrics::RuleStatus& r : alerts.rules) rule_of.emplace(r.name, &r);
  for (const metrics::Alert& a : alerts.alerts) {
    AlertRow row;
    row.rule = a.rule;
    if (const auto it = rule_of.find(a.rule); it != rule_of.end()) {
      row.for_ms = it->second->for_ms;
      row.higher_is_worse = it->second->higher_is_worse;
    }
    if (a.state == AlertState::firing) {
      row.state = AlertState::firing;
      row.since_ms = a.fired_at_ms.value_or(a.active_at_ms);
    } else if (a.state == AlertState::pending) {
      row.state = AlertState::pending;
      row.since_ms = a.active_at_ms;
      row.pending_ms = std::max<std::int64_t>(0, now_ms - a.active_at_ms);
    } else {
      row.state = a.resolved_at_ms ? AlertState::resolved : AlertState::inactive;
      row.since_ms = a.resolved_at_ms.value_or(a.active_at_ms);
    }
    row.value = a.value;
    row.severity = std::string(a.labels.get("severity"));
    row.labels = alert_row_labels(a.labels);
    row.summary = std::string(a.annotations.get("summary"));
    row.entity = alert_subject(a.labels, names);
    for (std::string_view label : {"api_key", "api_key_hash"}) {
      const std::string_view key = a.labels.get(label);
      if (names == nullptr || key.empty()) continue;
      // The summary templates name the key by its label: say what operators call it.
      for (auto at = row.summary.find(key); at != std::string::npos;
           at = row.summary.find(key, at + row.entity.size())) {
        row.summary.replace(at, key.size(), row.entity);
      }
      break;
    }
    rows.push_back(std::move(row));
  }
  std::stable_sort(rows.begin(), rows.end(), [](const AlertRow& x, const AlertRow& y) {
    const int rx = alert_severity_rank(x.state), ry = alert_severity_rank(y.state);
    if (rx != ry) return rx < ry;
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
        if ((iv.state == AlertState::firing) != firing) continue;
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
        intervals.push_back(
            AlertInterval{rule.name, merged.start, merged.end, firing, merged.open});
      }
    }
  }
}

namespace {

// What an alert's labels select among the dashboard's series, as text; empty when they name
// no tier, model or key (the rule as a whole).
std::string selection_of(const metrics::Labels& labels) {
  std::string out;
  for (const auto& [name, value] : labels.pairs()) {
    if (value.empty() ||
        (name != "tier" && name != "model" && name != "api_key" && name != "api_key_hash"))
      continue;
    if (!out.empty()) out += ", ";
    out += name + "=\"" + value + "\"";
  }
  return out;
}

// Unions the bands of one (rule, line or selection, state): twenty pending evaluations of one
// alert shade its line once.
void merge_bands(std::vector<AlertBand>& bands) {
  std::sort(bands.begin(), bands.end(), [](const AlertBand& a, const AlertBand& b) {
    return std::tie(a.rule, a.line, a.about, a.firing, a.start_ms, a.end_ms) <
           std::tie(b.rule, b.line, b.about, b.firing, b.start_ms, b.end_ms);
  });
  std::vector<AlertBand> out;
  for (AlertBand& b : bands) {
    if (!out.empty()) {
      AlertBand& last = out.back();
      if (last.rule == b.rule && last.line == b.line && last.about == b.about &&
          last.firing == b.firing && b.start_ms <= last.end_ms) {
        last.end_ms = std::max(last.end_ms, b.end_ms);
        last.open = last.open || b.open;
        continue;
      }
    }
    out.push_back(std::move(b));
  }
  bands = std::move(out);
}

}  // namespace

void bind_chart_rules(std::vector<ChartData>& charts, const metrics::AlertSnapshot& alerts) {
  const std::int64_t now_ms = alerts.evaluated_at_ms.value_or(0);
  for (ChartData& c : charts) {
    for (const metrics::RuleStatus& rule : alerts.rules) {
      if (rule.kind != metrics::RuleKind::alerting) continue;
      const bool reads =
          std::any_of(rule.reads.begin(), rule.reads.end(),
                      [&](const std::string& m) { return chart_reads_metric(c.kind, m); });
      if (!reads) continue;
      if (std::find(c.rules.begin(), c.rules.end(), rule.name) == c.rules.end())
        c.rules.push_back(rule.name);
      if (rule.expr) add_rule_threshold(c, *rule.expr);  // the rule's own number, as loaded
      // Each pending or firing stretch goes on the lines its alert's labels select (the
      // firing tier's line, not the whole plot); one that selects no drawn line is a marker.
      for (const metrics::StateInterval& iv : rule.history) {
        AlertBand band{rule.name,
                       iv.start_ms,
                       iv.end_ms.value_or(std::max(now_ms, iv.start_ms)),
                       iv.state == AlertState::firing,
                       !iv.end_ms.has_value(),
                       "",
                       selection_of(iv.labels)};
        bool on_a_line = false;
        for (const ChartLine& line : c.lines) {
          if (band.about.empty() || !alert_selects_line(iv.labels, line.series)) continue;
          AlertBand on = band;
          on.line = line.name;
          c.bands.push_back(std::move(on));
          on_a_line = true;
        }
        if (!on_a_line) c.bands.push_back(std::move(band));
      }
    }
    merge_bands(c.bands);
  }
}

}  // namespace limitscope
