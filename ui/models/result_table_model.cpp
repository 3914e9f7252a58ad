#include "ui/models/result_table_model.h"

#include <QBrush>
#include <QColor>

namespace limitscope::ui {

ResultTableModel::ResultTableModel(QObject* parent) : FlatTableModel({}, parent) {}

void ResultTableModel::setTable(ResultTable table) {
  beginResetModel();
  m_table = std::move(table);
  QStringList titles;
  for (const auto& c : m_table.columns) titles << QString::fromStdString(c);
  setTitles(std::move(titles));
  endResetModel();
}

QString ResultTableModel::text(int row, int column) const {
  if (row < 0 || row >= rowCount() || column < 0) return {};
  const auto& cells = m_table.rows[static_cast<std::size_t>(row)].cells;
  return static_cast<std::size_t>(column) < cells.size()
             ? QString::fromStdString(cells[static_cast<std::size_t>(column)])
             : QString();
}

bool ResultTableModel::isFlagged(int row) const {
  return row >= 0 && row < rowCount() && m_table.rows[static_cast<std::size_t>(row)].flagged;
}

int ResultTableModel::rows() const {
  return static_cast<int>(m_table.rows.size());
}

QVariant ResultTableModel::data(const QModelIndex& index, int role) const {
  if (!isCell(index)) return {};
  const ResultTable::Row& row = m_table.rows[static_cast<std::size_t>(index.row())];
  switch (role) {
    case Qt::DisplayRole:
      return text(index.row(), index.column());
    case Qt::ToolTipRole:
      return row.detail.empty() ? QVariant() : QVariant(QString::fromStdString(row.detail));
    case Qt::ForegroundRole:
      return row.flagged ? QVariant(QBrush(QColor(0xdc, 0x32, 0x2f))) : QVariant();
    default:
      return {};
  }
}

}  // namespace limitscope::ui
