#pragma once
// A grid of candidate settings replayed over one trace: capacity × refill for the bucket
// algorithms, window × limit for the window algorithms; every cell is exactly the plain
// replay of its configuration (replay.h), computed many configurations per pass over the
// trace. The token bucket has a struct-of-arrays path that decides all configurations of an
// event in one vectorisable loop; the other algorithms keep one typed state per key and
// configuration. Work is spread over threads by configuration and can be cancelled.

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/common/expected.h"
#include "core/limiter/limit_params.h"
#include "core/trace/trace.h"
#include "core/tuner/replay.h"

namespace limitscope::tuner {

/// How the values of an axis are spread between MIN and MAX.
enum class Spacing {
  /// Even ratios (the default): settings span orders of magnitude, and a grid of 12 from 15 to
  /// 9,000 tries 15, 27, 48, … rather than 15, 832, 1,649, … Values between the ends are
  /// rounded to 3 significant digits, so a recommendation reads as a number an operator types.
  log,
  linear,  ///< even steps
};

/// STEPS values from MIN to MAX inclusive.
struct SweepAxis {
  double min = 0;
  double max = 0;
  int steps = 1;
  Spacing spacing = Spacing::log;
  std::vector<double> values() const;
};

struct SweepSpec {
  LimitParams base;  ///< algorithm, and the period of refill (a rate per second is swept)
  /// Bucket algorithms: x = capacity, y = refill per second. Window algorithms: x = window in
  /// seconds, y = limit.
  SweepAxis x;
  SweepAxis y;
  int threads = 2;
  /// Prices: each cell then has its spend and its worst key's spend per minute; nullptr: none.
  const PricingOptions* pricing = nullptr;
};

struct SweepCell {
  LimitParams params;
  double x = 0;
  double y = 0;
  Counts total;
  double worst_key_429 = 0;  ///< the highest 429 ratio of any key
  /// The most dollars admitted to one key in one minute (as ReplayResult::spend).
  double worst_key_spend_per_min = 0;
};

struct SweepResult {
  std::vector<SweepCell> cells;  ///< x-major: cells[i * y.steps + j]
  bool fast_path = false;        ///< the struct-of-arrays token bucket path ran
  bool priced = false;           ///< spend figures are set (some request had a price)
  std::string unpriced_reason;   ///< as SpendSummary::unpriced_reason
};

/// Parses "MIN:MAX:STEPS" or "MIN:MAX:STEPS:log|lin" (STEPS >= 1; MIN <= MAX; MIN == MAX needs
/// STEPS 1). Log-spaced unless ":lin".
Expected<SweepAxis> parse_axis(std::string_view text, std::string_view what);

/// @param cancel checked between chunks of events; a cancelled sweep returns an error
/// @param progress called now and then with the fraction done (from worker threads)
Expected<SweepResult> sweep(const trace::Trace& trace, const SweepSpec& spec,
                            const std::atomic<bool>* cancel = nullptr,
                            const std::function<void(double)>& progress = {});

/// The parameters of cell (x, y) of a spec.
LimitParams cell_params(const SweepSpec& spec, double x, double y);

struct Constraints {
  std::optional<double> max_ratio_429;      ///< overall 429 ratio at most this
  std::optional<double> max_worst_key_429;  ///< no key's 429 ratio above this
  /// No key admitted more than this many dollars in any minute (needs a priced sweep).
  std::optional<double> max_worst_key_spend_per_min;
  /// Spend at most this, in cell_cheapness() units (dollars when priced, else cost units): the
  /// spend limit relative to the current setting (advice.h) sets it.
  std::optional<double> max_cheapness;
};

struct Recommendation {
  std::vector<std::size_t> frontier;  ///< cells not dominated in (429 ratio, cheapness)
  std::optional<std::size_t> best;    ///< meets the constraints and is the cheapest
};

/// What a cell lets through, the smaller the cheaper: dollars admitted in a priced sweep,
/// else cost units admitted.
double cell_cheapness(const SweepResult& result, const SweepCell& cell);

/// Whether a cell meets the constraints of `Constraints` (a spend constraint on an unpriced
/// sweep is met by no cell: callers refuse it first, see check_constraints).
bool meets(const SweepResult& result, const SweepCell& cell, const Constraints& constraints);

/// @return ok, or an error in words when a constraint cannot be judged on this sweep (a spend
///         limit without prices)
Status check_constraints(const SweepResult& result, const Constraints& constraints);

/// The Pareto frontier (fewer 429s vs. less admitted: a tighter limit protects the backend and
/// the bill) and the cheapest cell that meets the constraints.
Recommendation recommend(const SweepResult& result, const Constraints& constraints);

}  // namespace limitscope::tuner
