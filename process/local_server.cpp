#include "process/local_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "core/common/clock.h"
#include "core/redis/connection.h"

namespace limitscope::redis {

namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// Binds 127.0.0.1:want (0 = any) and returns the bound port, or 0 when the bind failed.
int bind_loopback(int want) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return 0;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<std::uint16_t>(want));
  socklen_t len = sizeof addr;
  // sockaddr_in → sockaddr is the socket API's own convention.
  auto* sa = reinterpret_cast<sockaddr*>(&addr);
  const bool ok = ::bind(fd, sa, sizeof addr) == 0 && ::getsockname(fd, sa, &len) == 0;
  ::close(fd);
  return ok ? ntohs(addr.sin_port) : 0;
}

}  // namespace

Expected<int> free_loopback_port(int max_port) {
  const int any = bind_loopback(0);
  if (any == 0) return make_error("free port: bind to 127.0.0.1:0 failed");
  if (any <= max_port) return any;
  // The kernel picks from the whole ephemeral range (up to 60999 on Linux); below max_port,
  // try random ports above the well-known ones.
  constexpr int kLowest = 20000;
  if (max_port < kLowest)
    return make_error("free port: no port range below " + std::to_string(max_port));
  std::minstd_rand rng(static_cast<std::uint32_t>(::getpid()) ^ static_cast<std::uint32_t>(any));
  std::uniform_int_distribution<int> pick(kLowest, max_port);
  for (int attempt = 0; attempt < 200; ++attempt) {
    const int port = bind_loopback(pick(rng));
    if (port != 0) return port;
  }
  return make_error("free port: no free port on 127.0.0.1 between " + std::to_string(kLowest) +
                    " and " + std::to_string(max_port));
}

Expected<std::unique_ptr<LocalRedisServer>> LocalRedisServer::start(Options options) {
  if (options.dir.empty()) return make_error("local redis-server: no directory given");
  std::error_code ec;
  std::filesystem::remove_all(options.dir, ec);
  std::filesystem::create_directories(options.dir, ec);
  if (ec)
    return make_error("local redis-server: cannot create " + options.dir + ": " + ec.message());
  std::unique_ptr<LocalRedisServer> server(new LocalRedisServer(std::move(options)));
  Status launched = make_error("not started");
  for (int attempt = 0; attempt < 5; ++attempt) {
    auto port = free_loopback_port(server->options_.max_port);
    if (!port.ok()) return make_error(port.error());
    server->port_ = *port;
    launched = server->launch_and_wait();
    if (launched.ok()) return server;
  }
  return make_error("redis-server did not start (is the redis-server package installed?): " +
                    launched.error());
}

std::string LocalRedisServer::url() const {
  return "redis://127.0.0.1:" + std::to_string(port_);
}

Status LocalRedisServer::launch_and_wait() {
  const std::string log_path = options_.dir + "/redis.log";
  std::vector<std::string> args{options_.executable,
                                "--port",
                                std::to_string(port_),
                                "--bind",
                                "127.0.0.1",
                                "--save",
                                "",
                                "--appendonly",
                                "no",
                                "--dir",
                                options_.dir,
                                "--logfile",
                                log_path,
                                "--daemonize",
                                "no"};
  if (!options_.requirepass.empty())
    args.insert(args.end(), {"--requirepass", options_.requirepass});
  args.insert(args.end(), options_.extra_args.begin(), options_.extra_args.end());
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) return make_error("fork failed: " + std::string(std::strerror(errno)));
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    execvp(argv[0], argv.data());
    _exit(127);
  }
  pid_ = pid;
  paused_ = false;

  // Readiness is an event (the server answering PING), polled with a growing pause; give up
  // when the process exits (port taken, bad option) or after 10 s.
  RedisUrl url;
  url.port = port_;
  url.password = options_.requirepass;
  SteadyClock& clock = SteadyClock::instance();
  CancelToken never;
  Nanos pause = std::chrono::milliseconds(2);
  const Nanos deadline = clock.now() + std::chrono::seconds(10);
  while (clock.now() < deadline) {
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      return make_error("it exited on port " + std::to_string(port_) + "; its log:\n" +
                        read_text(log_path));
    }
    auto c =
        Connection::open(url, {std::chrono::milliseconds(200), std::chrono::milliseconds(500)});
    if (c.ok() && c->command({"PING"}).ok()) return {};
    if (!c.ok() && c.error().kind == ErrorKind::auth) return {};  // up, but ACL-only
    clock.wait_until(clock.now() + pause, never);
    pause = std::min<Nanos>(pause * 2, std::chrono::milliseconds(50));
  }
  kill();
  return make_error("no answer to PING on port " + std::to_string(port_) +
                    " within 10 s; its log:\n" + read_text(log_path));
}

void LocalRedisServer::kill() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGKILL);
  int status = 0;
  waitpid(pid_, &status, 0);
  pid_ = -1;
  paused_ = false;
}

Status LocalRedisServer::restart() {
  kill();
  if (Status launched = launch_and_wait(); !launched.ok()) {
    return make_error("redis-server did not restart: " + launched.error());
  }
  return {};
}

void LocalRedisServer::pause() {
  if (pid_ > 0 && !paused_) {
    ::kill(pid_, SIGSTOP);
    paused_ = true;
  }
}

void LocalRedisServer::resume() {
  if (pid_ > 0 && paused_) {
    ::kill(pid_, SIGCONT);
    paused_ = false;
  }
}

LocalRedisServer::~LocalRedisServer() {
  resume();
  kill();
  std::error_code ec;
  std::filesystem::remove_all(options_.dir, ec);
}

}  // namespace limitscope::redis
