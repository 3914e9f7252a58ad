#pragma once
// A real Prometheus (Debian package prometheus) for end-to-end tests: it scrapes one target on
// loopback every second, optionally evaluating a rule file, with its data in a temp directory.
// The test waits for what it needs with poll_until; the ChildProcess stops it.

#include <algorithm>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "support/child_process.h"
#include "support/ports.h"
#include "support/process.h"

namespace limitscope::test {

struct PrometheusProcess {
  std::unique_ptr<ChildProcess> process;  // nullptr when it could not be started
  std::string base_url;                   // http://127.0.0.1:PORT

  /// @param name distinguishes the temp config and data directory of one test
  /// @param rules a rule file path, or empty for none
  static PrometheusProcess start(const std::string& name, int target_port, const std::string& rules = {}) {
    const std::string config = write_temp(name + ".yml",
                                          "global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n" +
                                              (rules.empty() ? std::string() : "rule_files: ['" + rules + "']\n") +
                                              "scrape_configs:\n  - job_name: gateway\n    static_configs:\n"
                                              "      - targets: ['127.0.0.1:" +
                                              std::to_string(target_port) + "']\n");
    const int port = free_loopback_port();
    PrometheusProcess p;
    p.process = ChildProcess::start("/usr/bin/prometheus",
                                    {"--config.file=" + config, "--storage.tsdb.path=" + temp_path(name + "-data"),
                                     "--web.listen-address=127.0.0.1:" + std::to_string(port), "--log.level=warn"});
    p.base_url = "http://127.0.0.1:" + std::to_string(port);
    return p;
  }
};

/// Calls `done` until it returns true or `limit` passes, pausing 100 ms, then twice as long
/// each time up to 1 s: waiting on an external process's condition (a scrape landing, a rule
/// loading), where there is no clock to inject. The limit only guards against a broken process.
/// @return whether `done` returned true
inline bool poll_until(const std::function<bool()>& done, std::chrono::seconds limit = std::chrono::seconds(60)) {
  auto pause = std::chrono::milliseconds(100);
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    if (done()) return true;
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(1000));
  }
  return false;
}

}  // namespace limitscope::test
