#include "core/dashboard/incident_summary.h"

#include <algorithm>
#include <cmath>
#include <ctime>
#include <map>
#include <tuple>

#include "core/common/number_format.h"
#include "core/dashboard/alert_groups.h"

namespace limitscope {
namespace {

std::string utc(std::int64_t t_ms, const char* format) {
  const std::time_t secs = static_cast<std::time_t>(t_ms / 1000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, format, &tm);
  return buf;
}

// "10:42:13" (UTC): what an incident channel compares across teams.
std::string hms(std::int64_t t_ms) {
  return utc(t_ms, "%H:%M:%S");
}
std::string date_hms(std::int64_t t_ms) {
  return utc(t_ms, "%Y-%m-%d %H:%M:%S");
}

// A Markdown table cell: pipes and line breaks would break the row.
std::string cell(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '|')
      out += "\\|";
    else if (c == '\n' || c == '\r')
      out += ' ';
    else
      out += c;
  }
  return out;
}

std::string row_name(const KeyRow& r) {
  return r.name.empty() ? r.api_key : r.name;
}

void sources(std::string& md, const DashboardSnapshot& s) {
  md += "\n## Sources\n\n";
  if (s.sources.empty()) {
    md += "- " + s.source + ": " + s.connection + "\n";
    return;
  }
  for (const SourceStatus& src : s.sources) {
    md += "- **" + src.kind + "** (" + src.name + "): ";
    if (src.down) {
      md += "down since " + hms(src.outages.back().start_ms) + ", no data";
    } else {
      md += "up";
    }
    std::string past;
    for (const auto& o : src.outages) {
      if (!o.end_ms) continue;
      past += (past.empty() ? "" : ", ") + hms(o.start_ms) + "–" + hms(*o.end_ms);
    }
    if (!past.empty()) md += "; down earlier " + past;
    md += "\n";
  }
}

void protection(std::string& md, const DashboardSnapshot& s) {
  md += "\n## Protection\n\n";
  const ProtectionStatus& p = s.protection;
  if (p.intervals.empty()) {
    md +=
        "No fail-open seen: every request had a limit check (as far as the watched gateway's "
        "metrics say).\n";
    return;
  }
  for (const auto& iv : p.intervals) {
    md += "- **" + std::string(iv.end_ms ? "failed open " : "UNPROTECTED since ") +
          hms(iv.start_ms) + (iv.end_ms ? "–" + hms(*iv.end_ms) : std::string()) +
          "**: " + fixed_text(iv.admitted_unchecked, 0) +
          " request(s) admitted without a limit check\n";
  }
}

void keys(std::string& md, const DashboardSnapshot& s, std::size_t max_keys) {
  md += "\n## Keys by 429s\n\n";
  // The 429s are counted per key and model: a key with two limits (requests, llm_tokens) is
  // one row, the limit that is lowest now (the one refusing), not the same count twice.
  std::vector<const KeyRow*> rows;
  std::map<std::tuple<std::string, std::string, std::string>, std::size_t> at;  // key, tier, model
  for (const KeyRow& r : s.keys) {
    if (r.peak_rejected_per_s.value_or(0) <= 0 && r.rejected_in_view.value_or(0) <= 0) continue;
    const auto [it, fresh] = at.try_emplace({r.api_key, r.tier, r.model}, rows.size());
    if (fresh) {
      rows.push_back(&r);
    } else if (r.capacity > 0 &&
               (rows[it->second]->capacity <= 0 || r.level < rows[it->second]->level)) {
      rows[it->second] = &r;
    }
  }
  if (rows.empty()) {
    md += "No key was refused in this time range.\n";
    return;
  }
  std::stable_sort(rows.begin(), rows.end(), [](const KeyRow* a, const KeyRow* b) {
    const auto key = [](const KeyRow* r) {
      return std::pair{r->peak_rejected_per_s.value_or(0), r->rejected_in_view.value_or(0)};
    };
    return key(a) > key(b);
  });
  md += "| name | tier | model | peak 429/s | 429s in view | level now |\n";
  md += "|---|---|---|---:|---:|---:|\n";
  for (std::size_t i = 0; i < rows.size() && i < max_keys; ++i) {
    const KeyRow& r = *rows[i];
    const std::string level = r.capacity > 0 ? fixed_text(r.level * 100, 1) + "%" : "—";
    md += "| " + cell(row_name(r)) + " | " + cell(r.tier) + " | " +
          cell(r.model + (r.limit.empty() ? "" : " (" + r.limit + ")")) + " | " +
          (r.peak_rejected_per_s ? fixed_text(*r.peak_rejected_per_s, 1) : "—") + " | " +
          (r.rejected_in_view ? fixed_text(*r.rejected_in_view, 0) : "—") + " | " + level + " |\n";
  }
  if (rows.size() > max_keys)
    md += "\n(" + std::to_string(rows.size() - max_keys) + " more key(s) refused)\n";
  // What the count cannot hold (docs/live-sources.md): the decisions Redis logged after the
  // dashboard's last read before it went down went down with it.
  std::string downs;
  for (const SourceStatus& src : s.sources) {
    if (src.kind != "redis") continue;
    for (const auto& o : src.outages) {
      if (o.start_ms >= s.view.start_ms && o.start_ms <= s.view.end_ms)
        downs += (downs.empty() ? "" : ", ") + hms(o.start_ms);
    }
  }
  if (downs.empty()) return;
  md +=
      "\n429s in view are counted from Redis's decision streams: those logged in the last refresh "
      "before redis "
      "went down at " +
      downs +
      " (up to one refresh interval) were never read. The gateway's own count "
      "(`gateway_rate_limit_hits_total`) has them.\n";
}

// One line per rule, as the alerts panel groups them: how many alerts, the worst one's state
// and since, and what it is about by name.
void alerts(std::string& md, const DashboardSnapshot& s) {
  md += "\n## Alerts\n\n";
  std::vector<AlertRow> shown;
  for (const AlertRow& a : s.alerts) {
    if (a.state != AlertState::inactive) shown.push_back(a);
  }
  if (shown.empty()) {
    md += "No alert pending, firing or resolved in this time range.\n";
    return;
  }
  md += "| rule | alerts | state | since | worst |\n|---|---:|---|---|---|\n";
  for (const AlertGroup& g : group_alerts(shown)) {
    const AlertRow& w = shown[g.worst()];
    // "3" when all are active, "2 of 3" when some have resolved (as the panel's count).
    const std::string count =
        g.active == g.members.size() || g.active == 0
            ? std::to_string(g.members.size())
            : std::to_string(g.active) + " of " + std::to_string(g.members.size());
    const std::string entity = worst_entity(g, shown);
    md += "| " + cell(g.rule + (g.origin.empty() ? "" : " [" + g.origin + "]")) + " | " + count +
          " | " + alert_state_text(w) + " | " + (w.since_ms > 0 ? hms(w.since_ms) : "") + " | " +
          (entity.empty() ? "—" : cell(entity)) + " |\n";
  }
}

}  // namespace

std::string incident_summary_markdown(const DashboardSnapshot& s,
                                      const IncidentSummaryOptions& options) {
  std::string md = "# Incident summary\n\n";
  md += "- **Time range:** " + date_hms(s.view.start_ms) + " – " + hms(s.view.end_ms) + " UTC\n";
  md += "- **Source:** " + s.source + " (" + s.connection + ")\n";
  if (s.protection.unprotected) {
    md += "- **UNPROTECTED** since " + hms(s.protection.since_ms) + ": " +
          fixed_text(s.protection.admitted_unchecked, 0) +
          " request(s) admitted without a limit check\n";
  }
  if (!options.png_name.empty()) md += "\n![dashboard](" + options.png_name + ")\n";
  sources(md, s);
  protection(md, s);
  keys(md, s, options.max_keys);
  alerts(md, s);
  return md;
}

}  // namespace limitscope
