#include "core/probe/endpoint_probe.h"

namespace limitscope::probe {

EndpointProbe::EndpointProbe(std::vector<LimiterProfile> profiles, ProbeOptions options)
    : server_(profiles, options), cluster_(std::move(profiles), std::move(options)) {}

redis::Result<ProbeSnapshot> EndpointProbe::refresh(redis::Endpoint& endpoint) {
  return run(endpoint, false);
}

redis::Result<ProbeSnapshot> EndpointProbe::probe_all(redis::Endpoint& endpoint) {
  return run(endpoint, true);
}

void EndpointProbe::recycle(std::vector<KeyReading> readings) {
  if (on_cluster_) {
    cluster_.recycle(std::move(readings));
  } else {
    server_.recycle(std::move(readings));
  }
}

std::uint64_t EndpointProbe::passes(const std::string& node) const {
  const std::uint64_t on_cluster = cluster_.passes(node);
  return on_cluster > 0 ? on_cluster : server_.passes();
}

redis::Result<ProbeSnapshot> EndpointProbe::run(redis::Endpoint& endpoint, bool full_pass) {
  on_cluster_ = endpoint.cluster() != nullptr;
  if (redis::ClusterClient* cluster = endpoint.cluster()) {
    return full_pass ? cluster_.probe_all(*cluster) : cluster_.refresh(*cluster);
  }
  auto lease = endpoint.pool()->acquire();
  if (!lease) return lease.error();
  return full_pass ? server_.probe_all(**lease) : server_.refresh(**lease);
}

}  // namespace limitscope::probe
