#pragma once
// The key table: one row per (API key, tier, model, limit) from the latest snapshot. Rows
// have an identity: an update changes the rows it finds in place (dataChanged), removes the
// rows that are gone and appends the new ones, and never resets the model, so selection,
// scroll position and sort order survive every refresh.

#include <QAbstractTableModel>
#include <QSortFilterProxyModel>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/sources/dashboard_snapshot.h"

namespace limitscope::ui {

class KeyTableModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  /// What an operator needs in an incident first (name, tier, level, 429/s, peak, spend,
  /// burn: all within a 700-pixel dock), then the rest.
  enum Column {
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
  /// Whether any row says what a shadow config would do (KeyRow::shadow_would_refuse_in_view):
  /// the Shadow column is shown only then.
  static bool anyShadow(const std::vector<KeyRow>& rows);
  /// Role holding the sparkline (QVariantList of doubles, oldest first) of the Trend column.
  static constexpr int SparklineRole = Qt::UserRole + 1;
  /// Role holding the raw number behind a formatted cell, for sorting.
  static constexpr int SortRole = Qt::UserRole + 2;

  explicit KeyTableModel(QObject* parent = nullptr);

  /// Takes a refresh's rows: publishes only the rows that changed, were removed or added, then
  /// keeps the sort order (one layout change, only when a row moved).
  void setRows(const std::vector<KeyRow>& rows);
  /// Sorts the rows by a column (what SortRole holds) and keeps them so on every refresh.
  /// The model sorts itself: a proxy's sort of 10,000 rows compares 100,000s of QVariants on
  /// each refresh (see KeyFilterProxy).
  void sort(int column, Qt::SortOrder order = Qt::AscendingOrder) override;
  const KeyRow* rowAt(int row) const;
  /// Row of an API key + model, or -1.
  int findRow(const QString& api_key, const QString& model) const;
  /// Compact text for a narrow table (KeyTableView): the name with the model (and a limit
  /// other than requests) its hidden columns held, Level as a percentage of capacity ("1.5%";
  /// the amounts are its tooltip) and "Peak" for "Peak 429/s".
  void setCompact(bool compact);
  bool isCompact() const { return m_compact; }
  /// The text a row is known by: its name, else its key.
  static QString displayName(const KeyRow& r);
  /// What tells a row apart from the others (key, tier, model, limit, shard, algorithm).
  static std::string identity(const KeyRow& r);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

 private:
  /// "0.9 / 60", "800,000 / 2,000,000": what is left of what the key holds.
  static QString levelAmounts(const KeyRow& r);
  /// "campus-tutor/gemini-2.5-flash/llm_tokens": a row told apart without its hidden columns.
  static QString compactName(const KeyRow& r);
  /// Puts the rows in the sort order, keeping persistent indexes (selection) on their rows.
  void reorder();
  /// A refresh whose rows are not those of the last one, in its order: removes, updates in
  /// place and appends by identity. @return whether anything changed
  bool merge(const std::vector<KeyRow>& rows, std::vector<bool>& changed);
  static bool sameIdentity(const KeyRow& a, const KeyRow& b);
  /// The number a figure column sorts by; nullopt for text columns.
  static std::optional<double> sortNumber(const KeyRow& r, int column);

  std::vector<KeyRow> m_rows;
  std::vector<std::string> m_ids;     // identity of each row (identities() in the .cpp)
  std::vector<std::size_t> m_source;  // the last refresh's i-th row is m_rows[m_source[i]]
  bool m_compact = false;
  int m_sortColumn = -1;  // -1: rows stay where they are; new rows are appended
  Qt::SortOrder m_sortOrder = Qt::AscendingOrder;
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
