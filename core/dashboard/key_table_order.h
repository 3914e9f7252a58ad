#pragma once
// The key table's order, and what changed from one refresh's rows to the next, computed where
// the rows are made: the source worker matches 10,000 rows to the last refresh's, sorts them
// by the operator's column and lists what moved, so the GUI thread applies a ready change list
// (ui/models/key_table_model.h) instead of comparing and sorting them itself. Plain data, no Qt.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/dashboard/dashboard_snapshot.h"

namespace limitscope {

namespace key_table {
/// The key table's columns, in the order the view shows them: what an operator needs in an
/// incident first (name, tier, level, 429/s, peak, spend, burn), then what tells rows apart
/// (model, limit), then the rest.
enum Column : int {
  Key,
  Tier,
  Level,
  Rejected,
  PeakRejected,
  Shadow,
  Spend,
  QuotaBurn,
  Model,
  Limit,
  Algorithm,
  Occupancy,
  LastSeen,
  Trend,
  ColumnCount
};
}  // namespace key_table

/// How the key table is sorted.
struct KeySort {
  int column = -1;  // a key_table::Column; -1: rows keep their places, new rows are appended
  bool ascending = true;
  /// The Key column reads as key_qualified_name() (the Model and Limit columns out of view).
  bool qualified = false;
  bool operator==(const KeySort&) const = default;
};

/// The text a row is known by: its name, else its key.
std::string key_display_name(const KeyRow& r);
/// "campus-tutor/gemini-2.5-flash/llm_tokens": a row told apart without the model and limit
/// columns (a narrow table hides them, a wide one may have them out of view): two rows of one
/// tenant on two limits read apart, the limit last so a name elided in the middle keeps it.
std::string key_qualified_name(const KeyRow& r);
/// What tells a row apart from the others (key, tier, model, limit, shard, algorithm).
std::string key_identity(const KeyRow& r);
bool same_key_identity(const KeyRow& a, const KeyRow& b);
/// The number a figure column sorts by (a figure the source does not report sorts below every
/// reported one); nullopt for text columns, which sort by their text (key_sort_text).
std::optional<double> key_sort_number(const KeyRow& r, int column);
std::string key_sort_text(const KeyRow& r, int column, bool qualified);

/// From one refresh's rows ("before", in the table's order) to the next ("after").
struct KeyTableChange {
  /// Table position → index in the new rows.
  std::vector<std::uint32_t> order;
  /// Table position → the row's table position before, or -1 for a row added.
  std::vector<std::int32_t> before;
  /// Table positions (before) of the rows gone, ascending.
  std::vector<std::uint32_t> removed;
  /// Table positions (after) of the rows kept whose figures changed, ascending.
  std::vector<std::uint32_t> changed;
  /// Whether the rows kept changed their order among themselves.
  bool moved = false;
};

/// Matches `after` to `before` (shown in `before_order`: table position → index in `before`)
/// by identity, orders it by `sort` (stable: rows that compare equal keep their places, and
/// new rows come after the kept ones in the source's order), and lists what changed.
KeyTableChange diff_key_table(const std::vector<KeyRow>& before,
                              const std::vector<std::uint32_t>& before_order,
                              const std::vector<KeyRow>& after, const KeySort& sort);
/// The same, to an order already made (`order`: table position → index in `after`), e.g. the
/// worker's, when the table missed the refresh the worker's change list starts from.
KeyTableChange diff_key_table_to(const std::vector<KeyRow>& before,
                                 const std::vector<std::uint32_t>& before_order,
                                 const std::vector<KeyRow>& after,
                                 std::vector<std::uint32_t> order);

/// A snapshot's key rows in the table's order, relative to an earlier snapshot's.
struct KeyTableUpdate {
  std::uint64_t base = 0;      // the revision `change` starts from; 0: none (the first)
  std::uint64_t revision = 0;  // this snapshot's, from 1
  KeySort sort;                // what `change.order` is sorted by
  KeyTableChange change;
};

/// The source worker's side: keeps the last snapshot published and gives each new one its
/// KeyTableUpdate (DashboardSnapshot::key_update).
class KeyTablePublisher {
 public:
  /// The operator's sort, from the next snapshot on.
  void set_sort(const KeySort& sort) { m_sort = sort; }
  const KeySort& sort() const { return m_sort; }
  void annotate(const std::shared_ptr<DashboardSnapshot>& snapshot);

 private:
  std::shared_ptr<const DashboardSnapshot> m_last;
  std::vector<std::uint32_t> m_order;  // of m_last->keys
  std::uint64_t m_revision = 0;
  KeySort m_sort;
};

}  // namespace limitscope
