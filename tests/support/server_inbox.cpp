#include "support/server_inbox.h"

#include <sys/epoll.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>

namespace limitscope::test {

namespace {

// Debian 12's <sys/pidfd.h> declares these without C linkage: the system calls directly.
int pidfd_open(pid_t pid) {
  return static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
}
int pidfd_getfd(int pidfd, int fd) {
  return static_cast<int>(::syscall(SYS_pidfd_getfd, pidfd, fd, 0));
}

// The inodes of the TCP sockets of process `pid` bound to local `port` (/proc/PID/net/tcp:
// "sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode").
std::set<std::string> socket_inodes_on(pid_t pid, int port) {
  std::set<std::string> inodes;
  std::ifstream table("/proc/" + std::to_string(pid) + "/net/tcp");
  std::string line;
  std::getline(table, line);  // the header
  while (std::getline(table, line)) {
    std::istringstream in(line);
    std::string sl, local, remote, st, queues, timer, retransmits, uid, timeout, inode;
    in >> sl >> local >> remote >> st >> queues >> timer >> retransmits >> uid >> timeout >> inode;
    const auto colon = local.find(':');
    if (colon != std::string::npos && std::stoi(local.substr(colon + 1), nullptr, 16) == port)
      inodes.insert(inode);
  }
  return inodes;
}

}  // namespace

ServerInbox::ServerInbox() : epoll_fd_(::epoll_create1(EPOLL_CLOEXEC)) {
  if (epoll_fd_ < 0) throw std::runtime_error("ServerInbox: epoll_create1 failed");
}

ServerInbox::~ServerInbox() {
  for (int fd : fds_) ::close(fd);
  ::close(epoll_fd_);
}

void ServerInbox::watch(pid_t pid, int port) {
  const std::set<std::string> inodes = socket_inodes_on(pid, port);
  const int pidfd = pidfd_open(pid);
  if (pidfd < 0)
    throw std::runtime_error("ServerInbox: pidfd_open of " + std::to_string(pid) + " failed");
  std::size_t watched = 0;
  const std::filesystem::path fd_dir = "/proc/" + std::to_string(pid) + "/fd";
  for (const auto& entry : std::filesystem::directory_iterator(fd_dir)) {
    std::error_code ec;
    const std::string target = std::filesystem::read_symlink(entry.path(), ec).string();
    if (ec || target.rfind("socket:[", 0) != 0) continue;
    if (inodes.count(target.substr(8, target.size() - 9)) == 0) continue;
    const int fd = pidfd_getfd(pidfd, std::stoi(entry.path().filename().string()));
    if (fd < 0) continue;  // closed since it was listed
    fds_.push_back(fd);
    epoll_event ev{};
    ev.events = EPOLLIN | EPOLLET;
    ev.data.fd = fd;
    if (::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev) == 0) ++watched;
  }
  ::close(pidfd);
  if (watched == 0)
    throw std::runtime_error("ServerInbox: no socket of " + std::to_string(pid) + " on port " +
                             std::to_string(port));
}

bool ServerInbox::wait(std::chrono::steady_clock::time_point deadline) {
  epoll_event events[16];
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    const int n = ::epoll_wait(epoll_fd_, events, 16, static_cast<int>(left.count()));
    if (n > 0) return true;
    if (n == 0 || errno != EINTR) return false;
  }
}

}  // namespace limitscope::test
