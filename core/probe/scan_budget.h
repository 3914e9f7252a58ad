#pragma once
// How much of the keyspace one refresh may SCAN: discovery gets a share of each refresh's time
// (not a fixed number of calls), measured on the clock the probe is given. A small keyspace is
// scanned whole at every refresh, so a new key is found at the next one; a large one is scanned
// a slice per refresh, as large as the time share allows, so a full pass over 1,000,000 keys
// takes as few refreshes as the server's speed permits without a refresh ever blocking on one
// long SCAN. Pure arithmetic: the probe reports what a refresh's SCAN calls cost, this says
// how many keys (SCAN COUNT units) the next refresh may ask for.

#include <cstddef>

#include "core/common/clock.h"

namespace limitscope::probe {

struct ScanBudgetOptions {
  /// Discovery's share of one refresh: the SCAN calls' wall time (round trips included).
  Nanos time_per_refresh = std::chrono::milliseconds(100);
  /// Keys (SCAN COUNT units) per refresh, at least: discovery progresses on a slow server.
  std::size_t min_keys = 1000;
  /// ... and at most: bounds what one refresh reads of newly found keys.
  std::size_t max_keys = 100000;
  /// The first refresh's budget, before any cost is known.
  std::size_t initial_keys = 10000;
};

class ScanBudget {
 public:
  explicit ScanBudget(ScanBudgetOptions options = {});

  /// SCAN COUNT units the next refresh may ask for, in [min_keys, max_keys].
  std::size_t keys() const { return keys_; }
  /// A refresh asked for `asked` COUNT units and its SCAN calls took `spent`. The next budget
  /// is what fits time_per_refresh at the cost per unit seen (smoothed over refreshes), at
  /// most twice this one (a single fast refresh does not open the gates), within the bounds.
  void observe(Nanos spent, std::size_t asked);
  /// New bounds and time share (a cluster that gained or lost a master): the cost learnt so
  /// far is kept, the budget brought within the new bounds; the same options change nothing.
  void reshape(ScanBudgetOptions options);
  /// `options` split evenly between `parts` scanners (a cluster's masters, scanned at once):
  /// together they take one share of a refresh's time and keys, not one share each.
  static ScanBudgetOptions split(ScanBudgetOptions options, std::size_t parts);
  const ScanBudgetOptions& options() const { return options_; }

 private:
  ScanBudgetOptions options_;
  std::size_t keys_;
  double ns_per_key_ = -1;  // smoothed cost per COUNT unit; < 0 until the first observation
};

}  // namespace limitscope::probe
