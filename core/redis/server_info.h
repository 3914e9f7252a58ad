#pragma once
// The parts of INFO a benchmark reads: per-command call counts and server time
// (INFO commandstats) and the server's CPU time (INFO cpu). Server time per call is what a
// script's cost is measured in: it is the same whatever the client machine does.

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "core/common/expected.h"

namespace limitscope::redis {

struct CommandStat {
  std::uint64_t calls = 0;
  std::uint64_t usec = 0;  ///< total server time spent in the command, µs
  double usec_per_call() const {
    return calls == 0 ? 0 : static_cast<double>(usec) / static_cast<double>(calls);
  }
};

struct ServerInfo {
  std::map<std::string, CommandStat> commands;  ///< by lower-case name ("evalsha", "incr")
  double cpu_seconds = 0;                       ///< used_cpu_sys + used_cpu_user
};

/// Parses the text of `INFO commandstats` and/or `INFO cpu` (both may be in one text).
/// Unknown lines are ignored; a malformed cmdstat_ or used_cpu_ line is an error naming it.
Expected<ServerInfo> parse_server_info(std::string_view text);

/// after − before, per command and for the CPU time (counters reset by CONFIG RESETSTAT in
/// between give nonsense: callers take `before` after the reset).
ServerInfo difference(const ServerInfo& after, const ServerInfo& before);

}  // namespace limitscope::redis
