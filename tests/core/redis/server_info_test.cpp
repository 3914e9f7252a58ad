// Verifies parse_server_info on INFO text as Redis 7 writes it, malformed lines, and the
// difference of two snapshots; and that a real server's INFO parses and counts a command.
#include "core/redis/server_info.h"

#include <gtest/gtest.h>

#include "core/redis/connection.h"
#include "support/redis_server.h"

namespace limitscope::redis {
namespace {

const char* kInfo =
    "# CPU\r\nused_cpu_sys:1.500000\r\nused_cpu_user:2.250000\r\nused_cpu_sys_children:0.0\r\n"
    "\r\n# Commandstats\r\n"
    "cmdstat_evalsha:calls=100,usec=650,usec_per_call=6.50,rejected_calls=0,failed_calls=1\r\n"
    "cmdstat_INCR:calls=4,usec=1,usec_per_call=0.25,rejected_calls=0,failed_calls=0\r\n";

TEST(ServerInfo, ParsesCommandStatsAndCpu) {
  auto info = parse_server_info(kInfo);
  ASSERT_TRUE(info.ok()) << info.error();
  EXPECT_DOUBLE_EQ(info->cpu_seconds, 3.75);
  ASSERT_EQ(info->commands.count("evalsha"), 1u);
  EXPECT_EQ(info->commands["evalsha"].calls, 100u);
  EXPECT_DOUBLE_EQ(info->commands["evalsha"].usec_per_call(), 6.5);
  EXPECT_EQ(info->commands["incr"].usec, 1u);
}

TEST(ServerInfo, MalformedLinesNameTheLine) {
  for (const char* text :
       {"cmdstat_get:calls=x,usec=1\n", "cmdstat_get:usec=1\n", "# CPU\nused_cpu_user:lots\n"}) {
    auto info = parse_server_info(text);
    ASSERT_FALSE(info.ok()) << text;
    EXPECT_NE(info.error().find("INFO line"), std::string::npos) << info.error();
  }
}

TEST(ServerInfo, DifferenceAndARealServer) {
  auto server = test::RedisServer::start();
  RedisUrl url;
  url.port = server->port();
  auto c = Connection::open(url);
  ASSERT_TRUE(c.ok());
  auto read = [&] {
    auto text = c->command({"INFO", "everything"});
    EXPECT_TRUE(text.ok());
    auto info = parse_server_info(text->str);
    EXPECT_TRUE(info.ok()) << info.error();
    return *info;
  };
  const ServerInfo before = read();
  for (int i = 0; i < 25; ++i) ASSERT_TRUE(c->command({"INCR", "n"}).ok());
  const ServerInfo d = difference(read(), before);
  EXPECT_EQ(d.commands.at("incr").calls, 25u);
  EXPECT_GE(d.cpu_seconds, 0);
}

}  // namespace
}  // namespace limitscope::redis
