#include "core/audit/replica_audit.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <unordered_map>

#include "core/common/sha256.h"
#include "core/metrics/metric_names.h"

namespace limitscope::audit {
namespace {

namespace names = metrics::names;

using Sums = std::map<KeyModel, double>;

// Sums of one family per (api_key_hash, model); nullopt when the scrape lacks the family.
std::optional<Sums> per_key(const probe::Scrape& s, std::string_view family) {
  std::optional<Sums> out;
  for (const auto& sample : s.samples) {
    if (sample.labels.metric_name() != family) continue;
    if (!out) out.emplace();
    (*out)[{std::string(sample.labels.get(names::kApiKeyHash)),
            std::string(sample.labels.get(names::kModel))}] += sample.value;
  }
  return out;
}

std::optional<double> gauge(const probe::Scrape& s, std::string_view name) {
  for (const auto& sample : s.samples) {
    if (sample.labels.metric_name() == name) return sample.value;
  }
  return std::nullopt;
}

double degraded(const probe::Scrape& s) {
  double sum = 0;
  for (const auto& sample : s.samples) {
    if (sample.labels.metric_name() == names::kRequests &&
        sample.labels.get(names::kDecision) == names::kDecisionDegraded) {
      sum += sample.value;
    }
  }
  return sum;
}

// api_key_hash -> tier index, for the keys the policy lists.
std::unordered_map<std::string, std::size_t> tiers_by_hash(const Policy& policy) {
  std::unordered_map<std::string, std::size_t> out;
  for (const auto& [key, tier] : policy.keys) out.emplace(api_key_hash(key), tier);
  return out;
}

const TierPolicy* tier_of(const std::unordered_map<std::string, std::size_t>& by_hash,
                          const Policy& policy, const std::string& hash) {
  if (auto it = by_hash.find(hash); it != by_hash.end()) return &policy.tiers[it->second];
  if (hash == names::kOverflowLabelValue || !policy.default_tier) return nullptr;
  return &policy.tiers[*policy.default_tier];
}

// after - before per series; a series that went down restarted from zero (`reset` is set).
Sums increase(const Sums& before, const Sums& after, bool& reset) {
  Sums out;
  for (const auto& [k, v] : after) {
    const auto it = before.find(k);
    const double prev = it == before.end() ? 0 : it->second;
    if (v < prev) reset = true;
    out[k] = v < prev ? v : v - prev;
  }
  return out;
}

}  // namespace

Expected<ReplicaWindow> window_between(const probe::Scrape& before, const probe::Scrape& after,
                                       const Policy& policy, std::string replica) {
  if (after.at_ms <= before.at_ms) {
    return make_error(replica + ": the second scrape is not later than the first");
  }
  ReplicaWindow w;
  w.replica = std::move(replica);
  w.window_s = static_cast<double>(after.at_ms - before.at_ms) / 1000.0;
  auto cost_after = per_key(after, names::kKeyAdmittedCost);
  if (cost_after) {
    w.admitted_cost = increase(per_key(before, names::kKeyAdmittedCost).value_or(Sums{}),
                               *cost_after, w.counter_reset);
  } else if (auto burn_after = per_key(after, names::kGatewayQuotaBurnRatio)) {
    // Quota burn restarts at each UTC day: a ratio that went down counts from zero.
    bool day_reset = false;
    const Sums burn = increase(per_key(before, names::kGatewayQuotaBurnRatio).value_or(Sums{}),
                               *burn_after, day_reset);
    const auto by_hash = tiers_by_hash(policy);
    for (const auto& [k, ratio] : burn) {
      const TierPolicy* tier = tier_of(by_hash, policy, k.first);
      if (tier != nullptr && tier->daily_quota) w.admitted_cost[k] = ratio * *tier->daily_quota;
    }
  } else {
    return make_error(w.replica + ": neither " + std::string(names::kKeyAdmittedCost) + " nor " +
                      std::string(names::kGatewayQuotaBurnRatio) + " in its /metrics");
  }
  const double d = degraded(after) - degraded(before);
  w.degraded_decisions = d < 0 ? degraded(after) : d;
  return w;
}

Expected<ReplicaWindow> window_since_start(const probe::Scrape& scrape, std::string replica) {
  const auto now = gauge(scrape, names::kGatewayTime);
  const auto start = gauge(scrape, names::kGatewayStartTime);
  if (!now || !start) {
    return make_error(replica + ": no " + std::string(names::kGatewayTime) + " and " +
                      std::string(names::kGatewayStartTime) +
                      " (not limitscope-gateway, or an older one): scrape twice instead");
  }
  auto cost = per_key(scrape, names::kKeyAdmittedCost);
  if (!cost) {
    return make_error(replica + ": no " + std::string(names::kKeyAdmittedCost) +
                      " in its /metrics");
  }
  ReplicaWindow w;
  w.replica = std::move(replica);
  w.window_s = std::max(0.0, *now - *start);
  w.admitted_cost = std::move(*cost);
  w.degraded_decisions = degraded(scrape);
  return w;
}

double admissible_cost(const LimitParams& p, double window_s) {
  const double t = std::max(0.0, window_s);
  switch (p.algorithm) {
    case Algorithm::token_bucket:
    case Algorithm::gcra:
    case Algorithm::leaky_bucket:
      return p.capacity + p.refill.per_second() * t;
    case Algorithm::sliding_log:
      // Any interval of length t lies within floor(t/W) + 1 windows of length W.
      return p.limit * (std::floor(t * 1e9 / static_cast<double>(p.window.count())) + 1);
    case Algorithm::sliding_counter:
    case Algorithm::fixed_window:
      // Fixed windows admit 2L across one boundary; the counter's approximation stays within.
      return p.limit * (std::floor(t * 1e9 / static_cast<double>(p.window.count())) + 2);
  }
  return 0;
}

namespace {

double sustained_per_s(const LimitParams& p) {
  if (is_window_algorithm(p.algorithm)) {
    return p.limit * 1e9 / static_cast<double>(p.window.count());
  }
  return p.refill.per_second();
}

std::string cause(const std::vector<KeyFinding>& keys, std::size_t replicas, double degraded) {
  // The worst leak speaks for the rest.
  const KeyFinding* worst = nullptr;
  for (const auto& k : keys) {
    if (k.leak && (worst == nullptr || k.ratio > worst->ratio)) worst = &k;
  }
  if (worst == nullptr) return {};
  const int n = worst->replicas_admitting;
  if (n >= 2 && worst->max_replica_ratio <= 1.0 + 0.25 && worst->ratio <= n * 1.25) {
    return "limits counted per replica: " + std::to_string(n) + " of " + std::to_string(replicas) +
           " replicas each admitted up to the full limit on their own, and N replicas with "
           "in-process limiters (or one Redis each) admit about N x the limit; share one Redis";
  }
  if (degraded > 0) {
    return "fail-open: decisions were made without the store (decision=\"degraded\"), so "
           "nothing counted them against the limit";
  }
  return "a single replica admitted more than the policy allows: its policy differs from "
         "--policy (another file, or a reload), or its limiter is not the one configured";
}

}  // namespace

ReplicaAudit audit_replicas(const std::vector<ReplicaWindow>& windows, const Policy& policy,
                            const ReplicaAuditOptions& options) {
  ReplicaAudit out;
  out.replicas = windows.size();
  out.tolerance = options.tolerance;
  double degraded_total = 0;
  struct Sum {
    double total = 0;
    double max_one = 0;
    int replicas = 0;
  };
  std::map<KeyModel, Sum> sums;
  for (const auto& w : windows) {
    out.window_s = std::max(out.window_s, w.window_s);
    degraded_total += w.degraded_decisions;
    if (w.counter_reset)
      out.notes.push_back(w.replica + ": a counter went down (restart?) in the window");
    for (const auto& [k, cost] : w.admitted_cost) {
      if (cost <= 0) continue;
      Sum& s = sums[k];
      s.total += cost;
      s.max_one = std::max(s.max_one, cost);
      ++s.replicas;
    }
  }
  if (degraded_total > 0) {
    out.notes.push_back(std::to_string(static_cast<long long>(degraded_total)) +
                        " degraded (fail-open/closed) decisions in the window");
  }
  const auto by_hash = tiers_by_hash(policy);
  std::unordered_map<std::string, std::string> names;  // api_key_hash -> the key's name
  for (const auto& [key, name] : policy.key_names) names.emplace(api_key_hash(key), name);
  std::map<std::string, TierFinding> tiers;
  for (const auto& [k, s] : sums) {
    const TierPolicy* tier = tier_of(by_hash, policy, k.first);
    if (tier == nullptr) {
      out.notes.push_back("key " + k.first + " (" + k.second +
                          "): not in --policy and no default tier; not audited");
      continue;
    }
    KeyFinding f;
    f.api_key_hash = k.first;
    if (auto n = names.find(k.first); n != names.end()) {
      f.name = n->second;
    } else if (const std::string* other =
                   options.names != nullptr ? options.names->find(k.first) : nullptr) {
      f.name = *other;
    }
    f.model = k.second;
    f.tier = tier->name;
    f.limit = tier->requests.describe();
    f.configured_per_s = sustained_per_s(tier->requests);
    f.bound_cost = admissible_cost(tier->requests, out.window_s);
    f.admitted_cost = s.total;
    f.admitted_per_s = out.window_s > 0 ? s.total / out.window_s : 0;
    f.ratio = f.bound_cost > 0 ? s.total / f.bound_cost : 0;
    f.max_replica_ratio = f.bound_cost > 0 ? s.max_one / f.bound_cost : 0;
    f.replicas_admitting = s.replicas;
    f.leak = s.total > f.bound_cost * (1 + options.tolerance);
    TierFinding& t = tiers[f.tier];
    t.tier = f.tier;
    t.limit = f.limit;
    ++t.keys;
    t.admitted_per_s += f.admitted_per_s;
    t.max_ratio = std::max(t.max_ratio, f.ratio);
    if (f.leak) {
      ++t.leaks;
      ++out.leaks;
    }
    out.keys.push_back(std::move(f));
  }
  std::stable_sort(out.keys.begin(), out.keys.end(),
                   [](const KeyFinding& a, const KeyFinding& b) { return a.ratio > b.ratio; });
  for (auto& [name, t] : tiers) out.tiers.push_back(std::move(t));
  out.likely_cause = cause(out.keys, out.replicas, degraded_total);
  return out;
}

}  // namespace limitscope::audit
