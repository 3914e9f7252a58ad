#include "core/audit/replica_sources.h"

#include "core/audit/audit_names.h"
#include "core/probe/metrics_scrape.h"
#include "core/probe/prometheus_client.h"

namespace limitscope::audit {
namespace {

// One scrape per URL; the first failure is the error.
Expected<std::vector<probe::Scrape>> scrape_all(const ReplicaSources& sources, const Clock& clock,
                                                KeyNames& names) {
  std::vector<probe::Scrape> out;
  for (const auto& url : sources.metrics) {
    auto s = probe::scrape_metrics(url, sources.fetch, clock.wall().count() / 1'000'000);
    if (!s) return make_error(s.error());
    add_key_info(names, *s);
    out.push_back(std::move(s).value());
  }
  return out;
}

}  // namespace

Expected<ReplicaReadings> read_replicas(const ReplicaSources& sources, const Policy& policy,
                                        Clock& clock, CancelToken& cancel) {
  if (sources.metrics.empty() == !sources.prometheus) {
    return make_error("give either the replicas' /metrics or a Prometheus");
  }
  ReplicaReadings out;
  if (sources.prometheus) {
    probe::PrometheusClient client(*sources.prometheus, sources.fetch);
    auto w = windows_from_prometheus(client,
                                     static_cast<double>(sources.prometheus_window.count()) / 1e9);
    if (!w) return make_error(w.error());
    out.windows = std::move(*w);
    return out;
  }
  auto first = scrape_all(sources, clock, out.key_info);
  if (!first) return make_error(first.error());
  if (!sources.interval) {
    for (std::size_t i = 0; i < sources.metrics.size(); ++i) {
      auto w = window_since_start((*first)[i], sources.metrics[i].to_string());
      if (!w) return make_error(w.error());
      out.windows.push_back(std::move(w).value());
    }
    return out;
  }
  if (!clock.wait_until(clock.now() + *sources.interval, cancel)) return make_error("cancelled");
  auto second = scrape_all(sources, clock, out.key_info);
  if (!second) return make_error(second.error());
  for (std::size_t i = 0; i < sources.metrics.size(); ++i) {
    auto w = window_between((*first)[i], (*second)[i], policy, sources.metrics[i].to_string());
    if (!w) return make_error(w.error());
    out.windows.push_back(std::move(w).value());
  }
  return out;
}

}  // namespace limitscope::audit
