#pragma once
// What opening a saved connection shows: the live source spec of a resolved connection. A
// Redis connection opens the dashboard's view of its limiter keys (with its profiles and its
// SCAN MATCH, which the key browser shares); a /metrics or Prometheus connection is scraped at
// its interval with the credentials resolution filled in.

#include "core/connections/secret_resolution.h"
#include "core/sources/live_source_factory.h"

namespace limitscope::connections {

/// The spec of `resolved` (resolve_connection()'s result), one source of its kind.
LiveSpec live_spec_of(const ResolvedConnection& resolved);

}  // namespace limitscope::connections
