#pragma once
// The key table: one row per (API key, tier, model, limit) from the latest snapshot. Rows
// have an identity: an update changes the rows it finds in place (dataChanged), removes the
// rows that are gone and inserts the new ones, and never resets the model, so selection,
// scroll position and sort order survive every refresh. The source worker matches and sorts
// the rows (core/dashboard/key_table_order.h): the model applies its change list.

#include <QAbstractTableModel>
#include <QSortFilterProxyModel>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/dashboard/key_table_order.h"

namespace limitscope::ui {

class KeyTableModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  /// key_table::Column: what an operator needs in an incident first (name, tier, level, 429/s,
  /// peak, spend, burn: all within a 700-pixel dock), then the rest.
  using Column = key_table::Column;
  using enum key_table::Column;
  /// Whether any row reports `column`'s figure: what a shadow config would do (Shadow:
  /// KeyRow::shadow_would_refuse_in_view), its spend (Spend) or quota burn (QuotaBurn); other
  /// columns: true. A column no row reports is hidden (KeyTableView::showReportedColumns).
  static bool anyReports(const std::vector<KeyRow>& rows, Column column);
  /// Role holding the sparkline (QVariantList of doubles, oldest first) of the Trend column.
  static constexpr int SparklineRole = Qt::UserRole + 1;
  /// Role holding the raw number behind a formatted cell, for sorting.
  static constexpr int SortRole = Qt::UserRole + 2;

  explicit KeyTableModel(QObject* parent = nullptr);

  /// Takes a refresh's rows: works out what changed and the sort order itself, then
  /// publishes only the rows that changed, were removed or added (one layout change, only
  /// when a row moved).
  void setRows(const std::vector<KeyRow>& rows);
  /// Takes a snapshot's rows (kept, not copied) with the worker's change list
  /// (DashboardSnapshot::key_update): applied as it is when it starts from the rows shown and
  /// is sorted as the table is; otherwise the model works it out (a snapshot skipped, a sort
  /// the worker has not seen yet).
  void setRows(std::shared_ptr<const std::vector<KeyRow>> rows, const KeyTableUpdate* update);
  /// Sorts the rows by a column (what SortRole holds) and keeps them so on every refresh.
  /// The model sorts itself: a proxy's sort of 10,000 rows compares 100,000s of QVariants on
  /// each refresh (see KeyFilterProxy). Emits sortChanged, for the worker.
  void sort(int column, Qt::SortOrder order = Qt::AscendingOrder) override;
  const KeySort& keySort() const { return m_sort; }
  const KeyRow* rowAt(int row) const;
  /// Row of an API key + model, or -1.
  int findRow(const QString& api_key, const QString& model) const;
  /// Compact text for a narrow table (KeyTableView): Level as a percentage of capacity
  /// ("1.5%"; the amounts are its tooltip), "Peak" for "Peak 429/s" and the Shadow count alone.
  void setCompact(bool compact);
  bool isCompact() const { return m_compact; }
  /// The Key column reads as key_qualified_name() ("campus-tutor/gemini-2.5-flash/requests"):
  /// the view sets it while its Model or Limit column is out of view, so two rows of one
  /// tenant on two limits never look alike. Emits sortChanged (the Key column sorts by it).
  void setQualified(bool qualified);
  bool isQualified() const { return m_sort.qualified; }
  /// The text a row is known by: its name, else its key.
  static QString displayName(const KeyRow& r);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

 signals:
  /// The sort column, order or the Key column's text changed: the worker sorts by it from now on.
  void sortChanged(const limitscope::KeySort& sort);

 private:
  /// "0.9 / 60", "800,000 / 2,000,000": what is left of what the key holds.
  static QString levelAmounts(const KeyRow& r);
  const KeyRow& row(int r) const { return (*m_rows)[m_order[static_cast<std::size_t>(r)]]; }
  /// The shown rows again, in the order `m_sort` gives.
  void resort();
  /// Publishes `change` from the rows shown to `rows`: removals, one layout change when kept
  /// rows moved, insertions, then dataChanged per run of changed rows.
  void apply(std::shared_ptr<const std::vector<KeyRow>> rows, const KeyTableChange& change);

  std::shared_ptr<const std::vector<KeyRow>> m_rows;  // the snapshot's rows, in its order
  std::vector<std::uint32_t> m_order;                 // table position → index in m_rows
  std::uint64_t m_revision = 0;  // the worker's update shown; 0: an order the model made
  KeySort m_sort;
  bool m_compact = false;
};

/// The key table's text filter. Sorting is left to KeyTableModel (a click on a header sorts
/// the model), so the proxy keeps the model's order and only hides rows.
class KeyFilterProxy : public QSortFilterProxyModel {
  Q_OBJECT
 public:
  using QSortFilterProxyModel::QSortFilterProxyModel;
  void sort(int column, Qt::SortOrder order = Qt::AscendingOrder) override;
};

}  // namespace limitscope::ui
