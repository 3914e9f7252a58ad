#pragma once
// Counts what a load run saw, thread-safe, and renders the JSON document of
// `limitscope-cli loadgen --json` (keys documented in docs/cli.md, "loadgen").

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "core/common/clock.h"
#include "core/gateway/load_plan.h"

namespace limitscope::gateway {

/// How one attempt ended.
struct AttemptResult {
  std::optional<int> status;              // nullopt: no HTTP answer (connection failed, timed out)
  Nanos latency{0};                       // answer time - planned time (includes any send lag)
  Nanos send_lag{0};                      // actual send time - planned time
  std::optional<RetryVerdict> after_429;  // what the plan did with a 429
};

class LoadReport {
 public:
  explicit LoadReport(const LoadPlan& plan) : plan_(plan) {}
  void record(const PlannedRequest& r, const AttemptResult& a);

  /// The JSON document (compact unless pretty).
  /// @param header members written first (target, scenario, duration_s, ...)
  std::string json(const std::map<std::string, std::string>& header_json, bool pretty) const;

  std::uint64_t sent() const;
  std::uint64_t status_count(int status) const;

 private:
  struct Counts {
    std::uint64_t sent = 0, ok = 0, rate_limited = 0, other = 0, errors = 0;
  };
  static void add(Counts& c, const AttemptResult& a);

  const LoadPlan& plan_;
  mutable std::mutex mu_;
  std::uint64_t sent_ = 0;
  std::uint64_t first_tries_ = 0;
  std::uint64_t retries_ = 0;
  std::uint64_t retries_ok_ = 0;
  std::uint64_t gave_up_ = 0;
  std::uint64_t past_end_ = 0;
  std::uint64_t transport_errors_ = 0;
  std::map<int, std::uint64_t> status_;
  std::vector<std::int64_t> latency_ns_;
  std::int64_t max_send_lag_ns_ = 0;
  std::map<std::string, Counts> by_key_;
  std::map<std::string, std::map<std::string, std::uint64_t>> ok_by_key_model_;
  std::map<std::string, Counts> by_tier_;
  std::map<std::string, Counts> by_model_;
};

}  // namespace limitscope::gateway
