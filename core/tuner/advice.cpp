#include "core/tuner/advice.h"

#include <algorithm>

#include "core/tuner/candidate.h"
#include "core/tuner/number_text.h"
#include "core/tuner/replay.h"

namespace limitscope::tuner {

namespace {

std::optional<SettingFigures> figures(const trace::Trace& trace, const LimitParams& params,
                                      const PricingOptions* pricing) {
  ReplayOptions o;
  o.pricing = pricing;
  auto r = replay(trace, params, o);
  if (!r) return std::nullopt;
  SettingFigures f;
  f.params = params;
  f.total = r->total;
  for (const TimelinePoint& p : r->timeline) {
    f.max_quota_burn = std::max(f.max_quota_burn, p.max_quota_burn);
    f.keys_over_quota = std::max(f.keys_over_quota, p.keys_over_quota);
  }
  return f;
}

double spend_of(bool priced, const Counts& c) {
  return priced ? c.admitted_spend : c.admitted_cost;
}

std::string spend_text(bool priced, double v) {
  return priced ? dollars_text(v) : number_text(v) + " cost units";
}

std::string counts_text(const Counts& c) {
  return number_text(static_cast<double>(c.rejected), 20) + " of " +
         number_text(static_cast<double>(c.admitted + c.rejected), 20) + " requests (" +
         percent_text(c.ratio_429()) + ")";
}

// "Spend: $12.30 admitted (the current setting: $11.80, +4.2%; limit +10%)."
std::string spend_line(const Advice& a, const SettingFigures& f, const AdviceOptions& o) {
  std::string s = "Spend: " + spend_text(a.priced, spend_of(a.priced, f.total)) + " admitted";
  if (a.current) {
    const double now = spend_of(a.priced, a.current->total);
    s += " (the current setting: " + spend_text(a.priced, now);
    if (now > 0) s += ", " + percent_change_text(spend_of(a.priced, f.total) / now - 1);
    if (a.spend_cap && o.max_spend_increase)
      s += "; limit " + percent_change_text(*o.max_spend_increase);
    s += ")";
  }
  return s + ".";
}

std::optional<std::string> quota_line(const Advice& a, const SettingFigures& f) {
  const double now = a.current ? a.current->max_quota_burn : 0;
  if (f.max_quota_burn <= 0 && now <= 0) return std::nullopt;
  std::string s =
      "Daily quota burn: the busiest key uses " + percent_text(f.max_quota_burn) + " of its quota";
  if (a.current) s += " (the current setting: " + percent_text(now) + ")";
  if (f.keys_over_quota > 0) {
    s += "; " + number_text(f.keys_over_quota, 20) +
         (f.keys_over_quota == 1 ? " key goes" : " keys go") + " over quota";
  }
  return s + ".";
}

}  // namespace

std::string setting_text(const LimitParams& p) {
  std::string out(to_string(p.algorithm));
  if (is_window_algorithm(p.algorithm)) {
    return out + " limit " + number_text(p.limit) + " per " +
           number_text(static_cast<double>(p.window.count()) / 1e9) + " s";
  }
  const double r = p.refill.per_second();
  const std::string rate = r > 0 && r < 0.1 ? number_text(r * 60) + "/min" : number_text(r) + "/s";
  return out + " capacity " + number_text(p.capacity) + ", refill " + rate;
}

std::vector<EdgeHint> edge_hints(const SweepSpec& spec, std::size_t index, double largest_cost) {
  std::vector<EdgeHint> out;
  const bool window = is_window_algorithm(spec.base.algorithm);
  const SweepAxis* axes[2] = {&spec.x, &spec.y};
  const std::size_t ys = static_cast<std::size_t>(std::max(1, spec.y.steps));
  const std::size_t at[2] = {index / ys, index % ys};
  const char* names[2] = {window ? "the window" : "the capacity",
                          window ? "the limit" : "the refill rate"};
  for (int a = 0; a < 2; ++a) {
    const SweepAxis& axis = *axes[a];
    if (axis.steps < 2) continue;
    const bool low = at[a] == 0;
    const bool high = at[a] + 1 == static_cast<std::size_t>(axis.steps);
    if (!low && !high) continue;
    // The size a request needs: a capacity (or limit) at the largest cost cannot go lower.
    const bool size_axis = window ? a == 1 : a == 0;
    if (low && size_axis && axis.min <= largest_cost) continue;
    EdgeHint h;
    h.axis = a;
    h.low = low;
    h.value = low ? axis.min : axis.max;
    h.text = std::string("On the grid's edge: ") + names[a] + " is at its " +
             (low ? "lowest" : "highest") + " value (" + number_text(h.value) +
             "), so a better setting may lie beyond it: widen the range " +
             (low ? "downward." : "upward.");
    out.push_back(std::move(h));
  }
  return out;
}

std::string Advice::text() const {
  std::string out;
  for (const auto& l : lines) out += (out.empty() ? "" : "\n") + l;
  return out;
}

Advice advise(const trace::Trace& trace, const SweepSpec& spec, const GuidedSweep& sweep,
              const OperatorConstraints& constraints, const AdviceOptions& options) {
  Advice a;
  a.priced = sweep.all.priced;
  const Recommendation unlimited = recommend(sweep, constraints);
  a.recommendation = unlimited;
  if (options.current) {
    a.current = figures(trace, *options.current, options.pricing);
    if (a.current && options.max_spend_increase) {
      a.spend_cap = spend_of(a.priced, a.current->total) * (1 + *options.max_spend_increase);
      OperatorConstraints capped = constraints;
      capped.core.max_cheapness = *a.spend_cap;
      a.recommendation = recommend(sweep, capped);
      if (unlimited.best && a.recommendation.best != unlimited.best)
        a.excluded_by_spend = unlimited.best;
    }
  }
  const std::optional<std::size_t> shown =
      a.recommendation.best ? a.recommendation.best : a.excluded_by_spend;
  if (shown) {
    a.best = figures(trace, sweep.all.cells[*shown].params, options.pricing);
    a.edges = edge_hints(spec, *shown, largest_cost(trace));
  }
  auto& L = a.lines;
  if (a.recommendation.best && a.best) {
    const std::size_t i = *a.recommendation.best;
    L.push_back("Recommended ★: " + setting_text(a.best->params) + ".");
    std::string r = "429s: " + counts_text(sweep.all.cells[i].total);
    if (i < sweep.well_behaved.cells.size()) {
      r += "; well-behaved keys: " + counts_text(sweep.well_behaved.cells[i].total);
    }
    L.push_back(r + ".");
    std::string s = spend_line(a, *a.best, options);
    if (a.priced)
      s.insert(s.size() - 1, "; the worst key " +
                                 dollars_text(sweep.all.cells[i].worst_key_spend_per_min) + "/min");
    L.push_back(s);
    if (auto q = quota_line(a, *a.best)) L.push_back(*q);
  } else if (a.excluded_by_spend && a.best && a.current) {
    const double now = spend_of(a.priced, a.current->total);
    const double then = spend_of(a.priced, a.best->total);
    L.push_back("No setting meets the constraints within the spend limit (" +
                percent_change_text(*options.max_spend_increase) + " over the current setting's " +
                spend_text(a.priced, now) + ").");
    L.push_back("The cheapest that meets the 429 constraints, " + setting_text(a.best->params) +
                ", admits " + spend_text(a.priced, then) +
                (now > 0 ? " (" + percent_change_text(then / now - 1) + ")" : std::string()) + ".");
    if (auto q = quota_line(a, *a.best)) L.push_back(*q);
    L.push_back(
        "Raise the spend limit only if that spend is intended; otherwise accept more 429s.");
  } else {
    L.push_back(
        "No setting in the grid meets the constraints: widen the range upward (larger settings) "
        "or relax a constraint.");
  }
  for (const auto& e : a.edges) L.push_back(e.text);
  if (!a.current) {
    L.push_back(options.current
                    ? "No spend limit: the current setting cannot be replayed on this trace."
                    : "No spend limit: no current setting to compare with.");
  } else if (!options.max_spend_increase) {
    L.push_back("The spend limit is off.");
  }
  return a;
}

}  // namespace limitscope::tuner
