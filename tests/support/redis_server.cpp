#include "support/redis_server.h"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <stdexcept>
#include <thread>

#include "core/redis/connection.h"
#include "support/ports.h"
#include "support/process.h"

namespace limitscope::test {

namespace {
std::atomic<int> g_servers{0};
}

RedisServer::RedisServer(Options options, std::string dir)
    : options_(std::move(options)), dir_(std::move(dir)) {}

std::unique_ptr<RedisServer> RedisServer::start(Options options) {
  const std::string dir = temp_path("redis" + std::to_string(g_servers.fetch_add(1)));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::unique_ptr<RedisServer> server(new RedisServer(std::move(options), dir));
  std::string log;
  for (int attempt = 0; attempt < 5; ++attempt) {
    server->port_ = free_loopback_port();
    if (server->launch_and_wait(&log)) return server;
  }
  throw std::runtime_error("redis-server did not start; its log:\n" + log);
}

std::string RedisServer::url() const { return "redis://127.0.0.1:" + std::to_string(port_); }

bool RedisServer::launch_and_wait(std::string* log) {
  const std::string log_path = dir_ + "/redis.log";
  std::vector<std::string> args{"redis-server", "--port", std::to_string(port_), "--bind",
                                "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir_,
                                "--logfile", log_path, "--daemonize", "no"};
  if (!options_.requirepass.empty()) {
    args.insert(args.end(), {"--requirepass", options_.requirepass});
  }
  args.insert(args.end(), options_.extra_args.begin(), options_.extra_args.end());
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    execvp("redis-server", argv.data());
    _exit(127);
  }
  pid_ = pid;
  paused_ = false;

  // Readiness is an event (the server answering PING), polled with a growing pause; give up
  // when the process exits (port taken, bad option) or after 10 s.
  redis::RedisUrl url;
  url.port = port_;
  url.password = options_.requirepass;
  auto pause = std::chrono::milliseconds(2);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (std::chrono::steady_clock::now() < deadline) {
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      *log = read_file(log_path);
      return false;
    }
    auto c = redis::Connection::open(url, {std::chrono::milliseconds(200),
                                           std::chrono::milliseconds(500)});
    if (c && c->command({"PING"})) return true;
    if (!c && c.error().kind == redis::ErrorKind::auth) return true;  // up, but ACL-only
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(50));
  }
  *log = read_file(log_path);
  kill();
  return false;
}

void RedisServer::kill() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGKILL);
  int status = 0;
  waitpid(pid_, &status, 0);
  pid_ = -1;
  paused_ = false;
}

void RedisServer::restart() {
  kill();
  std::string log;
  if (!launch_and_wait(&log)) {
    throw std::runtime_error("redis-server did not restart on port " + std::to_string(port_) +
                             "; its log:\n" + log);
  }
}

void RedisServer::pause() {
  if (pid_ > 0 && !paused_) {
    ::kill(pid_, SIGSTOP);
    paused_ = true;
  }
}

void RedisServer::resume() {
  if (pid_ > 0 && paused_) {
    ::kill(pid_, SIGCONT);
    paused_ = false;
  }
}

RedisServer::~RedisServer() {
  resume();
  kill();
  std::error_code ec;
  std::filesystem::remove_all(dir_, ec);
}

}  // namespace limitscope::test
