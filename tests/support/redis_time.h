#pragma once
// The time of a test's Redis server, read the one way the tests that write its clock into
// limiter state read it.

#include <cstdint>
#include <stdexcept>

#include "core/redis/connection.h"

namespace limitscope::test {

/// The server's TIME, in µs since the epoch (throws with the reason when it does not answer).
inline std::int64_t server_time_us(redis::Connection& c) {
  auto t = c.command({"TIME"});
  if (!t) throw std::runtime_error("TIME: " + t.error().message);
  const auto us = t->as_time_us();
  if (!us) throw std::runtime_error("TIME: not a time reply");
  return *us;
}

}  // namespace limitscope::test
