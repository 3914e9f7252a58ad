#include "ui/models/flat_table_model.h"

namespace limitscope::ui {

FlatTableModel::FlatTableModel(QStringList titles, QObject* parent)
    : QAbstractTableModel(parent), m_titles(std::move(titles)) {}

int FlatTableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : rows();
}

int FlatTableModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_titles.size());
}

QVariant FlatTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole || section < 0 ||
      section >= m_titles.size()) {
    return {};
  }
  return m_titles[section];
}

bool FlatTableModel::isCell(const QModelIndex& index) const {
  return index.isValid() && index.row() < rowCount() && index.column() < columnCount();
}

}  // namespace limitscope::ui
