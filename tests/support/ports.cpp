#include "support/ports.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>
#include <stdexcept>

#include "process/local_server.h"

namespace limitscope::test {

int free_loopback_port() {
  auto port = redis::free_loopback_port();
  if (!port) throw std::runtime_error(port.error());
  return *port;
}

int listen_on_loopback(int& port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) throw std::runtime_error("listen_on_loopback: socket failed");
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  auto* sa = reinterpret_cast<sockaddr*>(&addr);  // the socket API's convention
  if (::bind(fd, sa, sizeof addr) != 0 || ::listen(fd, 64) != 0 ||
      ::getsockname(fd, sa, &len) != 0) {
    ::close(fd);
    throw std::runtime_error("listen_on_loopback: bind/listen on 127.0.0.1:0 failed");
  }
  port = ntohs(addr.sin_port);
  return fd;
}

int connect_to_loopback(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

}  // namespace limitscope::test
