#pragma once
// Opens the live sources the operator named (`--redis`, `--metrics`, `--prometheus`, any
// combination): one source alone, or a CompositeLiveSource over a shared LiveSeries when
// there are several. Every input is checked before anything connects; a bad URL, profiles
// file or rule file gives an error naming it.

#include <memory>
#include <string>

#include "core/common/expected.h"
#include "core/limiter/clock.h"
#include "core/sources/live_source.h"

namespace limitscope {

struct LiveSpec {
  std::string redis_url;       ///< redis://[user:password@]host:port/db, a Redis Cluster's
                               ///< redis+cluster://host:port,host:port, or empty
  std::string profiles_file;   ///< with redis_url: profiles tried before the built-in ones
  std::string metrics_url;     ///< a gateway's /metrics, or empty
  std::string prometheus_url;  ///< a Prometheus server, or empty
  /// Prometheus auth (never shown): a bearer token, or a user and password for basic auth.
  std::string prometheus_bearer_token;
  std::string prometheus_user;
  std::string prometheus_password;
  std::string rules_file;      ///< alert rules instead of the default and live rules, or empty

  bool empty() const { return redis_url.empty() && metrics_url.empty() && prometheus_url.empty(); }
};

/// @param clock wall time and pacing for every part (must outlive the source)
/// @return the source (not yet refreshed), or an error naming the bad input
Expected<std::unique_ptr<LiveSource>> open_live_source(const LiveSpec& spec, const Clock& clock);

}  // namespace limitscope
