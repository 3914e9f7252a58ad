#include "support/redis_monitor.h"

namespace limitscope::test {

RedisMonitor::RedisMonitor(int port) : conn_(port) {
  conn_.send("MONITOR\r\n");
  ok_ = conn_.read_until(
      received_, [](const std::string& r) { return r.find("+OK\r\n") != std::string::npos; },
      std::chrono::seconds(10));
  seen_ = received_.find("+OK\r\n") + 5;
}

bool RedisMonitor::wait_for_command(const std::vector<std::string>& names,
                                    std::chrono::milliseconds deadline) {
  // A report line: 1700000000.123456 [0 127.0.0.1:5000] "FCALL" "arg" ...
  std::size_t match = std::string::npos;
  const auto find = [&](const std::string& r) {
    for (const auto& name : names) {
      const std::size_t at = r.find("] \"" + name + "\"", seen_);
      if (at != std::string::npos && (match == std::string::npos || at < match)) match = at;
    }
    return match != std::string::npos;
  };
  if (!ok_ || !conn_.read_until(received_, find, deadline)) return false;
  seen_ = received_.find('\n', match);
  seen_ = seen_ == std::string::npos ? received_.size() : seen_ + 1;
  return true;
}

}  // namespace limitscope::test
