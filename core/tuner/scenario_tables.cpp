#include "core/tuner/scenario_tables.h"

#include <algorithm>

namespace limitscope::tuner {
namespace {

std::string count(std::uint64_t n) {
  return std::to_string(n);
}

std::string spend(const Counts& c, bool priced) {
  return priced ? format_dollars(c.admitted_spend) : "-";
}

}  // namespace

ResultTable outage_table(const OutageWhatIf& w) {
  ResultTable t;
  const double minutes = static_cast<double>(w.window.end_ns - w.window.start_ns) / 60e9;
  const std::uint64_t in_window = w.baseline_in_outage.admitted + w.baseline_in_outage.rejected;
  t.title = "Redis outage of " + format_number(minutes, minutes < 10 ? 1 : 0) + " min";
  t.columns = {"mode",          "admitted", "429s served", "in the outage",
               "over-admitted", "spend",    "extra spend"};
  t.rows.push_back({{"no outage", count(w.baseline.admitted), count(w.baseline.rejected),
                     count(w.baseline_in_outage.rejected), "0", spend(w.baseline, w.priced),
                     w.priced ? format_dollars(0) : "-"},
                    false,
                    "the configured limit decides every request"});
  const OutageModeResult* worst = nullptr;
  for (const OutageModeResult& m : w.modes) {
    ResultTable::Row r;
    r.cells = {std::string(to_string(m.mode)),
               count(m.total.admitted),
               count(m.total.rejected),
               count(m.in_outage.rejected),
               format_signed(m.over_admitted_requests),
               spend(m.total, w.priced),
               w.priced ? format_dollars(m.extra_spend) : "-"};
    r.flagged = m.over_admitted_requests > 0;
    switch (m.mode) {
      case OutageMode::fail_open:
        r.detail = "every request in the window admitted, none counted";
        break;
      case OutageMode::fail_closed:
        r.detail = "every request in the window refused";
        break;
      case OutageMode::local_fallback:
        r.detail = "each of " + std::to_string(w.replicas) + " replicas decides with 1/" +
                   std::to_string(w.replicas) + " of the limit in memory";
        break;
    }
    r.detail += "; over-admitted cost " + format_number(m.over_admitted_cost, 0) +
                " units against the limit";
    if (worst == nullptr || m.over_admitted_cost > worst->over_admitted_cost) worst = &m;
    t.rows.push_back(std::move(r));
  }
  t.verdict = w.params.describe() + ", " + count(in_window) + " requests in the outage window. ";
  if (worst != nullptr && worst->over_admitted_requests > 0) {
    t.verdict += std::string(to_string(worst->mode)) + " admits " +
                 format_signed(worst->over_admitted_requests) + " requests beyond the limit" +
                 (w.priced ? " (" + format_dollars(worst->extra_spend) + " extra)" : std::string());
    t.problem = true;
  } else {
    t.verdict += "No mode admits beyond the configured limit";
  }
  for (const OutageModeResult& m : w.modes) {
    if (m.mode == OutageMode::fail_closed) {
      t.verdict += "; fail-closed serves " + count(m.in_outage.rejected) + " 429s in the window";
    }
  }
  if (!w.priced) t.notes.push_back("no prices: spend needs token counts (or tokens per request)");
  return t;
}

ResultTable routing_table(const RoutingWhatIf& w) {
  ResultTable t;
  t.title = "Route requests under " + std::to_string(w.rule.under_tokens) + " tokens to " +
            w.rule.to_model;
  t.columns = {"trace", "admitted", "429s", "429 ratio", "spend"};
  t.rows.push_back({{"as it was", count(w.as_was.admitted), count(w.as_was.rejected),
                     format_number(w.as_was.ratio_429() * 100, 1) + "%", spend(w.as_was, w.priced)},
                    false,
                    ""});
  t.rows.push_back({{"routed", count(w.routed.admitted), count(w.routed.rejected),
                     format_number(w.routed.ratio_429() * 100, 1) + "%", spend(w.routed, w.priced)},
                    w.extra_429s > 0,
                    std::to_string(w.requests_routed) + " requests moved to " + w.rule.to_model});
  t.verdict = std::to_string(w.requests_routed) + " requests routed (" +
              std::to_string(w.without_tokens) + " without a token estimate stay): " +
              (w.priced ? "spend " + (w.spend_saved >= 0 ? "saved " + format_dollars(w.spend_saved)
                                                         : "up " + format_dollars(-w.spend_saved))
                        : std::string("spend unknown")) +
              ", 429s " + format_signed(w.extra_429s);
  t.problem = w.extra_429s > 0;
  if (!w.priced) t.notes.push_back("no prices: spend needs token counts (or tokens per request)");
  return t;
}

}  // namespace limitscope::tuner
