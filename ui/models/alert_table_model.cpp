#include "ui/models/alert_table_model.h"

#include <QColor>
#include <QDateTime>

namespace limitscope::ui {

AlertTableModel::AlertTableModel(QObject* parent) : QAbstractTableModel(parent) {}

QString AlertTableModel::identity(const AlertRow& a) {
  return QString::fromStdString(a.rule) + QString::fromStdString(a.labels) + QString::fromStdString(a.origin);
}

QStringList AlertTableModel::setAlerts(std::vector<AlertRow> alerts) {
  QSet<QString> firing;
  QStringList started;
  for (const AlertRow& a : alerts) {
    if (a.state != AlertState::firing) continue;
    const QString id = identity(a);
    firing.insert(id);
    if (!m_firing.contains(id)) started << id;
  }
  // An acknowledgement lasts until the alert stops firing.
  for (auto it = m_acknowledged.begin(); it != m_acknowledged.end();) {
    it = firing.contains(*it) ? std::next(it) : m_acknowledged.erase(it);
  }
  m_firing = firing;
  beginResetModel();
  m_alerts = std::move(alerts);
  endResetModel();
  return started;
}

void AlertTableModel::acknowledge(int row) {
  if (row < 0 || row >= rowCount()) return;
  m_acknowledged.insert(identity(m_alerts[static_cast<std::size_t>(row)]));
  emit dataChanged(index(row, 0), index(row, ColumnCount - 1));
}

bool AlertTableModel::isAcknowledged(int row) const {
  return row >= 0 && row < rowCount() &&
         m_acknowledged.contains(identity(m_alerts[static_cast<std::size_t>(row)]));
}

const AlertRow* AlertTableModel::alertAt(int row) const {
  if (row < 0 || row >= rowCount()) return nullptr;
  return &m_alerts[static_cast<std::size_t>(row)];
}

int AlertTableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_alerts.size());
}

int AlertTableModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant AlertTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case Rule: return tr("Rule");
    case State: return tr("State");
    case Since: return tr("Since");
    case Value: return tr("Value");
    case Labels: return tr("Labels");
    case Summary: return tr("Summary");
    default: return {};
  }
}

QVariant AlertTableModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount() || index.column() >= ColumnCount) return {};
  const AlertRow& a = m_alerts[static_cast<std::size_t>(index.row())];
  const bool acked = isAcknowledged(index.row());
  if (role == Qt::ForegroundRole && index.column() == State) {
    switch (a.state) {
      case AlertState::firing: return acked ? QColor(150, 150, 150) : QColor(220, 50, 47);
      case AlertState::pending: return QColor(203, 140, 0);
      case AlertState::resolved: return QColor(80, 160, 60);
      case AlertState::no_data: return QColor(120, 120, 120);
      case AlertState::inactive: return {};
    }
  }
  if (role == Qt::ToolTipRole) return QString::fromStdString(a.summary);
  if (role != Qt::DisplayRole) return {};
  switch (index.column()) {
    case Rule:
      // A server-side rule (AlertRow::origin) is marked with the server that evaluated it.
      return QString(QString::fromStdString(a.rule) +
                     (a.severity.empty() ? QString()
                                         : QString(QStringLiteral(" (") + QString::fromStdString(a.severity) + QLatin1Char(')'))) +
                     (a.origin.empty() ? QString() : QString(QStringLiteral(" [") + QString::fromStdString(a.origin) + QLatin1Char(']'))));
    case State: {
      QString s = QString::fromStdString(std::string(to_string(a.state)));
      return acked ? QString(s + tr(" (acknowledged)")) : s;
    }
    case Since:
      return a.since_ms > 0 ? QDateTime::fromMSecsSinceEpoch(a.since_ms).toString(QStringLiteral("HH:mm:ss"))
                            : QString();
    case Value: return a.state == AlertState::no_data ? QStringLiteral("—") : QString::number(a.value, 'g', 4);
    case Labels:
      // The key by name first: what an operator reads before the label set.
      return a.entity.empty() ? QString::fromStdString(a.labels)
                              : QString::fromStdString(a.entity) + QStringLiteral("  ") + QString::fromStdString(a.labels);
    case Summary: return QString::fromStdString(a.summary);
    default: return {};
  }
}

}  // namespace limitscope::ui
