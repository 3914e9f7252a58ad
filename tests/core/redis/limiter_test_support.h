#pragma once
// Shared by the redis limiter, config and bad-data tests: a connection to the test's own
// server and a rule config written through the real config API.

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/limiter/decision.h"
#include "core/redis/connection.h"
#include "core/redis/rule_config.h"
#include "support/limit_params_builders.h"
#include "support/redis_server.h"

namespace limitscope::redis::testing {

/// A connection with a command timeout long enough for pipelines of thousands of scripts.
using test::connect;

/// Stores `config` as rule `rule` (any version) and returns the stored version.
inline std::int64_t put(Connection& c, const KeySchema& schema, const std::string& rule,
                        const RuleConfig& config) {
  auto r = set_config(c, schema, rule, config, ChangeInfo{"test", "test setup", std::nullopt});
  if (!r) throw std::runtime_error("set_config: " + r.error().message);
  return r->version;
}

/// The command's reply, or a test failure.
inline Value must(Connection& c, const std::vector<std::string>& argv) {
  auto r = c.command(argv);
  if (!r) throw std::runtime_error(argv.front() + ": " + r.error().message);
  return std::move(r).value();
}

/// A decision's fields, for a failure message.
inline std::string show(const Decision& d) {
  std::ostringstream s;
  s.precision(17);
  s << "allowed=" << d.allowed << " remaining=" << d.remaining << " limit=" << d.limit
    << " retry_after=" << (d.retry_after ? std::to_string(d.retry_after->count()) : "none")
    << " reset_after=" << d.reset_after.count() << " reason=" << to_string(d.reason);
  return s.str();
}

/// Whether two decisions are the same, field for field (the equivalence tests' rule).
inline bool same(const Decision& a, const Decision& b) {
  return a.allowed == b.allowed && a.remaining == b.remaining && a.limit == b.limit &&
         a.retry_after == b.retry_after && a.reset_after == b.reset_after && a.reason == b.reason;
}

}  // namespace limitscope::redis::testing

namespace limitscope::redis {

// The helpers every Redis limiter test uses, named once for all of them.
using test::bucket;
using test::RedisServer;
using test::window;
using testing::connect;
using testing::must;
using testing::put;
using testing::same;
using testing::show;

/// A realistic server time, µs (the TIME a test passes to the scripts).
constexpr std::int64_t kEpochUs = 1'700'000'000'000'000;

}  // namespace limitscope::redis
