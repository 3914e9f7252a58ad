#include "ui/models/key_table_model.h"

#include <QColor>
#include <QDateTime>

namespace limitscope::ui {

KeyTableModel::KeyTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void KeyTableModel::setRows(std::vector<KeyRow> rows) {
  bool same_keys = rows.size() == m_rows.size();
  for (std::size_t i = 0; same_keys && i < rows.size(); ++i) {
    same_keys = rows[i].api_key == m_rows[i].api_key && rows[i].model == m_rows[i].model;
  }
  if (same_keys) {
    m_rows = std::move(rows);
    if (!m_rows.empty()) {
      emit dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
    }
    return;
  }
  beginResetModel();
  m_rows = std::move(rows);
  endResetModel();
}

const KeyRow* KeyTableModel::rowAt(int row) const {
  if (row < 0 || row >= rowCount()) return nullptr;
  return &m_rows[static_cast<std::size_t>(row)];
}

int KeyTableModel::findRow(const QString& api_key, const QString& model) const {
  for (std::size_t i = 0; i < m_rows.size(); ++i) {
    if (QString::fromStdString(m_rows[i].api_key) == api_key &&
        QString::fromStdString(m_rows[i].model) == model) {
      return static_cast<int>(i);
    }
  }
  return -1;
}

int KeyTableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int KeyTableModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant KeyTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case Key: return tr("Key");
    case Tier: return tr("Tier");
    case Model: return tr("Model");
    case Algorithm: return tr("Algorithm");
    case Level: return tr("Level / capacity");
    case Occupancy: return tr("Occupancy");
    case Rejected: return tr("429/s");
    case Spend: return tr("Spend");
    case QuotaBurn: return tr("Quota burn");
    case LastSeen: return tr("Last seen");
    case Trend: return tr("Level trend");
    default: return {};
  }
}

QVariant KeyTableModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount() || index.column() >= ColumnCount) return {};
  const KeyRow& r = m_rows[static_cast<std::size_t>(index.row())];
  const int col = index.column();
  if (role == SortRole) {
    switch (col) {
      case Level: return r.level;
      case Occupancy: return r.occupancy.value_or(-1.0);
      case Rejected: return r.rejected_per_s;
      case Spend: return r.spend;
      case QuotaBurn: return r.quota_burn;
      case LastSeen: return QVariant::fromValue<qlonglong>(r.last_seen_ms);
      default: return data(index, Qt::DisplayRole);
    }
  }
  if (role == SparklineRole && col == Trend) {
    QVariantList values;
    values.reserve(static_cast<qsizetype>(r.sparkline.size()));
    for (double v : r.sparkline) values.append(v);
    return values;
  }
  if (role == Qt::TextAlignmentRole && col >= Level && col <= LastSeen) {
    return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
  }
  if (role == Qt::ForegroundRole) {
    if ((col == Level && r.level < 0.1) || (col == Rejected && r.rejected_per_s > 0.5) ||
        (col == QuotaBurn && r.quota_burn > 0.8)) {
      return QColor(220, 50, 47);
    }
    return {};
  }
  if (role == Qt::ToolTipRole) return QString::fromStdString(r.parameters);
  if (role != Qt::DisplayRole) return {};
  switch (col) {
    case Key: return QString::fromStdString(r.api_key);
    case Tier: return QString::fromStdString(r.tier);
    case Model: return QString::fromStdString(r.model);
    case Algorithm: return QString::fromStdString(r.algorithm);
    case Level:
      // Rows of gateway metrics carry rates, not levels (no capacity known).
      if (r.capacity <= 0) return QStringLiteral("–");
      return QStringLiteral("%1 / %2").arg(r.level * r.capacity, 0, 'f', 1).arg(r.capacity, 0, 'g', 6);
    case Occupancy:
      return r.occupancy ? QStringLiteral("%1%").arg(*r.occupancy * 100, 0, 'f', 1) : QStringLiteral("–");
    case Rejected: return QString::number(r.rejected_per_s, 'f', 1);
    case Spend: return QStringLiteral("$%1").arg(r.spend, 0, 'f', 2);
    case QuotaBurn: return QStringLiteral("%1%").arg(r.quota_burn * 100, 0, 'f', 1);
    case LastSeen:
      return r.last_seen_ms > 0
                 ? QDateTime::fromMSecsSinceEpoch(r.last_seen_ms).toString(QStringLiteral("HH:mm:ss"))
                 : QStringLiteral("–");
    default: return {};
  }
}

}  // namespace limitscope::ui
