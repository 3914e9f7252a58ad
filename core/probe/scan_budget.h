#pragma once
// How much of the keyspace one refresh may SCAN: discovery gets a share of each refresh's time
// and a share of the dashboard's CPU (not a fixed number of calls), each measured on the clock
// the probe is given. A small keyspace is scanned whole at every refresh, so a new key is found
// at the next one; a large one is scanned a slice per refresh, as large as both shares allow,
// so a full pass over 1,000,000 keys takes as few refreshes as the server's speed and the
// dashboard's CPU permit without a refresh ever blocking on one long SCAN. The two shares
// guard different things: the time share keeps a refresh short on a slow server; the CPU share
// keeps the dashboard light on a fast one, where SCAN returns keys quicker than the dashboard
// can cheaply track and read them. Pure arithmetic: the probe reports what a refresh's
// discovery cost (the SCAN calls' wall time, the CPU its newly found keys took), this says how
// many keys (SCAN COUNT units) the next refresh may ask for.

#include <cstddef>

#include "core/common/clock.h"

namespace limitscope::probe {

struct ScanBudgetOptions {
  /// Discovery's share of one refresh: the SCAN calls' wall time (round trips included).
  Nanos time_per_refresh = std::chrono::milliseconds(100);
  /// Discovery's share of the dashboard's CPU per refresh: the CPU its SCAN replies and its
  /// newly found keys (tracking, reading, decoding them) take on the probe's thread.
  Nanos cpu_per_refresh = std::chrono::milliseconds(50);
  /// Keys (SCAN COUNT units) per refresh, at least: discovery progresses on a slow server.
  std::size_t min_keys = 1000;
  /// ... and at most: bounds what one refresh reads of newly found keys.
  std::size_t max_keys = 100000;
  /// The first refresh's budget, before any cost is known.
  std::size_t initial_keys = 10000;
};

/// What one refresh's discovery cost.
struct ScanCost {
  Nanos wall{0};  ///< the SCAN calls, as they took (server time and round trips)
  Nanos cpu{0};   ///< the dashboard's CPU for them and the keys they found
};

class ScanBudget {
 public:
  explicit ScanBudget(ScanBudgetOptions options = {});

  /// SCAN COUNT units the next refresh may ask for, in [min_keys, max_keys].
  std::size_t keys() const { return keys_; }
  /// A refresh asked for `asked` COUNT units at `cost`. The next budget is the smaller of what
  /// fits time_per_refresh at the wall cost per unit seen and what fits cpu_per_refresh at the
  /// CPU cost per unit seen (each smoothed over refreshes), at most twice this one (a single
  /// cheap refresh does not open the gates), within the bounds. A cost of zero caps nothing.
  void observe(ScanCost cost, std::size_t asked);
  /// New bounds and shares (a cluster that gained or lost a master): the costs learnt so far
  /// are kept, the budget brought within the new bounds; the same options change nothing.
  void reshape(ScanBudgetOptions options);
  /// `options` split evenly between `parts` scanners (a cluster's masters, scanned at once):
  /// together they take one share of a refresh's time, CPU and keys, not one share each.
  static ScanBudgetOptions split(ScanBudgetOptions options, std::size_t parts);
  const ScanBudgetOptions& options() const { return options_; }

 private:
  ScanBudgetOptions options_;
  std::size_t keys_;
  double wall_ns_per_key_ = -1;  // smoothed wall cost per COUNT unit; < 0 until observed
  double cpu_ns_per_key_ = -1;   // smoothed CPU cost per COUNT unit; likewise
};

}  // namespace limitscope::probe
