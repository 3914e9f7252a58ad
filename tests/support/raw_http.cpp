#include "support/raw_http.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fstream>

namespace limitscope::test {

RawExchange raw_exchange(int port, const std::string& bytes, std::chrono::milliseconds deadline) {
  RawExchange out;
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return out;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd);
    return out;
  }
  for (std::size_t sent = 0; sent < bytes.size();) {
    const ssize_t n = ::send(fd, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) break;  // the server may refuse and close before it read everything
    sent += static_cast<std::size_t>(n);
  }
  const auto end = std::chrono::steady_clock::now() + deadline;
  char buf[65536];
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        end - std::chrono::steady_clock::now());
    if (left.count() <= 0) break;
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) break;
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) {
      out.closed = true;  // orderly close, or a reset after a refusal
      break;
    }
    out.received.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return out;
}

int count_responses(const std::string& received) {
  int n = 0;
  for (std::size_t at = received.find("HTTP/1.1 "); at != std::string::npos;
       at = received.find("HTTP/1.1 ", at + 1)) {
    if (at == 0 || received[at - 1] == '\n') ++n;
  }
  return n;
}

std::string first_header(const std::string& received, const std::string& name) {
  const std::string key = "\r\n" + name + ": ";
  const auto head_end = received.find("\r\n\r\n");
  const auto at = received.find(key);
  if (at == std::string::npos || at > head_end) return "";
  const auto value = at + key.size();
  return received.substr(value, received.find("\r\n", value) - value);
}

long peak_rss_kib(int pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::stol(line.substr(6));
  }
  return -1;
}

}  // namespace limitscope::test
