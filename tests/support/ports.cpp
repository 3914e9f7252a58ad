#include "support/ports.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <stdexcept>

namespace limitscope::test {

int free_loopback_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) throw std::runtime_error("free_loopback_port: socket() failed");
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t len = sizeof addr;
  // sockaddr_in → sockaddr is the socket API's own convention.
  auto* sa = reinterpret_cast<sockaddr*>(&addr);
  if (::bind(fd, sa, sizeof addr) != 0 || ::getsockname(fd, sa, &len) != 0) {
    ::close(fd);
    throw std::runtime_error("free_loopback_port: bind to 127.0.0.1:0 failed");
  }
  const int port = ntohs(addr.sin_port);
  ::close(fd);
  return port;
}

}  // namespace limitscope::test
