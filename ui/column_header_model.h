#pragma once
// A horizontal header's own model: the columns of a table's model and their header data,
// without its rows. QHeaderView follows every layout change of its model as if the columns
// might have moved (it saves and restores each section), unless the change says it sorted rows
// (QAbstractItemModel::VerticalSortHint); a QSortFilterProxyModel never passes that hint on.
// Given this model (QHeaderView::setModel), the header hears of column inserts, removes and
// moves, resets and header data changes, and of no row layout change.

#include <QAbstractTableModel>
#include <QPointer>

namespace limitscope::ui {

class ColumnHeaderModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  /// Columns and header data of `table`'s top level (not owned: destroyed, it reads as no
  /// columns, announced as a reset).
  explicit ColumnHeaderModel(QAbstractItemModel* table, QObject* parent = nullptr);
  /// One empty row: the header keeps a moved section's size and hidden state by an index in
  /// it. The table's rows are not here, and move without it.
  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;

 private:
  QPointer<QAbstractItemModel> m_table;
};

}  // namespace limitscope::ui
