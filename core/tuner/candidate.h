#pragma once
// What the Tuner checks before it tries or applies a setting, in the operator's words: field
// problems (a zero or negative rate, a capacity below the largest cost in the trace), the
// memory a sweep would need, and the preview of a change to a live rule (old -> new, scope,
// predicted 429s on the trace). No Qt: the widgets only show these.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/common/expected.h"
#include "core/limiter/limit_params.h"
#include "core/redis/rule_config.h"
#include "core/trace/trace.h"
#include "core/tuner/first_guess.h"
#include "core/tuner/replay.h"
#include "core/tuner/sweep.h"

namespace limitscope::tuner {

/// The field a problem belongs to: "capacity", "refill", "window" or "limit".
struct FieldProblem {
  std::string field;
  std::string message;
};

/// The largest cost of any event (0 for an empty trace).
double largest_cost(const trace::Trace& trace);

/// Checks the fields the algorithm uses: finite and > 0, a window of at least 1 ms, and a
/// capacity (or limit) of at least the largest cost, since a request above it can never be
/// admitted. @param largest_cost 0 when no trace is loaded
/// @return the problems, empty when the setting can be tried
std::vector<FieldProblem> check_candidate(const LimitParams& params, double largest_cost);

/// The state memory a sweep keeps: one state per key × configuration, plus its counters.
std::size_t sweep_state_bytes(const trace::Trace& trace, const SweepSpec& spec);

/// Log-spaced sweep axes centred on the trace's first guess (first_guess.h): for buckets,
/// capacity from 1/8 to 8 times the guess (never below the largest cost) and refill from 1/8 to
/// 8 times; for windows, 1 s to 10 min and limits from a second's share of the guessed
/// per-minute limit to ten times it.
std::pair<SweepAxis, SweepAxis> suggest_axes(const trace::Trace& trace, Algorithm algorithm,
                                             int steps);
/// The same axes from a first guess already made (first_guess(trace, guess.params.algorithm))
/// and the trace's largest_cost(), without another pass over the trace.
std::pair<SweepAxis, SweepAxis> suggest_axes(const FirstGuess& guess, double largest, int steps);

/// What applying a candidate to a rule would change.
struct ChangePreview {
  std::string rule;
  std::string scope;     ///< what the change reaches, in words
  std::string key;       ///< the key whose override is set, or "" for the whole rule
  std::string old_text;  ///< the live config, or "(no config: the rule is created)"
  std::string new_text;
  std::int64_t expect_version = 0;  ///< compare-and-set on this version (0: the rule is new)
  std::optional<Counts> current;    ///< predicted on the trace with the current setting
  std::optional<Counts> candidate;  ///< ... and with the candidate
  std::vector<std::string> notes;   ///< e.g. a composite rule's limits are replaced by one
  Status check;                     ///< ok, or why the change is refused (Redis cannot run it)
  redis::RuleConfig config;         ///< what would be written
};

/// @param live the rule's config as read (nullopt: the rule has none yet)
/// @param current_counts, candidate_counts the replay totals on the loaded trace, if any (for
///        a key's override: that key's counts)
/// @param override_key "" to change the rule's limit for every key (its per-key overrides are
///        kept when the algorithm stays, else dropped, with a note); a key to set that key's
///        override only (refused without a live single-limit rule, or with another algorithm)
/// @param composite_limit on a composite rule, the name of the limit the candidate replaces
///        (the others stay); "" replaces the whole composite with the single candidate limit
ChangePreview preview_change(const std::string& rule, const std::optional<redis::RuleConfig>& live,
                             const LimitParams& candidate, std::optional<Counts> current_counts,
                             std::optional<Counts> candidate_counts,
                             const std::string& override_key = {},
                             const std::string& composite_limit = {});

/// "1,234 of 10,000 requests (12.34%)" for the preview and the chart's legend.
std::string describe_429s(const Counts& counts);

}  // namespace limitscope::tuner
