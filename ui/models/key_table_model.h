#pragma once
// The key table: one row per (API key, model) from the latest snapshot. Rows keep their
// identity across updates (dataChanged, not a reset) so selection and sorting survive.

#include <QAbstractTableModel>

#include <vector>

#include "core/sources/dashboard_snapshot.h"

namespace limitscope::ui {

class KeyTableModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column { Key, Tier, Model, Algorithm, Level, Occupancy, Rejected, Spend, QuotaBurn, LastSeen, Trend, ColumnCount };
  /// Role holding the sparkline (QVariantList of doubles, oldest first) of the Trend column.
  static constexpr int SparklineRole = Qt::UserRole + 1;
  /// Role holding the raw number behind a formatted cell, for sorting.
  static constexpr int SortRole = Qt::UserRole + 2;

  explicit KeyTableModel(QObject* parent = nullptr);

  void setRows(std::vector<KeyRow> rows);
  const KeyRow* rowAt(int row) const;
  /// Row of an API key + model, or -1.
  int findRow(const QString& api_key, const QString& model) const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

 private:
  std::vector<KeyRow> m_rows;
  qint64 m_now = 0;
};

}  // namespace limitscope::ui
