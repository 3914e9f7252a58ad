#include "core/probe/scan_budget.h"

#include <algorithm>
#include <cmath>

namespace limitscope::probe {

namespace {
constexpr double kSmoothing =
    0.5;  // weight of the newest cost: follows a change in two or three refreshes

/// `smoothed` (ns per COUNT unit, < 0: none yet) after one more observation of `spent`.
void learn(double& smoothed, Nanos spent, std::size_t asked) {
  const double cost =
      static_cast<double>(std::max<std::int64_t>(spent.count(), 0)) / static_cast<double>(asked);
  smoothed = smoothed < 0 ? cost : kSmoothing * cost + (1 - kSmoothing) * smoothed;
}

/// COUNT units that fit `share` at `ns_per_key`; `none` when they cost nothing.
double fitting(Nanos share, double ns_per_key, double none) {
  return ns_per_key > 0 ? static_cast<double>(share.count()) / ns_per_key : none;
}
}  // namespace

ScanBudget::ScanBudget(ScanBudgetOptions options) : options_(options) {
  options_.min_keys = std::max<std::size_t>(options_.min_keys, 1);
  options_.max_keys = std::max(options_.max_keys, options_.min_keys);
  keys_ = std::clamp(options_.initial_keys, options_.min_keys, options_.max_keys);
}

void ScanBudget::reshape(ScanBudgetOptions options) {
  const std::size_t keys = keys_;
  const double wall = wall_ns_per_key_;
  const double cpu = cpu_ns_per_key_;
  *this = ScanBudget(options);
  wall_ns_per_key_ = wall;
  cpu_ns_per_key_ = cpu;
  keys_ = std::clamp(keys, options_.min_keys, options_.max_keys);
}

ScanBudgetOptions ScanBudget::split(ScanBudgetOptions o, std::size_t parts) {
  const std::size_t n = std::max<std::size_t>(parts, 1);
  o.time_per_refresh /= static_cast<Nanos::rep>(n);
  o.cpu_per_refresh /= static_cast<Nanos::rep>(n);
  o.min_keys = std::max<std::size_t>(o.min_keys / n, 1);
  o.max_keys = std::max(o.max_keys / n, o.min_keys);
  o.initial_keys = std::max(o.initial_keys / n, o.min_keys);
  return o;
}

void ScanBudget::observe(ScanCost cost, std::size_t asked) {
  if (asked == 0) return;
  learn(wall_ns_per_key_, cost.wall, asked);
  learn(cpu_ns_per_key_, cost.cpu, asked);
  const double most = static_cast<double>(options_.max_keys);
  const double capped = std::min({fitting(options_.time_per_refresh, wall_ns_per_key_, most),
                                  fitting(options_.cpu_per_refresh, cpu_ns_per_key_, most),
                                  2.0 * static_cast<double>(keys_), most});
  keys_ = std::max(options_.min_keys, static_cast<std::size_t>(std::floor(capped)));
}

}  // namespace limitscope::probe
