// Verifies CommandBatch's RESP encoding (counts, binary-safe arguments, per-command slices) and
// that a batch pipelined to a real redis-server gets every reply in order, errors in place.
#include "core/redis/command_batch.h"

#include <gtest/gtest.h>

#include "core/redis/connection.h"
#include "support/redis_server.h"

namespace limitscope::redis {
namespace {

TEST(CommandBatch, EncodesRespWithByteCounts) {
  CommandBatch b;
  b.add({"HMGET", "rl:a", "tokens", "ts"});
  b.add(std::vector<std::string>{"SET", std::string("k\0\r\n", 4), ""});
  b.add(std::span<const std::string_view>{});  // ignored
  ASSERT_EQ(b.size(), 2u);
  EXPECT_EQ(b.command(0), "*4\r\n$5\r\nHMGET\r\n$4\r\nrl:a\r\n$6\r\ntokens\r\n$2\r\nts\r\n");
  EXPECT_EQ(b.command(1), std::string_view("*3\r\n$3\r\nSET\r\n$4\r\nk\0\r\n\r\n$0\r\n\r\n", 29));
  EXPECT_EQ(b.bytes().size(), b.command(0).size() + b.command(1).size());
  b.clear();
  EXPECT_TRUE(b.empty());
  EXPECT_TRUE(b.bytes().empty());
}

TEST(CommandBatch, AppendKeepsEachCommandWhole) {
  CommandBatch head;
  head.add({"TIME"});
  CommandBatch reads;
  reads.add({"GET", "a"});
  reads.add({"GET", "bb"});
  head.append(reads);
  ASSERT_EQ(head.size(), 3u);
  EXPECT_EQ(head.command(0), "*1\r\n$4\r\nTIME\r\n");
  EXPECT_EQ(head.command(1), "*2\r\n$3\r\nGET\r\n$1\r\na\r\n");
  EXPECT_EQ(head.command(2), "*2\r\n$3\r\nGET\r\n$2\r\nbb\r\n");
  EXPECT_EQ(reads.size(), 2u);  // the appended batch is left as it was
}

TEST(CommandBatch, PipelinedRepliesComeInOrder) {
  auto server = test::RedisServer::start();
  RedisUrl url;
  url.port = server->port();
  auto c = Connection::open(url);
  ASSERT_TRUE(c.ok()) << c.error().message;
  CommandBatch b;
  for (int i = 0; i < 3000; ++i)
    b.add({"SET", "k" + std::to_string(i), std::string("v\0", 2) + std::to_string(i)});
  b.add({"INCR", "k7"});  // not an integer: an error reply in its place
  b.add({"GET", "k2999"});
  auto replies = c->pipeline(b);
  ASSERT_TRUE(replies.ok()) << replies.error().message;
  ASSERT_EQ(replies->size(), 3002u);
  EXPECT_EQ((*replies)[0].str, "OK");
  EXPECT_TRUE((*replies)[3000].is_error());
  EXPECT_EQ((*replies)[3001].str, std::string("v\0", 2) + "2999");
  EXPECT_TRUE(c->usable());
}

}  // namespace
}  // namespace limitscope::redis
