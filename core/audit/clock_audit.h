#pragma once
// Clock skew between gateways, Redis and the workstation ("our gateways disagree on time").
// Each remote clock is read once: the workstation notes its own wall clock when the request
// leaves and when the answer arrives, and takes the remote reading as made at the midpoint;
// half the round trip is the uncertainty. A gateway's clock comes from its
// limitscope_gateway_time_seconds gauge (sub-second) or, failing that, from the HTTP Date
// header (whole seconds, truncated: +0.5 s and +-0.5 s more uncertainty). Redis from TIME.
//
// Our limiter scripts read redis.call('TIME'): every decision uses the one server clock, so
// gateway skew changes nothing in them. Schemes that store the client's timestamp (hash
// `rl:<key>` with `ts` in ms, sorted sets of request times scored by the gateway) refill too
// much or too little, or count requests in the wrong window, by the skew: that is what a
// flagged gateway does to them.

#include <optional>
#include <string>
#include <vector>

#include "core/common/clock.h"
#include "core/common/expected.h"
#include "core/http/http_fetch.h"

namespace limitscope::redis {
class Connection;
struct ConnectOptions;
struct RedisUrl;
}  // namespace limitscope::redis

namespace limitscope::audit {

/// One reading of a remote clock, every time in epoch seconds.
struct ClockSample {
  double sent_s = 0;          ///< workstation wall clock when the request left
  double received_s = 0;      ///< workstation wall clock when the answer arrived
  double remote_s = 0;        ///< what the remote clock said
  double truncated_to_s = 0;  ///< 1 for the Date header (whole seconds, truncated), else 0
};

struct ClockOffset {
  double offset_s = 0;       ///< remote minus workstation (> 0: remote ahead)
  double uncertainty_s = 0;  ///< +- this much
};

/// The offset of one reading: remote (+ half its truncation) minus the midpoint.
ClockOffset offset_of(const ClockSample& s);

/// What one gateway's answer said about its clock.
struct GatewayClockReading {
  std::string gateway;               ///< its /metrics URL
  std::optional<ClockSample> gauge;  ///< limitscope_gateway_time_seconds
  std::optional<ClockSample> date;   ///< the Date header
  std::string error;                 ///< the fetch failed: why
};

/// GETs `url` (a gateway's /metrics) once and reads both clocks; a transport failure, a
/// non-200 status or neither clock present is `error`, never an exception.
GatewayClockReading read_gateway_clock(const http::HttpUrl& url, const http::FetchOptions& options,
                                       const Clock& workstation);
/// Reads Redis TIME on `c`. Errors: the command failed or the reply is not TIME's.
Expected<ClockSample> read_redis_clock(redis::Connection& c, const Clock& workstation);

/// What one Redis server's TIME said.
struct RedisClockReading {
  std::string node;  ///< "host:port"
  std::optional<ClockSample> sample;
  std::string error;  ///< this node could not be read: why
};

/// Reads TIME of the server of a redis:// URL, or of every master of a redis+cluster:// URL
/// (each decision runs on its key's master, with that master's clock; a failover or a slot
/// migration moves a key to another master's clock). Errors: the server, or the cluster's map,
/// cannot be read; a master that does not answer is a reading with `error` ("node host:port: why").
/// @param clock the workstation's wall clock, and the pacing of a cluster's retries
Expected<std::vector<RedisClockReading>> read_redis_clocks(const redis::RedisUrl& url,
                                                           const redis::ConnectOptions& connect,
                                                           Clock& clock);

struct GatewayClockFinding {
  std::string gateway;
  std::string source;  ///< "gauge" or "date" (what the offset is from)
  std::optional<ClockOffset> vs_workstation;
  std::optional<ClockOffset> date_vs_workstation;  ///< the Date header's view, when sent
  std::optional<double> vs_redis_s;                ///< gateway minus Redis
  double uncertainty_s = 0;                        ///< of vs_redis_s (both readings')
  bool skewed = false;
  std::string error;
};

struct RedisNodeFinding {
  std::string node;
  std::optional<ClockOffset> vs_workstation;
  std::optional<double> vs_reference_s;  ///< this node minus the reference Redis clock
  double uncertainty_s = 0;              ///< of vs_reference_s
  bool skewed = false;
  std::string error;
};

struct ClockAudit {
  double threshold_s = 0;
  /// The reference Redis clock gateways are judged against: the one server, or the cluster
  /// master with the median offset (one master off does not move it).
  std::optional<ClockOffset> redis_vs_workstation;
  std::string redis_reference;                ///< that node
  std::vector<RedisNodeFinding> redis_nodes;  ///< every node read (one for a single server)
  std::vector<GatewayClockFinding> gateways;
  std::size_t skewed = 0;  ///< gateways and Redis nodes
  std::size_t errors = 0;  ///< gateways and Redis nodes that could not be read
};

/// Compares every gateway with Redis (when read) and the workstation. A gateway is skewed
/// when |its offset| exceeds threshold_s plus the reading's uncertainty, against the reference
/// Redis clock when Redis was read (the clock our scripts use), else against the workstation.
/// A cluster master is skewed when it is that far from the reference.
ClockAudit audit_clocks(const std::vector<GatewayClockReading>& gateways,
                        const std::vector<RedisClockReading>& redis, double threshold_s);
/// The same with at most one Redis server.
ClockAudit audit_clocks(const std::vector<GatewayClockReading>& gateways,
                        const std::optional<ClockSample>& redis, double threshold_s);

}  // namespace limitscope::audit
