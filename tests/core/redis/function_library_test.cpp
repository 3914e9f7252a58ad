// Verifies the limiter's Redis 7 function library on a real redis-server: decisions run with
// FCALL (the library loaded once, by the first call), resume after FUNCTION FLUSH and on a
// server that never had the library, fall back to EVALSHA where Functions are missing (FCALL
// renamed away as on Redis 6, an ACL user without FCALL or without FUNCTION LOAD) and decide the
// same there, and the parsed config the library keeps between calls gives way to any change of
// the config hash, even one that keeps the version.
#include <gtest/gtest.h>

#include <string>

#include "core/redis/limiter_scripts.h"
#include "core/redis/redis_limiter.h"
#include "limiter_test_support.h"
#include "support/limit_params_builders.h"

namespace limitscope::redis {
namespace {

using namespace std::chrono_literals;

LimitParams bucket(double capacity, double amount, Nanos period) {
  return test::bucket(Algorithm::token_bucket, capacity, amount, period);
}

// How many times the server ran `command` (INFO commandstats).
std::int64_t calls_of(Connection& c, const std::string& command) {
  const std::string info = testing::must(c, {"INFO", "commandstats"}).str;
  const std::string tag = "cmdstat_" + command + ":calls=";
  const auto at = info.find(tag);
  if (at == std::string::npos) return 0;
  return std::stoll(info.substr(at + tag.size()));
}

bool library_loaded(Connection& c) {
  const Value list = testing::must(c, {"FUNCTION", "LIST", "LIBRARYNAME", function_library().name});
  return list.is_array() && !list.elements.empty();
}

// Three decisions of capacity 2 at one instant: admit, admit, refuse.
void expect_three_decisions(Connection& c, const std::string& rule) {
  const RedisLimiter limiter;
  DecideOptions o;
  o.now_us = kEpochUs;
  for (const bool want : {true, true, false}) {
    auto d = limiter.decide(c, rule, "k", 1, o);
    ASSERT_TRUE(d.ok()) << d.error().message;
    EXPECT_EQ(d->decision.allowed, want);
  }
}

TEST(FunctionLibrary, DecisionsUseFcallAndResumeAfterAFlush) {
  auto server = RedisServer::start();
  Connection c = testing::connect(*server);
  EXPECT_FALSE(library_loaded(c));
  testing::put(c, KeySchema{}, "r",
               single_limit(bucket(2, 1, 1h)));  // config_set: the library's first call
  expect_three_decisions(c, "r");
  EXPECT_EQ(c.script_mode(), ScriptMode::functions);
  EXPECT_TRUE(library_loaded(c));
  EXPECT_EQ(calls_of(c, "function|load"), 1);
  EXPECT_EQ(calls_of(c, "evalsha"), 0);
  EXPECT_GE(calls_of(c, "fcall"), 3);

  // A flushed server (or a replica promoted without the library): the next call loads it.
  testing::must(c, {"FUNCTION", "FLUSH"});
  testing::must(c, {"DEL", KeySchema{}.state_key("r", "k")});
  expect_three_decisions(c, "r");
  EXPECT_TRUE(library_loaded(c));
  EXPECT_EQ(calls_of(c, "function|load"), 2);

  // The same in a pipelined batch: every call the server did not run is sent again, once.
  testing::must(c, {"FUNCTION", "FLUSH"});
  const RedisLimiter limiter;
  std::vector<DecideRequest> requests;
  for (int i = 0; i < 40; ++i)
    requests.push_back(DecideRequest{"b" + std::to_string(i % 4), {1.0}});
  DecideOptions o;
  o.now_us = kEpochUs;
  auto batch = limiter.decide_batch(c, "r", requests, 3, o);
  ASSERT_TRUE(batch.ok()) << batch.error().message;
  int admitted = 0;
  for (const auto& d : *batch) {
    ASSERT_TRUE(d.ok()) << d.error().message;
    admitted += d->decision.allowed ? 1 : 0;
  }
  EXPECT_EQ(admitted, 8);  // two per key: each call ran exactly once
  EXPECT_EQ(calls_of(c, "evalsha"), 0);
}

TEST(FunctionLibrary, AServerThatNeverHadTheLibraryDecidesAtOnce) {
  auto server = RedisServer::start();
  {
    Connection c = testing::connect(*server);
    testing::put(c, KeySchema{}, "r", single_limit(bucket(2, 1, 1h)));
    expect_three_decisions(c, "r");
  }
  // The server comes back empty (no persistence here), as a replica without the library would.
  server->restart();
  Connection c = testing::connect(*server);
  EXPECT_FALSE(library_loaded(c));
  testing::put(c, KeySchema{}, "r", single_limit(bucket(2, 1, 1h)));
  expect_three_decisions(c, "r");
  EXPECT_EQ(c.script_mode(), ScriptMode::functions);
}

TEST(FunctionLibrary, WithoutFunctionsTheSameDecisionsComeFromEvalsha) {
  struct Case {
    const char* what;
    std::vector<std::string> extra_args;
    std::string user;
  };
  const Case cases[] = {
      {"FCALL unknown, as on Redis 6", {"--rename-command", "FCALL", ""}, ""},
      {"a user without FCALL", {"--user", "u", "on", ">pw", "~*", "&*", "+@all", "-fcall"}, "u"},
      {"a user without FUNCTION",
       {"--user", "u", "on", ">pw", "~*", "&*", "+@all", "-function"},
       "u"},
  };
  for (const Case& k : cases) {
    SCOPED_TRACE(k.what);
    RedisServer::Options so;
    so.extra_args = k.extra_args;
    auto server = RedisServer::start(so);
    Connection admin = testing::connect(*server);
    admin.set_script_mode(ScriptMode::scripts);  // so that the admin does not load the library
    testing::put(admin, KeySchema{}, "r", single_limit(bucket(2, 1, 1h)));
    RedisUrl url;
    url.port = server->port();
    if (!k.user.empty()) {
      url.user = k.user;
      url.password = "pw";
    }
    auto c = Connection::open(url);
    ASSERT_TRUE(c.ok()) << c.error().message;
    expect_three_decisions(*c, "r");
    EXPECT_EQ(c->script_mode(), ScriptMode::scripts);
    EXPECT_GE(calls_of(admin, "evalsha"), 3);
    EXPECT_FALSE(library_loaded(admin));
  }
}

TEST(FunctionLibrary, TheKeptConfigGivesWayToANewStampAndIsNotKeptWithoutOne) {
  auto server = RedisServer::start();
  Connection c = testing::connect(*server);
  const KeySchema schema;
  testing::put(c, schema, "r", single_limit(bucket(1, 1, 1h)));
  const RedisLimiter limiter;
  DecideOptions o;
  o.now_us = kEpochUs;
  ASSERT_TRUE(limiter.decide(c, "r", "k", 1, o)->decision.allowed);
  ASSERT_FALSE(limiter.decide(c, "r", "k", 1, o)->decision.allowed);
  // A hand edit (not what `config set` does): capacity 3 and 3600/h. One second later the old
  // config gives 1/3600 of a token, the new one 1. It is in force once the stamp changes.
  testing::must(c, {"HSET", schema.config_key("r"), "capacity", "3", "refill_amount", "3600"});
  testing::must(c, {"SET", schema.config_stamp_key("r"), "edited by hand"});
  o.now_us = kEpochUs + 1'000'000;
  auto d = limiter.decide(c, "r", "k", 1, o);
  ASSERT_TRUE(d.ok()) << d.error().message;
  EXPECT_EQ(d->decision.limit, 3);
  EXPECT_TRUE(d->decision.allowed);
  // Without a stamp (a config written before the stamp existed) the hash is read at every
  // decision: the next edit is in force at once.
  testing::must(c, {"DEL", schema.config_stamp_key("r")});
  testing::must(c, {"HSET", schema.config_key("r"), "capacity", "7"});
  d = limiter.decide(c, "r", "k", 1, o);
  ASSERT_TRUE(d.ok()) << d.error().message;
  EXPECT_EQ(d->decision.limit, 7);
  testing::must(c, {"HSET", schema.config_key("r"), "capacity", "8"});
  d = limiter.decide(c, "r", "k", 1, o);
  ASSERT_TRUE(d.ok()) << d.error().message;
  EXPECT_EQ(d->decision.limit, 8);
  EXPECT_EQ(c.script_mode(), ScriptMode::functions);
}

}  // namespace
}  // namespace limitscope::redis
