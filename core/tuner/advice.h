#pragma once
// What the Tuner recommends, and why, in the operator's words: the cheapest cell of a sweep
// that meets the constraints, a spend limit relative to the current setting (on by default:
// at most +10% over what the current setting admits), the recommendation's spend and daily
// quota burn beside the current setting's, and a warning when the best cell sits on the edge
// of the grid ("widen the range", and which way). The GUI and the CLI print the same lines.

#include <optional>
#include <string>
#include <vector>

#include "core/limiter/limit_params.h"
#include "core/trace/trace.h"
#include "core/tuner/pricing.h"
#include "core/tuner/sweep.h"
#include "core/tuner/well_behaved.h"

namespace limitscope::tuner {

/// The default spend limit: at most 10% more than the current setting admits.
inline constexpr double kDefaultMaxSpendIncrease = 0.10;

/// A best cell at an end of an axis: the optimum may lie beyond it.
struct EdgeHint {
  int axis = 0;      ///< 0: x (capacity, or window), 1: y (refill, or limit)
  bool low = false;  ///< at the axis's lowest value (else its highest)
  double value = 0;  ///< that value
  std::string text;  ///< "capacity is at the grid's lowest value (15): widen the range downward"
};

/// What a setting admits on the trace, for the recommendation and the current setting.
struct SettingFigures {
  LimitParams params;
  Counts total;
  double max_quota_burn = 0;  ///< the highest key's daily quota use (1 = 100%); 0 without quotas
  std::uint32_t keys_over_quota = 0;
};

struct AdviceOptions {
  /// The operator's current setting (the spend limit's reference); nullopt: no spend limit.
  std::optional<LimitParams> current;
  /// At most this share more than the current setting admits (0.10 = +10%); nullopt: off.
  std::optional<double> max_spend_increase = kDefaultMaxSpendIncrease;
  /// Prices and quotas (the sweep's); nullptr: cost units, no quota burn.
  const PricingOptions* pricing = nullptr;
};

struct Advice {
  Recommendation recommendation;  ///< the best cell meets every constraint, the spend limit too
  /// The cell that would have been best without the spend limit, when the limit excluded it.
  std::optional<std::size_t> excluded_by_spend;
  std::optional<double> spend_cap;        ///< in cell_cheapness() units, when the limit is on
  std::optional<SettingFigures> current;  ///< replayed, when a current setting was given
  std::optional<SettingFigures> best;     ///< the recommendation replayed (with quota burn)
  bool priced = false;                    ///< spend in dollars (else cost units)
  std::vector<EdgeHint> edges;            ///< for the best cell (or the excluded one)
  /// The recommendation in words, one sentence a line, numbers at sensible precision.
  std::vector<std::string> lines;
  std::string text() const;  ///< the lines joined by '\n'
};

/// Recommends on a sweep with the operator's constraints plus the spend limit, and explains it.
/// `sweep.well_behaved` may have no cells (the CLI's plain sweep) when the constraints do not
/// ask for the well-behaved keys' 429 ratio.
Advice advise(const trace::Trace& trace, const SweepSpec& spec, const GuidedSweep& sweep,
              const OperatorConstraints& constraints, const AdviceOptions& options);

/// The cells of `index` at an end of an axis with 2 steps or more, except a capacity (or limit)
/// already at the largest cost, which cannot go lower. @param largest_cost the trace's
std::vector<EdgeHint> edge_hints(const SweepSpec& spec, std::size_t index, double largest_cost);

/// "token-bucket capacity 180, refill 2.5/s" / "sliding-log limit 1,200 per 60 s".
std::string setting_text(const LimitParams& params);

}  // namespace limitscope::tuner
