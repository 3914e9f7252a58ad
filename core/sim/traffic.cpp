#include "core/sim/traffic.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace limitscope {

std::string_view to_string(ClientRole r) {
  switch (r) {
    case ClientRole::steady:
      return "steady";
    case ClientRole::bursty:
      return "bursty";
    case ClientRole::runaway:
      return "runaway";
    case ClientRole::diurnal:
      return "diurnal";
    case ClientRole::misconfigured:
      return "misconfigured";
  }
  return "unknown";
}

std::string_view to_string(RetryBehaviour b) {
  switch (b) {
    case RetryBehaviour::give_up:
      return "give-up";
    case RetryBehaviour::honour_retry_after:
      return "honour-retry-after";
    case RetryBehaviour::ignore_retry_after:
      return "ignore-retry-after";
  }
  return "unknown";
}

double TrafficShape::rate_at(Nanos t) const {
  if (t < start || (stop && t >= *stop)) return 0;
  for (const Burst& b : bursts) {
    if (t >= b.start && t < b.start + b.length) return b.rate_per_s;
  }
  if (day_length.count() <= 0) return rate_per_s;
  const double phase =
      static_cast<double>(t.count() % day_length.count()) / static_cast<double>(day_length.count());
  return rate_per_s * (1.0 - diurnal_amplitude * std::cos(2.0 * std::numbers::pi * phase));
}

double TrafficShape::max_rate() const {
  double m = rate_per_s * (day_length.count() > 0 ? 1.0 + diurnal_amplitude : 1.0);
  for (const Burst& b : bursts) m = std::max(m, b.rate_per_s);
  return m;
}

ModelShare default_model_share(std::string_view model, double weight) {
  struct Row {
    std::string_view model;
    std::int64_t lo, hi;
  };
  // Long-context chat for the frontier models, shorter calls for the cheap fast ones.
  static constexpr Row kRows[] = {
      {"gpt-4.1", 600, 3000},
      {"claude-sonnet-4.5", 800, 4000},
      {"gemini-2.5-flash", 300, 2000},
      {"deepseek-v3.2", 400, 2500},
  };
  for (const Row& r : kRows) {
    if (r.model == model) return ModelShare{std::string(model), weight, r.lo, r.hi};
  }
  return ModelShare{std::string(model), weight, 300, 2000};
}

Status validate(const ClientSpec& c) {
  const std::string who = "client \"" + c.api_key + "\": ";
  if (c.api_key.empty()) return make_error("client with an empty api key");
  if (c.models.empty()) return make_error(who + "no models");
  double total = 0;
  for (const ModelShare& m : c.models) {
    if (m.model.empty()) return make_error(who + "empty model name");
    if (!std::isfinite(m.weight) || m.weight < 0)
      return make_error(who + "bad weight for " + m.model);
    if (m.tokens_min < 0 || m.tokens_max < m.tokens_min)
      return make_error(who + "bad token range for " + m.model);
    total += m.weight;
  }
  if (!(total > 0)) return make_error(who + "model weights sum to 0");
  const TrafficShape& t = c.traffic;
  if (!std::isfinite(t.rate_per_s) || t.rate_per_s < 0)
    return make_error(who + "rate must be >= 0");
  if (!(t.diurnal_amplitude >= 0 && t.diurnal_amplitude <= 1)) {
    return make_error(who + "diurnal amplitude must be in [0, 1]");
  }
  for (const Burst& b : t.bursts) {
    if (!std::isfinite(b.rate_per_s) || b.rate_per_s < 0 || b.length.count() < 0) {
      return make_error(who + "bad burst");
    }
  }
  if (c.retry.max_retries < 0) return make_error(who + "max_retries must be >= 0");
  return {};
}

}  // namespace limitscope
