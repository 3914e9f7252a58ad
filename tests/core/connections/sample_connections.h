#pragma once
// Saved connections more than one connections test starts from.

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

}  // namespace limitscope::connections::test
