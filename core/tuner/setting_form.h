#pragma once
// One limiter setting as the operator enters it in the Tuner, without Qt: the algorithm, the
// two numbers of its fields (capacity and refill per period, or window in seconds and limit),
// the refill's period, and the trace's largest cost the fields are checked against. The
// Tuner's ParamEditor binds to one (TunerSession::setting): it shows the form and writes what
// the operator changes back, so the widget holds no setting of its own. Values the core would
// refuse stay as entered (never clamped silently); problems() says what is wrong, per field.

#include <array>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/common/clock.h"
#include "core/limiter/limit_params.h"
#include "core/tuner/candidate.h"

namespace limitscope::tuner {

/// A period a refill (drain) rate can be entered per.
struct RatePeriod {
  std::string_view label;  ///< "/ s", "/ min", "/ h", "/ day"
  Nanos period;
};
/// The periods offered, shortest first: a second, a minute, an hour, a day.
std::span<const RatePeriod> rate_periods();
/// The algorithms offered, in the editor's order.
std::span<const Algorithm> editable_algorithms();

/// The editor's sliders: logarithmic over the decades an operator tunes over (0.01 to 10^6),
/// for coarse moves; the number field beside takes any value.
inline constexpr int kSliderSteps = 1000;
/// The slider position (0 ... kSliderSteps) of `value`, clamped to the slider's range.
int slider_position(double value);
/// The value at a slider position, to three significant digits.
double slider_value(int position);

class SettingForm {
 public:
  /// A token bucket of capacity 100 refilling 10 per second.
  SettingForm();

  /// Shows `params`: a bucket's refill in its own period when it is one offered, so 100/min is
  /// entered as 100 per minute and never rounded to a per-second value; else in the shortest
  /// period in which at least one cost unit arrives. A window algorithm keeps the period.
  void show(const LimitParams& params);
  /// The setting as entered (possibly invalid: see problems()).
  LimitParams params() const;

  Algorithm algorithm() const { return algorithm_; }
  /// The numbers stay: field 0 and 1 now mean the new algorithm's two fields.
  void set_algorithm(Algorithm algorithm) { algorithm_ = algorithm; }
  /// Field 0 (capacity, queue depth or window in seconds) or 1 (refill, drain or limit).
  double value(int field) const { return values_.at(static_cast<std::size_t>(field)); }
  void set_value(int field, double value) { values_.at(static_cast<std::size_t>(field)) = value; }
  /// The refill's period: an index into rate_periods().
  int rate_period() const { return period_; }
  /// The number stays in the new period ("100 / min" becomes "100 / h"), so nothing is
  /// rounded by a conversion. An index out of range is ignored.
  void set_rate_period(int index);
  /// The trace's largest cost: capacities and limits below it are refused (0: no trace).
  void set_largest_cost(double cost) { largest_cost_ = cost; }
  double largest_cost() const { return largest_cost_; }

  /// check_candidate() of params() against the largest cost; empty when it can be tried.
  std::vector<FieldProblem> problems() const;
  bool valid() const { return problems().empty(); }
  /// The message under field 0 or 1: its first problem (one under no field of its own goes
  /// under field 1), "" when the field is fine.
  std::string problem_text(int field) const;
  /// The field's name: "Capacity (cost)" and "Refill (cost)", "Queue depth" and "Drain (cost)",
  /// or "Window (s)" and "Limit (cost / window)".
  std::string field_label(int field) const;
  /// Whether the rate's period is entered (bucket algorithms; a window has none).
  bool has_rate_period() const { return !is_window_algorithm(algorithm_); }
  /// What to know about the algorithm beside its fields ("A fixed window admits up to twice the
  /// limit across a window boundary."), or "" for nothing.
  std::string note() const;

 private:
  Algorithm algorithm_ = Algorithm::token_bucket;
  std::array<double, 2> values_{};
  int period_ = 0;
  double largest_cost_ = 0;
};

}  // namespace limitscope::tuner
