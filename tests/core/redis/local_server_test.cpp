// Verifies the private redis-server that tests and benchmarks start (process/local_server.h): a
// restart on a port something else took meanwhile fails with the port and the server's own
// reason, and succeeds once the port is free again.
#include "process/local_server.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>

#include "core/redis/connection.h"
#include "support/process.h"

namespace limitscope::redis {
namespace {

// A socket listening on 127.0.0.1:port (SO_REUSEADDR, as the server's own closed connections
// may linger in TIME_WAIT), or -1.
int listen_at(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return -1;
  const int on = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  // sockaddr_in → sockaddr is the socket API's own convention.
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(fd, 1) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

TEST(LocalRedisServer, ARestartOnATakenPortSaysWhichPortAndWhy) {
  LocalRedisServer::Options options;
  options.dir = test::temp_path("local-server-restart");
  auto server = LocalRedisServer::start(options);
  ASSERT_TRUE(server.ok()) << server.error();
  const int port = (*server)->port();
  (*server)->kill();

  const int taken = listen_at(port);
  ASSERT_GE(taken, 0) << "port " << port;
  const Status refused = (*server)->restart();
  ::close(taken);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().find("did not restart"), std::string::npos) << refused.error();
  EXPECT_NE(refused.error().find("port " + std::to_string(port)), std::string::npos)
      << refused.error();
  EXPECT_NE(refused.error().find("Address already in use"), std::string::npos)
      << "the server's log names the reason: " << refused.error();

  ASSERT_EQ((*server)->restart(), Status{});
  RedisUrl url;
  url.port = port;
  auto c = Connection::open(url, {std::chrono::milliseconds(500), std::chrono::milliseconds(500)});
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_TRUE(c->command({"PING"}).ok());
}

}  // namespace
}  // namespace limitscope::redis
