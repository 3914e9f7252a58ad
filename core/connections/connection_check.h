#pragma once
// "Test connection": one bounded round of what opening the connection would do, with a
// one-line answer an operator can act on.
//   redis:      connect, AUTH, PING, the server's version, then a bounded SCAN counting the
//               keys that match a limiter profile (the built-in ones and the connection's file);
//               on a redis+cluster:// URL the slot map, then the same on every master (the
//               slowest PING, keys counted over all masters, each master's own SCAN budget);
//   metrics:    one scrape of the /metrics URL and the number of series it holds;
//   prometheus: the query `up` (how many targets, how many up).
// Blocking, with short timeouts: the GUI runs it on a worker thread.

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/common/clock.h"
#include "core/connections/secret_resolution.h"

namespace limitscope::connections {

struct CheckOptions {
  /// Connect and each command / request. The dialog's Test takes check_options(), not this.
  std::chrono::milliseconds timeout{3000};
  std::size_t scan_count = 1000;  ///< redis: SCAN COUNT
  std::size_t scan_calls = 10;    ///< redis: at most this many SCAN calls
};

struct CheckResult {
  bool ok = false;
  /// When not ok: io, timeout, closed, protocol, reply, auth (Redis error kinds), http
  /// (a status other than 200), parse (a body that is not what the endpoint returns),
  /// profiles (the profiles file), transport (HTTP connection failures).
  std::string error_kind;
  std::string message;  ///< one line: the figures when ok, else what failed and why
  /// Named figures for tests and tooltips: "ping_ms", "limiter_keys", "other_keys",
  /// "scan_complete" (1/0), "series", "targets", "targets_up", "redis_version"; a Redis
  /// Cluster adds "masters" and "slots_covered".
  std::vector<std::pair<std::string, std::string>> figures;

  /// The figure called `name`, or "".
  std::string figure(const std::string& name) const;
};

/// The options of the Test of a connection of `kind`: a Redis connection waits as long as the
/// shared Redis options say (redis::kDefaultTimeout, core/redis/client_options.h: what the CLI,
/// the gateway and the GUI's own Redis work wait for a connect and a command), never a timeout
/// of the check's own; a /metrics or Prometheus connection CheckOptions' default.
CheckOptions check_options(ConnectionKind kind);

/// Runs the check. @param clock measures the PING round trip and, on a cluster, paces the
/// cluster client's reconnects, slot-map reads and retries, which may wait on it (SteadyClock
/// outside tests)
CheckResult check_connection(const ResolvedConnection& target, const CheckOptions& options,
                             Clock& clock);

}  // namespace limitscope::connections
