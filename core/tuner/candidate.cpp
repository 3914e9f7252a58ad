#include "core/tuner/candidate.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>

#include "core/common/number_format.h"
#include "core/limiter/algorithms.h"
#include "core/tuner/first_guess.h"
#include "core/tuner/well_behaved.h"

namespace limitscope::tuner {

double largest_cost(const trace::Trace& trace) {
  double most = 0;
  for (const trace::TraceEvent& e : trace.events) most = std::max(most, e.cost);
  return most;
}

std::vector<FieldProblem> check_candidate(const LimitParams& params, double largest) {
  std::vector<FieldProblem> out;
  const auto positive = [&](const char* field, const char* what, double v) {
    if (!std::isfinite(v) || v <= 0) {
      out.push_back(
          {field, std::string(what) + " must be greater than 0 (got " + significant_text(v) + ")"});
      return false;
    }
    return true;
  };
  if (is_window_algorithm(params.algorithm)) {
    const double window_s = static_cast<double>(params.window.count()) / 1e9;
    if (positive("window", "the window", window_s) &&
        params.window < std::chrono::milliseconds(1)) {
      out.push_back({"window", "the window must be at least 1 ms (got " +
                                   significant_text(window_s) + " s)"});
    }
    if (positive("limit", "the limit", params.limit) && largest > params.limit) {
      out.push_back({"limit", "the limit " + significant_text(params.limit) +
                                  " is below the largest cost in the trace (" +
                                  significant_text(largest) +
                                  "): those requests could never be admitted"});
    }
  } else {
    positive("refill", "the refill rate", params.refill.amount);
    if (positive("capacity", "the capacity", params.capacity) && largest > params.capacity) {
      out.push_back({"capacity", "the capacity " + significant_text(params.capacity) +
                                     " is below the largest cost in the trace (" +
                                     significant_text(largest) +
                                     "): those requests could never be admitted"});
    }
  }
  if (out.empty()) {
    // Anything else validate() refuses (e.g. a period of 0), under no field in particular.
    if (Status why = params.validate(); !why.ok())
      out.push_back({is_window_algorithm(params.algorithm) ? "window" : "refill", why.error()});
  }
  return out;
}

std::size_t sweep_state_bytes(const trace::Trace& trace, const SweepSpec& spec) {
  const std::size_t configs = static_cast<std::size_t>(std::max(1, spec.x.steps)) *
                              static_cast<std::size_t>(std::max(1, spec.y.steps));
  // token bucket fast path: tokens, last time and rejections, three doubles per pair;
  // others: the typed state plus two 32-bit counters.
  const std::size_t per_pair =
      spec.base.algorithm == Algorithm::token_bucket
          ? 3 * sizeof(double)
          : visit_algorithm(spec.base.algorithm, [](auto algo) {
              return sizeof(std::optional<typename decltype(algo)::State>) +
                     2 * sizeof(std::uint32_t);
            });
  return trace.keys.size() * configs * per_pair;
}

std::pair<SweepAxis, SweepAxis> suggest_axes(const trace::Trace& trace, Algorithm algorithm,
                                             int steps) {
  return suggest_axes(first_guess(trace, algorithm), largest_cost(trace), steps);
}

std::pair<SweepAxis, SweepAxis> suggest_axes(const FirstGuess& g, double largest, int steps) {
  const Algorithm algorithm = g.params.algorithm;
  const double big = std::max(1.0, largest);
  steps = std::clamp(steps, 1, 4096);
  const auto axis = [steps](double lo, double hi) {
    return SweepAxis{lo, std::max(hi, lo * 2), steps, Spacing::log};
  };
  if (is_window_algorithm(algorithm)) {
    // Windows of 1 s to 10 min; limits from one second's share of the guess to ten times it.
    return {axis(1, 600), axis(std::max(big, g.params.limit / 60), g.params.limit * 10)};
  }
  const double rate = g.params.refill.per_second();
  return {axis(std::max(big, g.params.capacity / 8), std::max(big * 4, g.params.capacity * 8)),
          axis(std::max(0.01, rate / 8), rate * 8)};
}

std::string describe_429s(const Counts& c) {
  char buf[128];
  std::snprintf(buf, sizeof buf, "%llu of %llu requests (%.2f%%)",
                static_cast<unsigned long long>(c.rejected),
                static_cast<unsigned long long>(c.admitted + c.rejected), c.ratio_429() * 100);
  return buf;
}

ChangePreview preview_change(const std::string& rule, const std::optional<redis::RuleConfig>& live,
                             const LimitParams& candidate, std::optional<Counts> current_counts,
                             std::optional<Counts> candidate_counts,
                             const std::string& override_key, const std::string& composite_limit) {
  ChangePreview p;
  p.rule = rule;
  p.key = override_key;
  p.current = current_counts;
  p.candidate = candidate_counts;
  p.expect_version = live ? live->version : 0;
  p.new_text = candidate.describe();
  if (!override_key.empty()) {
    p.scope =
        "key \"" + override_key + "\" of rule \"" + rule +
        "\" only: its own override, at its next decision; every other key keeps the rule's limit";
    if (!live) {
      p.old_text = "(no config)";
      p.check = make_error("rule " + rule +
                           " has no config yet: set the rule's limit before a key's override");
      return p;
    }
    if (live->composite()) {
      p.old_text = live->describe();
      p.check =
          make_error("rule " + rule +
                     " is a composite: its limits apply to every key, there are no overrides");
      return p;
    }
    const bool had = live->overrides.contains(override_key);
    p.old_text = live->params_for(override_key).describe() +
                 (had ? " (the key's override" : " (the rule's limit, no override yet") +
                 ", version " + std::to_string(live->version) + ")";
    p.config = redis::with_override(*live, override_key, candidate);
    p.check = redis::check_for_redis(p.config);
    return p;
  }
  if (!composite_limit.empty() && live && live->composite()) {
    redis::RuleConfig next = *live;
    std::string others;
    bool found = false;
    for (redis::NamedLimit& l : next.limits) {
      if (l.name == composite_limit) {
        p.old_text = l.params.describe() + " (limit " + l.name + " of the composite, version " +
                     std::to_string(live->version) + ")";
        l.params = candidate;
        found = true;
      } else {
        others += (others.empty() ? "" : ", ") + l.name;
      }
    }
    p.scope = "limit \"" + composite_limit + "\" of composite rule \"" + rule +
              "\": every key, at its next decision; the other limits (" + others +
              ") are unchanged and every limit must still admit";
    if (!found) {
      p.old_text = live->describe();
      p.check = make_error("rule " + rule + " has no limit named " + composite_limit);
      return p;
    }
    p.config = std::move(next);
    p.new_text = composite_limit + ": " + candidate.describe();
    p.check = redis::check_for_redis(p.config);
    return p;
  }
  p.scope = "rule \"" + rule + "\": every key it limits, at its next decision";
  std::vector<std::string> dropped;
  p.config = redis::with_rule_limits(live, redis::single_limit(candidate), &dropped);
  if (live) {
    p.old_text = live->describe() + " (version " + std::to_string(live->version) + ")";
    if (live->composite()) {
      p.notes.push_back("the rule is a composite of " + std::to_string(live->limits.size()) +
                        " limits; applying replaces them with this single limit");
    }
  } else {
    p.old_text = "(no config: the rule is created)";
  }
  if (!p.config.overrides.empty()) {
    p.scope += " except the " + std::to_string(p.config.overrides.size()) +
               " key(s) with their own override, which keep it";
  }
  for (const auto& key : dropped) {
    p.notes.push_back("key " + key + "'s override is dropped: it is for " +
                      std::string(to_string(live->limits.front().params.algorithm)) +
                      " and the candidate changes the algorithm");
  }
  p.check = redis::check_for_redis(p.config);
  return p;
}

}  // namespace limitscope::tuner
