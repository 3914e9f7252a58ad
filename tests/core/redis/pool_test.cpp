// Verifies ConnectionPool on a real server: connections are reused, broken ones dropped, a
// dead server answered at once during the reconnect backoff (no connect attempt), and service
// resumes after a restart once the backoff has passed (time from a ManualClock).
#include "core/redis/pool.h"

#include <gtest/gtest.h>

#include <thread>

#include "support/redis_server.h"

namespace limitscope::redis {
namespace {

using std::chrono::milliseconds;
using test::RedisServer;

PoolOptions options(std::size_t size) {
  PoolOptions o;
  o.size = size;
  o.connect = {milliseconds(300), milliseconds(300)};
  o.backoff.initial = milliseconds(100);
  o.backoff.jitter = 0;
  return o;
}

TEST(ConnectionPool, ReusesConnections) {
  auto server = RedisServer::start();
  ManualClock clock;
  ConnectionPool pool(server->redis_url(), options(2), clock);
  for (int i = 0; i < 10; ++i) {
    auto lease = pool.acquire();
    ASSERT_TRUE(lease.ok()) << lease.error().message;
    ASSERT_TRUE((*lease)->command({"INCR", "n"}).ok());
  }
  EXPECT_EQ(pool.stats().opened_total, 1u);
  EXPECT_EQ(pool.stats().idle, 1u);
  EXPECT_EQ(pool.stats().in_use, 0u);
}

TEST(ConnectionPool, ThreadsShareAtMostSizeConnections) {
  auto server = RedisServer::start();
  ManualClock clock;
  ConnectionPool pool(server->redis_url(), options(3), clock);
  std::vector<std::thread> threads;
  std::atomic<int> errors{0};
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 200; ++i) {
        auto lease = pool.acquire();
        if (!lease || !(*lease)->command({"INCR", "n"})) ++errors;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(errors.load(), 0);
  EXPECT_LE(pool.stats().opened_total, 3u);
  auto lease = pool.acquire();
  ASSERT_TRUE(lease.ok());
  auto n = (*lease)->command({"GET", "n"});
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(n->as_integer(), 1600);
}

TEST(ConnectionPool, DeadServerIsAnsweredDuringBackoffAndRecoversAfterRestart) {
  auto server = RedisServer::start();
  ManualClock clock;
  ConnectionPool pool(server->redis_url(), options(2), clock);
  {
    auto lease = pool.acquire();
    ASSERT_TRUE(lease.ok());
  }
  server->kill();
  {
    auto lease = pool.acquire();  // the idle connection; its command fails and it is dropped
    ASSERT_TRUE(lease.ok());
    EXPECT_FALSE((*lease)->command({"PING"}).ok());
  }
  EXPECT_EQ(pool.stats().dropped_total, 1u);

  auto refused = pool.acquire();  // opens, fails: backoff starts
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().kind, ErrorKind::io);
  EXPECT_EQ(pool.stats().open_failures_total, 1u);

  auto gated = pool.acquire();  // within the backoff: no attempt at all
  ASSERT_FALSE(gated.ok());
  EXPECT_NE(gated.error().message.find("next reconnect attempt in 100 ms"), std::string::npos)
      << gated.error().message;
  EXPECT_EQ(pool.stats().open_failures_total, 1u);

  server->restart();
  EXPECT_FALSE(pool.acquire().ok());  // still gated, although the server is back
  clock.advance(milliseconds(100));
  auto back = pool.acquire();
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_TRUE((*back)->command({"PING"}).ok());
}

}  // namespace
}  // namespace limitscope::redis
