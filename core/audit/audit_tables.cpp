#include "core/audit/audit_tables.h"

namespace limitscope::audit {
namespace {

std::string plural(std::size_t n, const std::string& one, const std::string& many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

std::string seconds_text(std::int64_t us) {
  return format_number(static_cast<double>(us) / 1e6, 3) + " s";
}

std::string offset_text(double offset_s, double uncertainty_s) {
  return format_seconds(offset_s) + " ± " + format_seconds(uncertainty_s);
}

std::string offset_text(const std::optional<ClockOffset>& o) {
  return o ? offset_text(o->offset_s, o->uncertainty_s) : "-";
}

}  // namespace

ResultTable replica_table(const ReplicaAudit& a) {
  ResultTable t;
  t.title = "Effective vs configured limits";
  t.columns = {"tenant",   "key",     "model", "tier",     "limit",
               "admitted", "at most", "ratio", "replicas", "verdict"};
  for (const KeyFinding& k : a.keys) {
    ResultTable::Row r;
    r.cells = {k.name.empty() ? "-" : k.name,
               k.api_key_hash,
               k.model,
               k.tier,
               k.limit,
               format_number(k.admitted_cost, 0),
               format_number(k.bound_cost, 0),
               format_number(k.ratio, 2) + "x",
               std::to_string(k.replicas_admitting),
               k.leak ? "LEAK" : "ok"};
    r.flagged = k.leak;
    r.detail = format_number(k.admitted_per_s, 2) + " cost/s admitted over " +
               format_seconds(a.window_s) + ", configured " + format_number(k.configured_per_s, 2) +
               "/s sustained; the largest single replica " + format_number(k.max_replica_ratio, 2) +
               "x of the bound";
    t.rows.push_back(std::move(r));
  }
  t.problem = a.leaks > 0;
  const std::string over = plural(a.replicas, "replica", "replicas") + " (window " +
                           format_seconds(a.window_s) + ", tolerance " +
                           format_number(a.tolerance * 100, 0) + "%)";
  t.verdict = a.leaks > 0 ? plural(a.leaks, "leak", "leaks") + " over " + over
                          : "No leak: " + plural(a.keys.size(), "key", "keys") + " over " + over +
                                " stayed within what one limit admits";
  if (!a.likely_cause.empty()) t.notes.push_back("Likely cause: " + a.likely_cause);
  t.notes.insert(t.notes.end(), a.notes.begin(), a.notes.end());
  return t;
}

ResultTable retry_after_table(const RetryAfterAudit& a, const DecisionRead& read,
                              const std::string& rule) {
  ResultTable t;
  t.title = "Retry-After honesty (rule " + rule + ")";
  t.columns = {"tenant",    "key",  "refusals",    "honoured",
               "impatient", "lies", "not retried", "verdict"};
  for (const KeyRetryFindings& k : a.keys) {
    ResultTable::Row r;
    r.cells = {k.name.empty() ? "-" : k.name,
               k.key,
               std::to_string(k.refusals),
               std::to_string(k.honoured),
               std::to_string(k.impatient),
               std::to_string(k.lies),
               std::to_string(k.unanswered),
               k.lies > 0 ? "LIES" : k.impatient > 0 ? "impatient client" : "ok"};
    r.flagged = k.lies > 0;
    for (const RetryExample& x : k.lie_examples) {
      r.detail += "lie: promised " + seconds_text(x.promised_us) + ", waited " +
                  seconds_text(x.waited_us) + ", refused again\n";
    }
    for (const RetryExample& x : k.impatient_examples) {
      r.detail += "impatient: promised " + seconds_text(x.promised_us) + ", came back after " +
                  seconds_text(x.waited_us) + "\n";
    }
    if (!r.detail.empty()) r.detail.pop_back();
    t.rows.push_back(std::move(r));
  }
  t.problem = a.lies > 0;
  const std::string counts = std::to_string(a.refusals) + " refusals with a promised wait in " +
                             std::to_string(read.decisions.size()) +
                             " decisions: " + std::to_string(a.honoured) + " honoured, " +
                             std::to_string(a.impatient) + " impatient, " + std::to_string(a.lies) +
                             " lies, " + std::to_string(a.unanswered) + " not retried";
  t.verdict = a.lies > 0        ? "Retry-After lied: " + counts
              : a.refusals == 0 ? "Nothing to judge: no refusal with a promised wait in " +
                                      std::to_string(read.decisions.size()) + " decisions"
                                : "Retry-After held: " + counts;
  if (read.refusals_without_retry > 0) {
    t.notes.push_back(
        std::to_string(read.refusals_without_retry) +
        " refusals carry no retry_us (never admissible, or logged by an older script)");
  }
  for (const std::string& e : read.errors) t.notes.push_back("error: " + e);
  return t;
}

ResultTable clock_table(const ClockAudit& a) {
  ResultTable t;
  t.title = "Clock skew";
  t.columns = {"clock", "read from", "vs workstation", "vs Redis", "verdict"};
  for (const RedisNodeFinding& n : a.redis_nodes) {
    ResultTable::Row r;
    const bool reference = n.node == a.redis_reference;
    r.cells = {"redis " + n.node, "TIME", offset_text(n.vs_workstation),
               reference          ? "reference"
               : n.vs_reference_s ? offset_text(*n.vs_reference_s, n.uncertainty_s)
                                  : "-",
               !n.error.empty() ? "unreadable"
               : n.skewed       ? "SKEW"
                                : "ok"};
    r.flagged = n.skewed || !n.error.empty();
    r.detail = n.error;
    t.rows.push_back(std::move(r));
  }
  for (const GatewayClockFinding& g : a.gateways) {
    ResultTable::Row r;
    r.cells = {g.gateway,
               g.source.empty()      ? "-"
               : g.source == "gauge" ? "time gauge"
                                     : "Date header",
               offset_text(g.vs_workstation),
               g.vs_redis_s ? offset_text(*g.vs_redis_s, g.uncertainty_s) : "-",
               g.skewed           ? "SKEW"
               : g.source.empty() ? "unreadable"
                                  : "ok"};
    r.flagged = g.skewed || g.source.empty();
    r.detail = g.error;
    if (g.date_vs_workstation && g.source == "gauge") {
      r.detail += (r.detail.empty() ? "" : "\n") + std::string("Date header: ") +
                  offset_text(g.date_vs_workstation);
    }
    t.rows.push_back(std::move(r));
  }
  t.problem = a.skewed > 0 || a.errors > 0;
  const std::size_t clocks = a.gateways.size() + a.redis_nodes.size();
  t.verdict = a.skewed > 0 ? plural(a.skewed, "clock", "clocks") + " of " + std::to_string(clocks) +
                                 " off by more than " + format_seconds(a.threshold_s)
              : a.errors > 0
                  ? plural(a.errors, "clock", "clocks") + " could not be read"
                  : "No skew: " + plural(clocks, "clock", "clocks") + " within " +
                        format_seconds(a.threshold_s) +
                        (a.redis_vs_workstation ? " of Redis TIME" : " of this workstation");
  if (a.skewed > 0 && a.errors > 0)
    t.verdict += "; " + plural(a.errors, "clock", "clocks") + " could not be read";
  return t;
}

}  // namespace limitscope::audit
