#include "core/connections/connection_live_spec.h"

namespace limitscope::connections {

LiveSpec live_spec_of(const ResolvedConnection& resolved) {
  const SavedConnection& c = resolved.saved;
  LiveSpec spec;
  switch (c.kind) {
    case ConnectionKind::redis:
      spec.redis_url = resolved.redis_url_text;
      spec.profiles_file = c.profiles;
      spec.redis_scan_match = c.scan_match;
      break;
    case ConnectionKind::metrics:
      spec.metrics_url = c.url;
      spec.metrics_auth = http::HttpAuth::of(resolved.fetch);
      spec.metrics_interval = c.scrape_interval;
      break;
    case ConnectionKind::prometheus:
      spec.prometheus_url = c.url;
      spec.prometheus_auth = http::HttpAuth::of(resolved.fetch);
      spec.prometheus_interval = c.scrape_interval;
      break;
  }
  return spec;
}

}  // namespace limitscope::connections
