#include "core/tuner/setting_form.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace limitscope::tuner {

namespace {

// The sliders' range: decades an operator tunes over.
constexpr double kSliderLow = 0.01;
constexpr double kSliderHigh = 1e6;

constexpr RatePeriod kPeriods[] = {{"/ s", Nanos{1'000'000'000LL}},
                                   {"/ min", Nanos{60'000'000'000LL}},
                                   {"/ h", Nanos{3'600'000'000'000LL}},
                                   {"/ day", Nanos{86'400'000'000'000LL}}};

constexpr Algorithm kAlgorithms[] = {Algorithm::token_bucket,    Algorithm::gcra,
                                     Algorithm::leaky_bucket,    Algorithm::sliding_log,
                                     Algorithm::sliding_counter, Algorithm::fixed_window};

constexpr int kPeriodCount = static_cast<int>(std::size(kPeriods));

// The period a rate reads best in: its own when it is one offered, else the shortest in which
// at least one cost unit arrives.
int period_for(const Rate& r) {
  for (int p = 0; p < kPeriodCount; ++p) {
    if (r.period == kPeriods[p].period) return p;
  }
  for (int p = 0; p < kPeriodCount; ++p) {
    if (r.per_second() * static_cast<double>(kPeriods[p].period.count()) / 1e9 >= 1) return p;
  }
  return kPeriodCount - 1;
}

}  // namespace

std::span<const RatePeriod> rate_periods() {
  return kPeriods;
}

std::span<const Algorithm> editable_algorithms() {
  return kAlgorithms;
}

int slider_position(double value) {
  if (!(value > kSliderLow)) return 0;
  const double f = std::log(value / kSliderLow) / std::log(kSliderHigh / kSliderLow);
  return static_cast<int>(std::lround(std::clamp(f, 0.0, 1.0) * kSliderSteps));
}

double slider_value(int position) {
  const double v =
      kSliderLow * std::pow(kSliderHigh / kSliderLow, static_cast<double>(position) / kSliderSteps);
  const double scale = std::pow(10.0, std::floor(std::log10(v)) - 2);
  return std::round(v / scale) * scale;
}

SettingForm::SettingForm() {
  LimitParams initial;
  initial.capacity = 100;
  initial.refill = Rate::per_sec(10);
  show(initial);
}

void SettingForm::show(const LimitParams& p) {
  algorithm_ = p.algorithm;
  if (is_window_algorithm(p.algorithm)) {
    values_ = {static_cast<double>(p.window.count()) / 1e9, p.limit};
    return;
  }
  period_ = period_for(p.refill);
  const Nanos period = kPeriods[period_].period;
  const double rate = p.refill.period == period
                          ? p.refill.amount  // as written: no conversion, no rounding
                          : p.refill.per_second() * static_cast<double>(period.count()) / 1e9;
  values_ = {p.capacity, rate};
}

LimitParams SettingForm::params() const {
  LimitParams p;
  p.algorithm = algorithm_;
  if (is_window_algorithm(algorithm_)) {
    const double w = values_[0];
    p.window = Nanos{std::isfinite(w) ? static_cast<std::int64_t>(std::llround(w * 1e9)) : 0};
    p.limit = values_[1];
  } else {
    p.capacity = values_[0];
    p.refill = Rate{values_[1], kPeriods[period_].period};
  }
  return p;
}

void SettingForm::set_rate_period(int index) {
  if (index >= 0 && index < kPeriodCount) period_ = index;
}

std::vector<FieldProblem> SettingForm::problems() const {
  return check_candidate(params(), largest_cost_);
}

std::string SettingForm::problem_text(int field) const {
  const char* first = is_window_algorithm(algorithm_) ? "window" : "capacity";
  for (const FieldProblem& p : problems()) {
    if ((p.field == first ? 0 : 1) == field) return p.message;
  }
  return {};
}

std::string SettingForm::field_label(int field) const {
  if (is_window_algorithm(algorithm_)) return field == 0 ? "Window (s)" : "Limit (cost / window)";
  if (algorithm_ == Algorithm::leaky_bucket) return field == 0 ? "Queue depth" : "Drain (cost)";
  return field == 0 ? "Capacity (cost)" : "Refill (cost)";
}

std::string SettingForm::note() const {
  return algorithm_ == Algorithm::fixed_window
             ? "A fixed window admits up to twice the limit across a window boundary."
             : std::string();
}

}  // namespace limitscope::tuner
