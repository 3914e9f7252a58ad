#pragma once
// Saved connections more than one connections test starts from.

#include <string>
#include <utility>

#include "core/connections/saved_connection.h"

namespace limitscope::connections::test {

/// "gw": a gateway's /metrics (http://gw:8080/metrics) scraped with basic auth as user
/// "scraper", the password in $GW_PW.
inline SavedConnection gateway_metrics_basic() {
  SavedConnection m;
  m.name = "gw";
  m.kind = ConnectionKind::metrics;
  m.url = "http://gw:8080/metrics";
  m.auth = HttpAuth::basic;
  m.user = "scraper";
  m.secret = SecretStorage::env;
  m.secret_env = "GW_PW";
  return m;
}

/// `name`: the Redis server at `url` as ACL user "ops", the password in $PROD_REDIS_PW.
inline SavedConnection redis_ops_env(std::string name, std::string url) {
  SavedConnection r;
  r.name = std::move(name);
  r.kind = ConnectionKind::redis;
  r.url = std::move(url);
  r.user = "ops";
  r.secret = SecretStorage::env;
  r.secret_env = "PROD_REDIS_PW";
  return r;
}

/// "prom": the Prometheus server at `url`, with a bearer token (where it is kept: the caller's).
inline SavedConnection prometheus_bearer(std::string url) {
  SavedConnection p;
  p.name = "prom";
  p.kind = ConnectionKind::prometheus;
  p.url = std::move(url);
  p.auth = HttpAuth::bearer;
  return p;
}

}  // namespace limitscope::connections::test
