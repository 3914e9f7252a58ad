#pragma once
// bench-probe's dashboard run: the live source the dashboard opens (open_live_source, the same
// profiles, budgets and session state), driven in real time on the worker's 100 ms tick with a
// snapshot whenever something changed, while keys are emptied at random moments. It measures
// what an operator pays and gets: the process's CPU per second, the server's CPU per second
// (INFO cpu) and how long an emptied key takes to reach the top rows.

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/common/expected.h"
#include "core/redis/connection.h"

namespace limitscope::cli {

struct DashboardRunOptions {
  int port = 0;               ///< the private redis-server
  std::string profiles_file;  ///< the profile of the seeded keys
  std::string match;          ///< SCAN MATCH
  std::string key_prefix;     ///< seeded keys are key_prefix + 0 .. keys − 1
  long long keys = 0;
  double seconds = 30;        ///< length of the run
  int emptied = 20;           ///< keys emptied at random moments
  std::size_t top_rows = 10;  ///< "in the top rows": among the first this many
  unsigned seed = 1;
  bool pressure_index = true;  ///< off: the dashboard finds keys by SCAN alone
  /// The dashboard's URL; empty: redis://127.0.0.1:<port>.
  std::string url;
  /// Key i of the seeded keys; unset: key_prefix + i.
  std::function<std::string(long long i)> key_name;
  /// The servers' CPU seconds so far; unset: INFO cpu of `admin`.
  std::function<Expected<double>()> server_cpu;
  /// Empties one seeded key; @return ok, or why not. Unset: HSET tokens 0, ts now (the
  /// foreign hashes).
  std::function<Status(const std::string& key)> empty;
};

struct DashboardRunResult {
  double wall_s = 0;
  double cpu_s = 0;         ///< this process (the dashboard side), user + system
  double server_cpu_s = 0;  ///< redis-server, INFO cpu
  std::uint64_t refreshes = 0;
  std::uint64_t scanned = 0;       ///< keys SCAN returned over the run (discovery's progress)
  double discovery_cpu_s = 0;      ///< ... and the dashboard's CPU discovery took (its budget's)
  std::vector<double> refresh_ms;  ///< wall time of each refresh (advance that refreshed)
  std::vector<double> seen_ms;     ///< per emptied key seen: emptied → in the top rows
  int unseen = 0;                  ///< emptied keys not in the top rows by the end
  std::vector<std::string> unseen_where;  ///< each of those emptied: when, and its row at the end
  std::size_t tracked = 0;                ///< keys the last refresh read
  std::size_t series = 0;                 ///< series in the session's store at the end
};

/// Runs the dashboard against the server for options.seconds of real time. `admin` empties
/// the keys unless options.empty does.
Expected<DashboardRunResult> run_dashboard(redis::Connection& admin,
                                           const DashboardRunOptions& options);

/// The q-quantile of `v` (the sample at rank ⌊n·q⌋), 0 for none.
double quantile(std::vector<double> v, double q);

/// The run's figures under bench-probe's JSON names (docs/cli.md), and as text lines.
nlohmann::json dashboard_json(const DashboardRunResult& r, int emptied);
void print_dashboard(const DashboardRunResult& r, int emptied);

}  // namespace limitscope::cli
