#include "support/child_process.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>

#include "support/process.h"
#include "support/test_paths.h"

extern char** environ;

namespace limitscope::test {

std::unique_ptr<ChildProcess> ChildProcess::start(const std::string& program,
                                                  const std::vector<std::string>& args) {
  static std::atomic<int> counter{0};
  std::unique_ptr<ChildProcess> child(new ChildProcess());
  child->stderr_path_ = temp_path("child_" + std::to_string(counter.fetch_add(1)) + ".stderr");
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return nullptr;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, child->stderr_path_.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(program.c_str()));
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  const int rc =
      posix_spawn(&child->pid_, program.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  if (rc != 0) {
    close(fds[0]);
    return nullptr;
  }
  child->stdout_fd_ = fds[0];
  return child;
}

ChildProcess::~ChildProcess() {
  if (!reaped_ && pid_ > 0) {
    kill(pid_, SIGCONT);  // a stopped child cannot act on SIGTERM
    kill(pid_, SIGTERM);
    // Give it a bounded chance to exit cleanly, then make sure.
    for (int i = 0; i < 200; ++i) {
      if (waitpid(pid_, nullptr, WNOHANG) == pid_) {
        reaped_ = true;
        break;
      }
      pollfd none{};
      poll(&none, 0, 10);
    }
    if (!reaped_) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }
  if (stdout_fd_ >= 0) close(stdout_fd_);
}

std::optional<std::string> ChildProcess::read_line(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    if (auto nl = buffered_.find('\n'); nl != std::string::npos) {
      std::string line = buffered_.substr(0, nl);
      buffered_.erase(0, nl + 1);
      return line;
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return std::nullopt;
    pollfd p{stdout_fd_, POLLIN, 0};
    const int r = poll(&p, 1, static_cast<int>(left.count()));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return std::nullopt;
    char buf[4096];
    const ssize_t n = read(stdout_fd_, buf, sizeof buf);
    if (n <= 0) return std::nullopt;
    buffered_.append(buf, static_cast<std::size_t>(n));
  }
}

void ChildProcess::signal(int sig) const {
  if (!reaped_ && pid_ > 0) kill(pid_, sig);
}

int ChildProcess::wait() {
  if (!reaped_) {
    int status = 0;
    if (waitpid(pid_, &status, 0) == pid_) {
      exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    }
    reaped_ = true;
  }
  return exit_code_;
}

std::string ChildProcess::stderr_text() const {
  return read_file(stderr_path_);
}

GatewayProcess::GatewayProcess(const std::vector<std::string>& args,
                               const std::vector<std::string>& env) {
  std::vector<std::string> all = {"--listen", "127.0.0.1:0"};
  all.insert(all.end(), args.begin(), args.end());
  if (env.empty()) {
    process_ = ChildProcess::start(binary_path("app/limitscope-gateway"), all);
  } else {  // env(1) sets them, then runs the gateway (same process)
    all.insert(all.begin(), binary_path("app/limitscope-gateway"));
    all.insert(all.begin(), env.begin(), env.end());
    process_ = ChildProcess::start("/usr/bin/env", all);
  }
  if (process_ == nullptr) {
    ADD_FAILURE() << "cannot start limitscope-gateway";
    return;
  }
  auto line = process_->read_line();
  constexpr std::string_view kPrefix = "listening on 127.0.0.1:";
  if (!line || line->rfind(kPrefix, 0) != 0) {
    ADD_FAILURE() << "limitscope-gateway did not print its address; stdout: "
                  << line.value_or("<none>") << "; stderr: " << process_->stderr_text();
    return;
  }
  port_ = std::stoi(line->substr(kPrefix.size()));
}

}  // namespace limitscope::test
