#pragma once
// What a replayed request costs in dollars and how much of its key's daily quota it burns. A
// request's spend is its LLM tokens at its model's price per million tokens; a key's quota
// burn is the cost units admitted to it in the current UTC day over its tier's daily quota.
// Prices, quotas and the tier of keys come from a policy (the embedded default unless the
// operator gives one). A trace without token counts can be priced with an assumed number of
// tokens per request; requests that still have no price count as unpriced, never as free.

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "core/limiter/policy.h"
#include "core/trace/trace.h"

namespace limitscope::tuner {

struct PricingOptions {
  const Policy* policy = nullptr;            ///< models' prices, tiers' quotas; nullptr: none
  std::optional<double> tokens_per_request;  ///< assumed for events without a token count
};

class Pricing {
 public:
  /// Prices each model of the trace from the policy (a model it does not list, or lists at
  /// price 0, is unpriced) and counts the events that cannot be priced.
  static Pricing for_trace(const trace::Trace& trace, const PricingOptions& options);

  /// Dollars event `i` of `trace` costs when admitted; 0 when it cannot be priced.
  double dollars(const trace::Trace& trace, std::size_t i) const {
    const double price = per_token_[trace.events[i].model];
    if (!(price > 0)) return 0;
    if (!trace.tokens.empty() && trace.tokens[i] != trace::Trace::kNoTokens) {
      return static_cast<double>(trace.tokens[i]) * price;
    }
    return fallback_tokens_ * price;  // 0 when no assumption was given
  }

  /// Some event of the trace has a price (otherwise spend figures mean nothing).
  bool priced() const { return priced_events_ > 0; }
  std::uint64_t priced_events() const { return priced_events_; }
  std::uint64_t unpriced_events() const { return unpriced_events_; }
  /// Models of the trace the policy gives no price ("" for events without a model).
  const std::vector<std::string>& unpriced_models() const { return unpriced_models_; }
  /// Why events are unpriced, in words, or "" when every event is priced.
  std::string unpriced_reason() const;

  /// The daily quota (cost units) of every key of the trace, 0 where its tier has none. A
  /// key's tier is the trace's tier column when the policy knows it, else the policy's own
  /// (listed key, or the default tier).
  static std::vector<double> key_quotas(const trace::Trace& trace, const Policy& policy);

 private:
  std::vector<double> per_token_;  ///< dollars per token, by trace model id; 0 = unpriced
  double fallback_tokens_ = 0;
  std::uint64_t priced_events_ = 0;
  std::uint64_t unpriced_events_ = 0;
  std::uint64_t events_without_tokens_ = 0;
  std::vector<std::string> unpriced_models_;
};

/// Spend in dollars, when the replay was priced.
struct SpendSummary {
  bool priced = false;  ///< some request had a price
  /// The most dollars admitted to one key within one minute (minutes of the Unix epoch, as
  /// the trace's times count from it), and where: the figure a runaway client drives up.
  double worst_key_per_min = 0;
  std::uint32_t worst_key = 0;       ///< index into Trace::keys
  std::int64_t worst_minute_ns = 0;  ///< start of that minute
  std::uint64_t unpriced_requests = 0;
  std::string unpriced_reason;  ///< "" when every request was priced
};

/// The worst spend of one key in one minute (minutes of the epoch): each key's spend in its
/// current minute, folded into the maximum when the key's next admitted request falls in a
/// later minute, and at finish(). The sweep keeps the same sums in the same order, so its
/// figures equal these exactly.
class KeyMinuteSpend {
 public:
  static constexpr std::int64_t kMinuteNs = 60'000'000'000;
  explicit KeyMinuteSpend(std::size_t keys) : minute_(keys, -1), spend_(keys, 0) {}
  /// An admitted request of `key` at `t_ns` costing `dollars`.
  void add(std::uint32_t key, std::int64_t t_ns, double dollars);
  void finish();
  double worst = 0;
  std::uint32_t worst_key = 0;
  std::int64_t worst_minute_ns = 0;

 private:
  void fold(std::uint32_t key);
  std::vector<std::int64_t> minute_;
  std::vector<double> spend_;
};

/// Daily quota use per key, for requests fed in time order. The day is the UTC day of the
/// request (a trace whose times start at 0 is day 0 of the epoch).
class DailyQuotaBurn {
 public:
  static constexpr std::int64_t kDayNs = 86'400'000'000'000;
  /// @param quotas by key (Pricing::key_quotas); 0 = the key has no quota
  explicit DailyQuotaBurn(std::vector<double> quotas)
      : quota_(std::move(quotas)), used_(quota_.size(), 0) {}
  /// An admitted request of `key` at `t_ns` taking `cost` units.
  void admit(std::uint32_t key, std::int64_t t_ns, double cost);
  double max_burn = 0;     ///< the highest key's use / quota today
  std::uint32_t over = 0;  ///< keys at or above their quota today

 private:
  std::vector<double> quota_;
  std::vector<double> used_;
  std::int64_t day_ = INT64_MIN;
};

/// What replay() and the what-if series track beside the decisions, from one set of prices:
/// each event's dollars, the worst key's minute and the daily quota burn.
class SpendTracker {
 public:
  SpendTracker(const trace::Trace& trace, const PricingOptions& options);
  /// Dollars event `i` costs when admitted.
  double dollars(std::size_t i) const { return pricing_.dollars(trace_, i); }
  /// Event `i` was admitted, costing `dollars`.
  void admit(std::size_t i, double dollars);
  /// The highest key's daily quota burn so far today (0 without quotas), and keys over it.
  double max_quota_burn() const { return quota_ ? quota_->max_burn : 0; }
  std::uint32_t keys_over_quota() const { return quota_ ? quota_->over : 0; }
  /// Folds the last minutes; call once, after the last event.
  SpendSummary finish();

 private:
  const trace::Trace& trace_;
  Pricing pricing_;
  KeyMinuteSpend minute_;
  std::optional<DailyQuotaBurn> quota_;
};

}  // namespace limitscope::tuner
