#pragma once
// A program running in the background for end-to-end tests (a gateway, a redis-server): its
// stdout is a pipe the test reads line by line (e.g. "listening on 127.0.0.1:PORT"), its
// stderr goes to a per-process temp file. The destructor stops it (SIGTERM, then SIGKILL)
// and reaps it, so a failing test never leaves a process behind.

#include <sys/types.h>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace limitscope::test {

class ChildProcess {
 public:
  /// Starts `program` with `args` (no shell). @return nullptr when it could not be started.
  static std::unique_ptr<ChildProcess> start(const std::string& program,
                                             const std::vector<std::string>& args);
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  /// The next stdout line (without '\n'), waiting for it at most `timeout` (a safety net for
  /// a broken child, not a pacing delay); nullopt on timeout or end of output.
  std::optional<std::string> read_line(
      std::chrono::milliseconds timeout = std::chrono::seconds(10));
  /// Sends a signal (SIGHUP, SIGTERM, SIGSTOP...).
  void signal(int sig) const;
  /// Waits for the exit. @return the exit code, or -1 when it died of a signal.
  int wait();
  pid_t pid() const { return pid_; }
  /// What it wrote to stderr so far.
  std::string stderr_text() const;

 private:
  ChildProcess() = default;
  pid_t pid_ = -1;
  int stdout_fd_ = -1;
  std::string buffered_;
  std::string stderr_path_;
  bool reaped_ = false;
  int exit_code_ = -1;
};

/// A limitscope-gateway started on 127.0.0.1:0 with extra arguments; port() is the one it
/// printed. ASSERTs (fails the test) when it does not start.
class GatewayProcess {
 public:
  /// @param env more environment ("NAME=value"), e.g. FakeClock::env()
  explicit GatewayProcess(const std::vector<std::string>& args,
                          const std::vector<std::string>& env = {});
  bool running() const { return process_ != nullptr && port_ > 0; }
  int port() const { return port_; }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  ChildProcess& process() { return *process_; }

 private:
  std::unique_ptr<ChildProcess> process_;
  int port_ = 0;
};

}  // namespace limitscope::test
