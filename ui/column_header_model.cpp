#include "ui/column_header_model.h"

namespace limitscope::ui {

ColumnHeaderModel::ColumnHeaderModel(QAbstractItemModel* table, QObject* parent)
    : QAbstractTableModel(parent), m_table(table) {
  using M = QAbstractItemModel;
  // Only the table's top level has the header's columns.
  connect(table, &M::columnsAboutToBeInserted, this,
          [this](const QModelIndex& at, int first, int last) {
            if (!at.isValid()) beginInsertColumns({}, first, last);
          });
  connect(table, &M::columnsInserted, this, [this](const QModelIndex& at) {
    if (!at.isValid()) endInsertColumns();
  });
  connect(table, &M::columnsAboutToBeRemoved, this,
          [this](const QModelIndex& at, int first, int last) {
            if (!at.isValid()) beginRemoveColumns({}, first, last);
          });
  connect(table, &M::columnsRemoved, this, [this](const QModelIndex& at) {
    if (!at.isValid()) endRemoveColumns();
  });
  // A move within the top level: the header moves its sections. (Columns moved to or from a
  // child have no header here.)
  connect(table, &M::columnsAboutToBeMoved, this,
          [this](const QModelIndex& from, int first, int last, const QModelIndex& to, int column) {
            if (!from.isValid() && !to.isValid()) {
              const bool moved = beginMoveColumns({}, first, last, {}, column);
              Q_ASSERT(moved);  // the table's own move was valid, so is its copy here
              (void)moved;
            }
          });
  connect(table, &M::columnsMoved, this,
          [this](const QModelIndex& from, int, int, const QModelIndex& to) {
            if (!from.isValid() && !to.isValid()) endMoveColumns();
          });
  connect(table, &M::modelAboutToBeReset, this, [this] { beginResetModel(); });
  connect(table, &M::modelReset, this, [this] { endResetModel(); });
  connect(table, &M::headerDataChanged, this, &M::headerDataChanged);
  // Gone (m_table is null by then): no columns, and the header is told so.
  connect(table, &QObject::destroyed, this, [this] {
    beginResetModel();
    endResetModel();
  });
  // layoutAboutToBeChanged/layoutChanged are not passed on: the table's layout changes move
  // its rows (sort, filter), never its columns.
}

int ColumnHeaderModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : 1;
}

int ColumnHeaderModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() || m_table == nullptr ? 0 : m_table->columnCount();
}

QVariant ColumnHeaderModel::headerData(int section, Qt::Orientation orientation, int role) const {
  return m_table == nullptr ? QVariant() : m_table->headerData(section, orientation, role);
}

QVariant ColumnHeaderModel::data(const QModelIndex&, int) const {
  return {};
}

}  // namespace limitscope::ui
