#pragma once
// Durations rounded up to whole units, as rate-limit headers state them: what the gateway sends
// (Retry-After, retry-after-ms, the reset headers) and what the dashboard shows beside a key's
// recent decisions. Here, below both, so the view model does not include the gateway.

#include <cstdint>

#include "core/common/clock.h"

namespace limitscope {

/// Whole seconds, rounded up; 0 for d <= 0.
std::int64_t whole_seconds_up(Nanos d);

/// Milliseconds, rounded up; 0 for d <= 0.
std::int64_t whole_millis_up(Nanos d);

/// The Retry-After a refusal with this wait carries: whole seconds, rounded up (RFC 9110
/// §10.2.3), and at least 1.
std::int64_t retry_after_seconds(Nanos wait);

}  // namespace limitscope
