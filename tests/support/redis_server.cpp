#include "support/redis_server.h"

#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>

#include "support/process.h"

namespace limitscope::test {

std::unique_ptr<RedisServer> RedisServer::start(Options options) {
  static std::atomic<int> count{0};
  redis::LocalRedisServer::Options o;
  o.dir = temp_path("redis" + std::to_string(count.fetch_add(1)));
  o.requirepass = std::move(options.requirepass);
  o.extra_args = std::move(options.extra_args);
  auto s = redis::LocalRedisServer::start(std::move(o));
  if (!s) throw std::runtime_error(s.error());
  return std::unique_ptr<RedisServer>(new RedisServer(std::move(s).value()));
}

void RedisServer::restart() {
  if (Status r = server_->restart(); !r.ok()) throw std::runtime_error(r.error());
}

void must(redis::Connection& c, const std::vector<std::string>& argv) {
  auto r = c.command(argv);
  ASSERT_TRUE(r.ok()) << argv[0] << ": " << r.error().message;
  ASSERT_FALSE(r->is_error()) << argv[0] << ": " << r->str;
}

redis::Connection connect(const RedisServer& server, redis::ConnectOptions options) {
  redis::RedisUrl url;
  url.port = server.port();
  auto c = redis::Connection::open(url, options);
  if (!c) {
    throw std::runtime_error("connect to redis-server on port " + std::to_string(server.port()) +
                             ": " + c.error().message);
  }
  return std::move(c).value();
}

}  // namespace limitscope::test
