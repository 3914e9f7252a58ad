// Verifies Connection against a real redis-server: replies of every type, pipelines that keep
// per-command errors in place, the error map (refused, timeout on a stopped server, closed on
// a killed one, reply, auth), ACL users, database selection and recovery after a restart.
#include "core/redis/connection.h"

#include <gtest/gtest.h>

#include "process/local_server.h"
#include "support/ports.h"
#include "support/redis_server.h"

namespace limitscope::redis {
namespace {

using test::RedisServer;

RedisUrl url_of(const RedisServer& s, std::string user = {}, std::string password = {},
                int db = 0) {
  RedisUrl url = s.redis_url(std::move(user), std::move(password));
  url.db = db;
  return url;
}

const ConnectOptions kFast{std::chrono::milliseconds(300), std::chrono::milliseconds(300)};

TEST(Connection, RepliesOfEveryType) {
  auto server = RedisServer::start();
  auto c = Connection::open(url_of(*server), kFast);
  ASSERT_TRUE(c.ok()) << c.error().message;

  auto pong = c->command({"PING"});
  ASSERT_TRUE(pong.ok());
  EXPECT_EQ(pong->type, Value::Type::status);
  EXPECT_EQ(pong->str, "PONG");

  ASSERT_TRUE(c->command({"SET", "k", std::string("a\0b", 3)}).ok());
  auto got = c->command({"GET", "k"});
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->type, Value::Type::string);
  EXPECT_EQ(got->str, std::string("a\0b", 3));  // binary-safe

  auto n = c->command({"INCRBY", "n", "41"});
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(n->type, Value::Type::integer);
  EXPECT_EQ(n->integer, 41);

  auto missing = c->command({"GET", "nope"});
  ASSERT_TRUE(missing.ok());
  EXPECT_TRUE(missing->is_nil());

  ASSERT_TRUE(c->command({"RPUSH", "l", "x", "7"}).ok());
  auto list = c->command({"LRANGE", "l", "0", "-1"});
  ASSERT_TRUE(list.ok());
  ASSERT_TRUE(list->is_array());
  ASSERT_EQ(list->elements.size(), 2u);
  EXPECT_EQ(list->elements[0].str, "x");
  EXPECT_EQ(list->elements[1].as_integer(), 7);
  EXPECT_FALSE(list->elements[0].as_number().has_value());
}

TEST(Connection, PipelineKeepsErrorRepliesInPlace) {
  auto server = RedisServer::start();
  auto c = Connection::open(url_of(*server), kFast);
  ASSERT_TRUE(c.ok());
  auto replies = c->pipeline({{"SET", "s", "v"}, {"INCR", "s"}, {"INCR", "n"}, {"GET", "s"}});
  ASSERT_TRUE(replies.ok()) << replies.error().message;
  ASSERT_EQ(replies->size(), 4u);
  EXPECT_EQ((*replies)[0].str, "OK");
  EXPECT_TRUE((*replies)[1].is_error());
  EXPECT_NE((*replies)[1].str.find("not an integer"), std::string::npos);
  EXPECT_EQ((*replies)[2].integer, 1);
  EXPECT_EQ((*replies)[3].str, "v");
  EXPECT_TRUE(c->usable());
}

TEST(Connection, ErrorReplyIsAReplyErrorAndKeepsTheConnection) {
  auto server = RedisServer::start();
  auto c = Connection::open(url_of(*server), kFast);
  ASSERT_TRUE(c.ok());
  ASSERT_TRUE(c->command({"SET", "s", "v"}).ok());
  auto r = c->command({"HGET", "s", "f"});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ErrorKind::reply);
  EXPECT_NE(r.error().message.find("WRONGTYPE"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("HGET"), std::string::npos);
  EXPECT_TRUE(c->usable());
  EXPECT_TRUE(c->command({"PING"}).ok());
}

TEST(Connection, RefusedConnectIsAnIoError) {
  RedisUrl url;
  url.port = test::free_loopback_port();  // nothing listens there
  auto c = Connection::open(url, kFast);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().kind, ErrorKind::io);
  EXPECT_NE(c.error().message.find(std::to_string(url.port)), std::string::npos)
      << c.error().message;
}

TEST(Connection, AFreePortPickedUnderACapStaysUnderIt) {
  // Linux hands out ephemeral ports from 32768 up; a cluster node must stay at or below 55535
  // (its bus port is port + 10000). A cap below the ephemeral range forces the fallback.
  for (int i = 0; i < 20; ++i) {
    auto port = redis::free_loopback_port(30000);
    ASSERT_TRUE(port.ok()) << port.error();
    EXPECT_GE(*port, 20000);
    EXPECT_LE(*port, 30000);
  }
  EXPECT_FALSE(redis::free_loopback_port(1000).ok());
}

TEST(Connection, StoppedServerTimesOutAndTheConnectionIsDropped) {
  auto server = RedisServer::start();
  auto c = Connection::open(url_of(*server), kFast);
  ASSERT_TRUE(c.ok());
  server->pause();
  auto r = c->command({"PING"});
  server->resume();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ErrorKind::timeout) << r.error().message;
  EXPECT_FALSE(c->usable());
  // A late reply must never be read as the answer to a later command.
  auto again = c->command({"PING"});
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.error().kind, ErrorKind::closed);
}

TEST(Connection, KilledServerBreaksTheConnectionAndARestartServesANewOne) {
  auto server = RedisServer::start();
  auto c = Connection::open(url_of(*server), kFast);
  ASSERT_TRUE(c.ok());
  server->kill();
  auto r = c->command({"PING"});
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.error().breaks_connection()) << to_string(r.error().kind);
  EXPECT_FALSE(c->usable());
  server->restart();
  auto fresh = Connection::open(url_of(*server), kFast);
  ASSERT_TRUE(fresh.ok()) << fresh.error().message;
  EXPECT_TRUE(fresh->command({"PING"}).ok());
}

TEST(Connection, PasswordAuth) {
  RedisServer::Options options;
  options.requirepass = "s3cret";
  auto server = RedisServer::start(options);

  auto good = Connection::open(url_of(*server, "", "s3cret"), kFast);
  ASSERT_TRUE(good.ok()) << good.error().message;
  EXPECT_TRUE(good->command({"SET", "a", "1"}).ok());

  auto wrong = Connection::open(url_of(*server, "", "nope"), kFast);
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.error().kind, ErrorKind::auth);
  EXPECT_NE(wrong.error().message.find("authentication refused"), std::string::npos)
      << wrong.error().message;
  EXPECT_EQ(wrong.error().message.find("nope"), std::string::npos);

  auto none = Connection::open(url_of(*server), kFast);
  ASSERT_TRUE(none.ok());  // connecting needs no auth; the first command does
  auto r = none->command({"GET", "a"});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ErrorKind::auth) << r.error().message;
}

TEST(Connection, AclUserAuth) {
  RedisServer::Options options;
  options.extra_args = {"--user", "alice", "on", ">wonderland", "~*", "&*", "+@all"};
  auto server = RedisServer::start(options);

  auto good = Connection::open(url_of(*server, "alice", "wonderland"), kFast);
  ASSERT_TRUE(good.ok()) << good.error().message;
  auto who = good->command({"ACL", "WHOAMI"});
  ASSERT_TRUE(who.ok());
  EXPECT_EQ(who->str, "alice");

  auto wrong = Connection::open(url_of(*server, "alice", "rabbit"), kFast);
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.error().kind, ErrorKind::auth);
  EXPECT_NE(wrong.error().message.find("user 'alice'"), std::string::npos) << wrong.error().message;
}

TEST(Connection, SelectsTheDatabaseOfTheUrl) {
  auto server = RedisServer::start();
  auto db3 = Connection::open(url_of(*server, "", "", 3), kFast);
  ASSERT_TRUE(db3.ok());
  ASSERT_TRUE(db3->command({"SET", "only-in-3", "x"}).ok());
  auto db0 = Connection::open(url_of(*server), kFast);
  ASSERT_TRUE(db0.ok());
  auto r = db0->command({"EXISTS", "only-in-3"});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->integer, 0);

  auto bad = Connection::open(url_of(*server, "", "", 99999), kFast);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().kind, ErrorKind::reply);
  EXPECT_NE(bad.error().message.find("SELECT"), std::string::npos) << bad.error().message;
}

}  // namespace
}  // namespace limitscope::redis
