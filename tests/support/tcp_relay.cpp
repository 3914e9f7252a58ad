#include "support/tcp_relay.h"

#include <sys/socket.h>
#include <unistd.h>

#include "support/ports.h"

namespace limitscope::test {

TcpRelay::TcpRelay(int target_port) : target_port_(target_port) {
  listen_fd_ = listen_on_loopback(port_);
  acceptor_ = std::thread([this] { accept_loop(); });
}

TcpRelay::~TcpRelay() {
  std::vector<std::thread> pumps;
  {
    const std::lock_guard lock(mu_);
    stopping_ = true;
    for (int fd : fds_) ::shutdown(fd, SHUT_RDWR);  // unblocks the pumps' reads
  }
  ::shutdown(listen_fd_, SHUT_RDWR);  // unblocks accept
  acceptor_.join();
  for (auto& t : pumps_) t.join();
  for (int fd : fds_) ::close(fd);
  ::close(listen_fd_);
}

std::uint64_t TcpRelay::bytes_in() const {
  const std::lock_guard lock(mu_);
  return bytes_in_;
}

bool TcpRelay::wait_past(std::uint64_t seen, std::chrono::steady_clock::time_point deadline) const {
  std::unique_lock lock(mu_);
  return arrived_.wait_until(lock, deadline, [&] { return bytes_in_ > seen; });
}

void TcpRelay::accept_loop() {
  for (;;) {
    const int client = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (client < 0) return;  // shut down
    const int server = connect_to_loopback(target_port_);
    const std::lock_guard lock(mu_);
    fds_.push_back(client);
    if (stopping_ || server < 0) {  // the server is gone: refuse as it would have
      ::shutdown(client, SHUT_RDWR);
      if (server >= 0) ::close(server);
      if (stopping_) return;
      continue;
    }
    fds_.push_back(server);
    pumps_.emplace_back([this, client, server] { pump(client, server, true); });
    pumps_.emplace_back([this, client, server] { pump(server, client, false); });
  }
}

void TcpRelay::pump(int from, int to, bool count) {
  char buf[65536];
  for (;;) {
    const ssize_t n = ::recv(from, buf, sizeof buf, 0);
    if (n <= 0) break;
    ssize_t sent = 0;
    while (sent < n) {
      const ssize_t w = ::send(to, buf + sent, static_cast<std::size_t>(n - sent), MSG_NOSIGNAL);
      if (w <= 0) break;
      sent += w;
    }
    if (count) {
      {
        const std::lock_guard lock(mu_);
        bytes_in_ += static_cast<std::uint64_t>(n);
      }
      arrived_.notify_all();
    }
    if (sent < n) break;
  }
  // One side closed or failed: close both, as a direct connection would have been.
  ::shutdown(from, SHUT_RDWR);
  ::shutdown(to, SHUT_RDWR);
}

}  // namespace limitscope::test
