#pragma once
// A real Prometheus (Debian package prometheus) for end-to-end tests: it scrapes one target on
// loopback every second, optionally evaluating a rule file, with its data in a temp directory.
// It scrapes the target through a relay in the test process (ScrapeRelay), so a test waits on
// scrapes, events, with recheck_on_scrapes; the ChildProcess stops it.

#include <httplib.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "support/child_process.h"
#include "support/ports.h"
#include "support/process.h"

namespace limitscope::test {

/// An HTTP server on a free loopback port that answers GET /metrics with the target's
/// /metrics, counting the scrapes: Prometheus appends and commits a scrape's samples before it
/// starts the next scrape of the target, so once scrape k+1 arrives, scrape k is queryable.
class ScrapeRelay {
 public:
  explicit ScrapeRelay(int target_port) {
    server_.Get("/metrics", [this, target_port](const httplib::Request&, httplib::Response& res) {
      {
        const std::lock_guard lock(mu_);
        ++scrapes_;
      }
      scraped_.notify_all();
      httplib::Client target("127.0.0.1", target_port);
      auto r = target.Get("/metrics");
      if (!r) {
        res.status = 502;
        return;
      }
      res.status = r->status;
      res.set_content(r->body, r->get_header_value("Content-Type").c_str());
    });
    port_ = server_.bind_to_any_port("127.0.0.1");  // listening: scrapes queue until accepted
    thread_ = std::thread([this] { server_.listen_after_bind(); });
  }
  ~ScrapeRelay() {
    server_.stop();
    thread_.join();
  }
  ScrapeRelay(const ScrapeRelay&) = delete;
  ScrapeRelay& operator=(const ScrapeRelay&) = delete;

  int port() const { return port_; }
  std::uint64_t scrapes() const {
    const std::lock_guard lock(mu_);
    return scrapes_;
  }
  /// Blocks until more than `seen` scrapes have arrived, or `deadline` (a safety net) passes.
  bool wait_past(std::uint64_t seen, std::chrono::steady_clock::time_point deadline) const {
    std::unique_lock lock(mu_);
    return scraped_.wait_until(lock, deadline, [&] { return scrapes_ > seen; });
  }

 private:
  httplib::Server server_;
  int port_ = -1;
  std::thread thread_;
  mutable std::mutex mu_;
  mutable std::condition_variable scraped_;
  std::uint64_t scrapes_ = 0;
};

struct PrometheusProcess {
  std::unique_ptr<ScrapeRelay> relay;     // the scrape target Prometheus is given
  std::unique_ptr<ChildProcess> process;  // nullptr when it could not be started; stops first
  std::string base_url;                   // http://127.0.0.1:PORT

  /// @param name distinguishes the temp config and data directory of one test
  /// @param target_port the port whose /metrics Prometheus scrapes (through the relay)
  /// @param rules a rule file path, or empty for none
  static PrometheusProcess start(const std::string& name, int target_port,
                                 const std::string& rules = {}) {
    PrometheusProcess p;
    p.relay = std::make_unique<ScrapeRelay>(target_port);
    const std::string config = write_temp(
        name + ".yml", "global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n" +
                           (rules.empty() ? std::string() : "rule_files: ['" + rules + "']\n") +
                           "scrape_configs:\n  - job_name: gateway\n    static_configs:\n"
                           "      - targets: ['127.0.0.1:" +
                           std::to_string(p.relay->port()) + "']\n");
    const int port = free_loopback_port();
    p.process = ChildProcess::start(
        "/usr/bin/prometheus",
        {"--config.file=" + config, "--storage.tsdb.path=" + temp_path(name + "-data"),
         "--web.listen-address=127.0.0.1:" + std::to_string(port), "--log.level=warn"});
    p.base_url = "http://127.0.0.1:" + std::to_string(port);
    return p;
  }

  /// Checks `done` now and again each time Prometheus starts another scrape (the previous one
  /// is queryable then), blocking on the scrape events in between, until `done` holds. The
  /// limit only guards against a broken Prometheus.
  /// @return whether `done` returned true
  bool recheck_on_scrapes(const std::function<bool()>& done,
                          std::chrono::seconds limit = std::chrono::seconds(60)) const {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    for (;;) {
      const std::uint64_t seen = relay->scrapes();
      if (done()) return true;
      if (!relay->wait_past(seen, deadline)) return false;
    }
  }
};

}  // namespace limitscope::test
