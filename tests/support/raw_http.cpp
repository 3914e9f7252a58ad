#include "support/raw_http.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fstream>

#include "support/ports.h"

namespace limitscope::test {

RawConnection::RawConnection(int port) : fd_(connect_to_loopback(port)) {}

RawConnection::~RawConnection() {
  if (fd_ >= 0) ::close(fd_);
}

void RawConnection::send(const std::string& bytes) {
  for (std::size_t sent = 0; fd_ >= 0 && sent < bytes.size();) {
    const ssize_t n = ::send(fd_, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) break;  // the server may refuse and close before it read everything
    sent += static_cast<std::size_t>(n);
  }
}

RawExchange RawConnection::read_until_close(std::chrono::milliseconds deadline) {
  RawExchange out;
  const auto end = std::chrono::steady_clock::now() + deadline;
  char buf[65536];
  while (fd_ >= 0) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        end - std::chrono::steady_clock::now());
    if (left.count() <= 0) break;
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) break;
    const ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
    if (n <= 0) {
      out.closed = true;  // orderly close, or a reset after a refusal
      break;
    }
    out.received.append(buf, static_cast<std::size_t>(n));
  }
  return out;
}

std::string RawConnection::read_answers(int count, std::chrono::milliseconds deadline) {
  std::string received;
  read_until(
      received, [count](const std::string& r) { return count_responses(r) >= count; }, deadline);
  return received;
}

bool RawConnection::read_until(std::string& received,
                               const std::function<bool(const std::string&)>& done,
                               std::chrono::milliseconds deadline) {
  const auto end = std::chrono::steady_clock::now() + deadline;
  char buf[65536];
  while (fd_ >= 0 && !done(received)) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        end - std::chrono::steady_clock::now());
    pollfd p{fd_, POLLIN, 0};
    if (left.count() <= 0 || ::poll(&p, 1, static_cast<int>(left.count())) <= 0) return false;
    const ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
    if (n <= 0) return false;
    received.append(buf, static_cast<std::size_t>(n));
  }
  return fd_ >= 0;
}

bool RawConnection::closed_by_server() {
  if (fd_ < 0) return true;
  pollfd p{fd_, POLLIN | POLLRDHUP, 0};
  if (::poll(&p, 1, 0) <= 0) return false;
  char c = 0;
  return (p.revents & (POLLHUP | POLLRDHUP | POLLERR)) != 0 || ::recv(fd_, &c, 1, MSG_PEEK) == 0;
}

RawExchange raw_exchange(int port, const std::string& bytes, std::chrono::milliseconds deadline) {
  RawConnection c(port);
  c.send(bytes);
  return c.read_until_close(deadline);
}

int count_responses(const std::string& received) {
  int n = 0;
  // A status line follows the previous answer's last byte, whatever that is (a JSON body's
  // '}'); no body in these tests contains the text.
  for (std::size_t at = received.find("HTTP/1.1 "); at != std::string::npos;
       at = received.find("HTTP/1.1 ", at + 1)) {
    ++n;
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
