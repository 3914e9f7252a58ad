// Verifies redis::Endpoint on one real server: a key's and a rule's calls run on it, "each
// master" is the server itself (named host:port), TIME is the server's, and a server that is
// down gives errors naming it, with reconnects paced by the injected clock (a ManualClock
// that only the test moves).
#include "core/redis/endpoint.h"

#include <gtest/gtest.h>

#include "core/redis/decision_backend.h"
#include "core/redis/key_schema.h"
#include "core/redis/redis_limiter.h"
#include "support/redis_server.h"

namespace limitscope::redis {
namespace {

using std::chrono::milliseconds;
using test::RedisServer;

EndpointOptions options() {
  EndpointOptions o;
  o.connect = {milliseconds(300), milliseconds(300)};
  o.reconnect.initial = milliseconds(100);
  o.reconnect.jitter = 0;
  return o;
}

std::int64_t time_of(Connection& c) {
  auto t = read_server_time_us(c);
  EXPECT_TRUE(t.ok()) << t.error().message;
  return t ? *t : 0;
}

TEST(Endpoint, OneServerRunsKeyAndRuleCallsOnIt) {
  auto server = RedisServer::start();
  ManualClock clock;
  Endpoint endpoint(server->redis_url(), options(), clock);
  EXPECT_FALSE(endpoint.is_cluster());
  ASSERT_NE(endpoint.pool(), nullptr);
  EXPECT_EQ(endpoint.cluster(), nullptr);

  auto set = endpoint.on_key<Value>("k1", [](Connection& c) {
    return c.command({"SET", "k1", "v1"});
  });
  ASSERT_TRUE(set.ok()) << set.error().message;
  const KeySchema schema;
  auto incr = endpoint.on_rule<Value>(schema, "r1", [&](Connection& c) {
    return c.command({"INCRBY", schema.config_key("r1"), "7"});
  });
  ASSERT_TRUE(incr.ok()) << incr.error().message;
  EXPECT_EQ(incr->as_integer(), 7);

  auto direct = test::connect(*server);
  auto v = direct.command({"GET", "k1"});
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(v->str, "v1");
  // An error reply of the call comes back as it is.
  auto wrong = endpoint.on_key<Value>("k1", [](Connection& c) {
    return c.command({"LPUSH", "k1", "x"});
  });
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.error().kind, ErrorKind::reply);
}

TEST(Endpoint, EachMasterOfOneServerIsTheServer) {
  auto server = RedisServer::start();
  ManualClock clock;
  Endpoint endpoint(server->redis_url(), options(), clock);
  const std::string address = "127.0.0.1:" + std::to_string(server->port());
  auto masters = endpoint.masters();
  ASSERT_TRUE(masters.ok());
  EXPECT_EQ(*masters, std::vector<std::string>{address});

  auto direct = test::connect(*server);
  test::must(direct, {"SET", "a", "1"});
  test::must(direct, {"SET", "b", "2"});
  std::vector<std::pair<std::string, long long>> sizes;
  auto each = endpoint.on_each_master([&](Connection& c, const std::string& node) -> Result<void> {
    auto n = c.command({"DBSIZE"});
    if (!n) return n.error();
    sizes.emplace_back(node, n->as_integer().value_or(-1));
    return {};
  });
  ASSERT_TRUE(each.ok()) << each.error().message;
  ASSERT_EQ(each->size(), 1u);
  EXPECT_EQ((*each)[0].node, address);
  EXPECT_TRUE((*each)[0].result.ok());
  EXPECT_EQ(sizes, (std::vector<std::pair<std::string, long long>>{{address, 2}}));
}

TEST(Endpoint, ServerTimeIsTheServersClock) {
  auto server = RedisServer::start();
  ManualClock clock;  // far from the server's time: the endpoint must not read it
  Endpoint endpoint(server->redis_url(), options(), clock);
  auto direct = test::connect(*server);
  const std::int64_t before = time_of(direct);
  auto t = endpoint.server_time_us("any-key");
  const std::int64_t after = time_of(direct);
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_LE(before, *t);
  EXPECT_LE(*t, after);
  EXPECT_GT(*t, 1'600'000'000'000'000);
}

TEST(Endpoint, ServerDownIsNamedAndReconnectWaitsForTheInjectedClock) {
  auto server = RedisServer::start();
  ManualClock clock;
  Endpoint endpoint(server->redis_url(), options(), clock);
  const std::string port = std::to_string(server->port());
  auto ping = [](Connection& c) { return c.command({"PING"}); };
  ASSERT_TRUE(endpoint.on_key<Value>("k", ping).ok());
  server->kill();

  EXPECT_FALSE(endpoint.on_key<Value>("k", ping).ok());  // the idle connection breaks
  auto down = endpoint.on_key<Value>("k", ping);         // a new one is refused
  ASSERT_FALSE(down.ok());
  EXPECT_EQ(down.error().kind, ErrorKind::io);
  EXPECT_NE(down.error().message.find(port), std::string::npos) << down.error().message;

  auto each = endpoint.on_each_master([&](Connection& c, const std::string&) -> Result<void> {
    auto r = c.command({"PING"});
    if (!r) return r.error();
    return {};
  });
  ASSERT_TRUE(each.ok());  // the masters are known; the one there is fails
  ASSERT_EQ(each->size(), 1u);
  ASSERT_FALSE((*each)[0].result.ok());
  EXPECT_EQ((*each)[0].result.error().message.rfind("node 127.0.0.1:" + port + ": ", 0), 0u)
      << (*each)[0].result.error().message;

  server->restart();
  EXPECT_FALSE(endpoint.on_key<Value>("k", ping).ok());  // within the backoff, on the test's clock
  clock.advance(milliseconds(100));
  auto back = endpoint.on_key<Value>("k", ping);
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->str, "PONG");
}

TEST(Endpoint, DecisionsRunOnTheServer) {
  auto server = RedisServer::start();
  ManualClock clock;
  Endpoint endpoint(server->redis_url(), options(), clock);
  auto backend = endpoint.decisions(RedisLimiter(KeySchema()));
  EXPECT_EQ(backend->peer(), endpoint.peer());
  auto direct = test::connect(*server);
  const std::int64_t before = time_of(direct);
  auto t = backend->server_time_us("r");
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_LE(before, *t);
}

}  // namespace
}  // namespace limitscope::redis
