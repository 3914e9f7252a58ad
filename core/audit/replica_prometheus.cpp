// The Prometheus side of the replica audit: the same windows, read as increase() per instance.

#include <cmath>
#include <map>

#include "core/audit/replica_audit.h"
#include "core/metrics/metric_names.h"

namespace limitscope::audit {

Expected<std::vector<ReplicaWindow>> windows_from_prometheus(const probe::PrometheusClient& client,
                                                             double window_s) {
  namespace names = metrics::names;
  const std::string range =
      "[" + std::to_string(static_cast<long long>(std::ceil(window_s))) + "s]";
  auto cost = client.query("sum by (instance, api_key_hash, model) (increase(" +
                           std::string(names::kKeyAdmittedCost) + range + "))");
  if (!cost) return make_error(cost.error());
  auto degraded = client.query("sum by (instance) (increase(" + std::string(names::kRequests) +
                               "{decision=\"degraded\"}" + range + "))");
  if (!degraded) return make_error(degraded.error());
  std::map<std::string, ReplicaWindow> by_instance;
  for (const auto& s : cost->series) {
    if (s.samples.empty() || !std::isfinite(s.samples.back().value)) continue;
    const std::string instance(s.labels.get("instance"));
    ReplicaWindow& w = by_instance[instance];
    w.replica = instance;
    w.window_s = window_s;
    w.admitted_cost[{std::string(s.labels.get(names::kApiKeyHash)),
                     std::string(s.labels.get(names::kModel))}] += s.samples.back().value;
  }
  for (const auto& s : degraded->series) {
    auto it = by_instance.find(std::string(s.labels.get("instance")));
    if (it != by_instance.end() && !s.samples.empty())
      it->second.degraded_decisions = s.samples.back().value;
  }
  if (by_instance.empty()) {
    return make_error(client.base_url() + ": no instance exports " +
                      std::string(names::kKeyAdmittedCost) + " over the last " + range);
  }
  std::vector<ReplicaWindow> out;
  for (auto& [name, w] : by_instance) out.push_back(std::move(w));
  return out;
}

}  // namespace limitscope::audit
