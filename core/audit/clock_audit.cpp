#include "core/audit/clock_audit.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "core/common/http_date.h"
#include "core/metrics/metric_names.h"
#include "core/probe/metrics_scrape.h"
#include "core/redis/connection.h"
#include "core/redis/endpoint.h"
#include "core/redis/redis_url.h"

namespace limitscope::audit {
namespace {

double seconds(Nanos t) {
  return static_cast<double>(t.count()) / 1e9;
}

// The limitscope_gateway_time_seconds sample of an exposition, if it parses and has one.
std::optional<double> time_gauge(const std::string& body, const std::string& content_type) {
  std::optional<double> out;
  auto parsed = probe::parse_scrape(body, content_type, 0, "/metrics");
  if (!parsed) return out;
  for (const auto& s : parsed->samples) {
    if (s.labels.metric_name() == metrics::names::kGatewayTime && std::isfinite(s.value)) {
      out = s.value;
    }
  }
  return out;
}

}  // namespace

ClockOffset offset_of(const ClockSample& s) {
  const double mid = (s.sent_s + s.received_s) / 2;
  const double half_rtt = std::max(0.0, s.received_s - s.sent_s) / 2;
  return {s.remote_s + s.truncated_to_s / 2 - mid, half_rtt + s.truncated_to_s / 2};
}

GatewayClockReading read_gateway_clock(const http::HttpUrl& url, const http::FetchOptions& options,
                                       const Clock& workstation) {
  GatewayClockReading out;
  out.gateway = url.to_string();
  const double sent = seconds(workstation.wall());
  auto r = http::http_get(url, options);
  const double received = seconds(workstation.wall());
  if (!r) {
    out.error = r.error();
    return out;
  }
  if (r->status != 200) {
    out.error = out.gateway + ": HTTP " + std::to_string(r->status);
    return out;
  }
  if (auto t = time_gauge(r->body, r->content_type)) out.gauge = ClockSample{sent, received, *t, 0};
  if (!r->date.empty()) {
    if (auto d = parse_http_date(r->date)) {
      out.date = ClockSample{sent, received, seconds(*d), 1};
    } else {
      out.error = out.gateway + ": Date header " + d.error();
    }
  }
  if (!out.gauge && !out.date && out.error.empty()) {
    out.error = out.gateway + ": neither " + std::string(metrics::names::kGatewayTime) +
                " nor a Date header: its clock cannot be read";
  }
  return out;
}

Expected<ClockSample> read_redis_clock(redis::Connection& c, const Clock& workstation) {
  const double sent = seconds(workstation.wall());
  auto v = c.command({"TIME"});
  const double received = seconds(workstation.wall());
  if (!v) return make_error("TIME: " + v.error().message);
  auto us = v->as_time_us();
  if (!us) return make_error("TIME: unexpected reply " + v->describe());
  return ClockSample{sent, received, static_cast<double>(*us) / 1e6, 0};
}

Expected<std::vector<RedisClockReading>> read_redis_clocks(const redis::RedisUrl& url,
                                                           const redis::ConnectOptions& connect,
                                                           Clock& clock) {
  redis::Endpoint endpoint(url, redis::EndpointOptions::with(connect), clock);
  std::map<std::string, ClockSample> samples;
  auto each = endpoint.on_each_master(
      [&](redis::Connection& c, const std::string& node) -> redis::Result<void> {
        auto s = read_redis_clock(c, clock);
        if (!s) return redis::make_redis_error(redis::ErrorKind::reply, s.error());
        samples.emplace(node, *s);
        return {};
      });
  if (!each) return make_error(each.error().message);
  // One server that cannot be read is the audit's error (docs/audits.md: exit 2), as the
  // cluster's map is; only a cluster's master is a reading with `error`.
  if (!url.cluster() && !each->front().result.ok())
    return make_error(each->front().result.error().message);
  std::vector<RedisClockReading> out;
  for (const redis::NodeResult& n : *each) {
    RedisClockReading r;
    r.node = n.node;
    if (n.result.ok()) {
      r.sample = samples.at(n.node);
    } else {
      r.error = n.result.error().message;
    }
    out.push_back(std::move(r));
  }
  return out;
}

ClockAudit audit_clocks(const std::vector<GatewayClockReading>& gateways,
                        const std::optional<ClockSample>& redis, double threshold_s) {
  std::vector<RedisClockReading> nodes;
  if (redis) nodes.push_back({"redis", *redis, {}});
  return audit_clocks(gateways, nodes, threshold_s);
}

ClockAudit audit_clocks(const std::vector<GatewayClockReading>& gateways,
                        const std::vector<RedisClockReading>& redis, double threshold_s) {
  ClockAudit out;
  out.threshold_s = threshold_s;
  // The reference: the node with the median offset (the lower middle of an even count).
  std::vector<const RedisClockReading*> read;
  for (const auto& r : redis) {
    if (r.sample) read.push_back(&r);
  }
  if (!read.empty()) {
    std::sort(read.begin(), read.end(), [](const RedisClockReading* a, const RedisClockReading* b) {
      return offset_of(*a->sample).offset_s < offset_of(*b->sample).offset_s;
    });
    const RedisClockReading* ref = read[(read.size() - 1) / 2];
    out.redis_vs_workstation = offset_of(*ref->sample);
    out.redis_reference = ref->node;
  }
  for (const auto& r : redis) {
    RedisNodeFinding f;
    f.node = r.node;
    f.error = r.error;
    if (!r.sample) {
      ++out.errors;
      out.redis_nodes.push_back(std::move(f));
      continue;
    }
    f.vs_workstation = offset_of(*r.sample);
    if (r.node != out.redis_reference) {
      f.vs_reference_s = f.vs_workstation->offset_s - out.redis_vs_workstation->offset_s;
      f.uncertainty_s = f.vs_workstation->uncertainty_s + out.redis_vs_workstation->uncertainty_s;
      f.skewed = std::abs(*f.vs_reference_s) > threshold_s + f.uncertainty_s;
    } else {
      f.vs_reference_s = 0;
    }
    if (f.skewed) ++out.skewed;
    out.redis_nodes.push_back(std::move(f));
  }
  for (const auto& g : gateways) {
    GatewayClockFinding f;
    f.gateway = g.gateway;
    f.error = g.error;
    if (g.date) f.date_vs_workstation = offset_of(*g.date);
    const std::optional<ClockSample>& best = g.gauge ? g.gauge : g.date;
    if (!best) {
      ++out.errors;
      out.gateways.push_back(std::move(f));
      continue;
    }
    f.source = g.gauge ? "gauge" : "date";
    f.vs_workstation = offset_of(*best);
    double skew = f.vs_workstation->offset_s;
    f.uncertainty_s = f.vs_workstation->uncertainty_s;
    if (out.redis_vs_workstation) {
      f.vs_redis_s = f.vs_workstation->offset_s - out.redis_vs_workstation->offset_s;
      f.uncertainty_s += out.redis_vs_workstation->uncertainty_s;
      skew = *f.vs_redis_s;
    }
    f.skewed = std::abs(skew) > threshold_s + f.uncertainty_s;
    if (f.skewed) ++out.skewed;
    if (!f.error.empty()) ++out.errors;
    out.gateways.push_back(std::move(f));
  }
  return out;
}

}  // namespace limitscope::audit
