// Verifies Script and eval/eval_pipeline on a real server: the local SHA-1 is the one Redis
// computes, NOSCRIPT after a flush is absorbed by one reload, and script errors name the script.
#include "core/redis/script.h"

#include <gtest/gtest.h>

#include "support/redis_server.h"

namespace limitscope::redis {
namespace {

using test::RedisServer;

const Script kAdd("add", "return redis.call('INCRBY', KEYS[1], ARGV[1])");

TEST(Script, LocalSha1EqualsTheServers) {
  auto server = RedisServer::start();
  Connection c = connect(*server);
  auto sha = c.command({"SCRIPT", "LOAD", kAdd.source()});
  ASSERT_TRUE(sha.ok());
  EXPECT_EQ(sha->str, kAdd.sha1());
}

TEST(Script, EvalLoadsOnNoscriptAndAgainAfterAFlush) {
  auto server = RedisServer::start();
  Connection c = connect(*server);
  auto first = eval(c, kAdd, {"n"}, {"2"});
  ASSERT_TRUE(first.ok()) << first.error().message;
  EXPECT_EQ(first->integer, 2);
  ASSERT_TRUE(c.command({"SCRIPT", "FLUSH"}).ok());
  auto second = eval(c, kAdd, {"n"}, {"3"});
  ASSERT_TRUE(second.ok()) << second.error().message;
  EXPECT_EQ(second->integer, 5);
}

TEST(Script, PipelineReloadsOnceAndKeepsOrder) {
  auto server = RedisServer::start();
  Connection c = connect(*server);
  std::vector<ScriptCall> calls;
  for (int i = 1; i <= 20; ++i) calls.push_back({{"n"}, {std::to_string(i)}});
  auto replies = eval_pipeline(c, kAdd, calls);
  ASSERT_TRUE(replies.ok()) << replies.error().message;
  ASSERT_EQ(replies->size(), 20u);
  // Every call ran exactly once: the running sums 1, 3, 6, ... in call order.
  std::int64_t sum = 0;
  for (int i = 1; i <= 20; ++i) {
    sum += i;
    EXPECT_EQ((*replies)[static_cast<std::size_t>(i - 1)].integer, sum);
  }
  auto total = c.command({"GET", "n"});
  ASSERT_TRUE(total.ok());
  EXPECT_EQ(total->as_integer(), 210);
}

TEST(Script, ScriptErrorNamesTheScriptAndStaysPerCallInPipelines) {
  auto server = RedisServer::start();
  Connection c = connect(*server);
  const Script broken("broken", "return redis.call('HGET', KEYS[1], 'f')");
  ASSERT_TRUE(c.command({"SET", "str", "v"}).ok());
  auto r = eval(c, broken, {"str"}, {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ErrorKind::reply);
  EXPECT_NE(r.error().message.find("script broken"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("WRONGTYPE"), std::string::npos) << r.error().message;

  auto mixed = eval_pipeline(c, broken, {{{"str"}, {}}, {{"missing"}, {}}});
  ASSERT_TRUE(mixed.ok());
  EXPECT_TRUE((*mixed)[0].is_error());
  EXPECT_TRUE((*mixed)[1].is_nil());
  EXPECT_TRUE(c.usable());
}

}  // namespace
}  // namespace limitscope::redis
