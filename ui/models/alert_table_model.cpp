#include "ui/models/alert_table_model.h"

#include <QColor>
#include <QDateTime>

#include "core/dashboard/alert_view.h"
#include "ui/qt_text.h"

namespace limitscope::ui {

namespace {

QString groupKeyOf(const AlertGroup& g) {
  return qs(g.rule) + QLatin1Char('|') + qs(g.origin);
}

// "HighRateLimitRejection: campus-tutor", as an operator reads it in a notice.
QString announced(const AlertRow& a) {
  const std::string name = alert_display_name(a);
  return name.empty() ? qs(a.rule) : QString(qs(a.rule) + QStringLiteral(": ") + qs(name));
}

}  // namespace

AlertTableModel::AlertTableModel(QObject* parent) : QAbstractItemModel(parent) {}

QString AlertTableModel::identity(const AlertRow& a) {
  return qs(a.rule) + qs(a.labels) + qs(a.origin);
}

QStringList AlertTableModel::shape(const std::vector<AlertRow>& alerts,
                                   const std::vector<AlertGroup>& groups) const {
  QStringList out;
  for (const AlertGroup& g : groups) {
    out << QStringLiteral("group ") + groupKeyOf(g);
    if (g.members.size() > 1) {
      for (std::size_t m : g.members) out << identity(alerts[m]);
    }
  }
  return out;
}

QStringList AlertTableModel::setAlerts(std::vector<AlertRow> alerts) {
  QSet<QString> firing;
  QStringList started;
  for (const AlertRow& a : alerts) {
    if (a.state != AlertState::firing) continue;
    const QString id = identity(a);
    firing.insert(id);
    if (!m_firing.contains(id)) started << announced(a);
  }
  // An acknowledgement lasts until the alert stops firing.
  for (auto it = m_acknowledged.begin(); it != m_acknowledged.end();) {
    it = firing.contains(*it) ? std::next(it) : m_acknowledged.erase(it);
  }
  m_firing = firing;
  std::vector<AlertGroup> groups = group_alerts(alerts);
  if (shape(alerts, groups) == shape(m_alerts, m_groups)) {
    // The same lines: values, states and progress change in place (expanded groups and the
    // selection stay).
    m_alerts = std::move(alerts);
    m_groups = std::move(groups);
    if (!m_groups.empty()) {
      emit dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
      for (int g = 0; g < rowCount(); ++g) {
        const QModelIndex parent = index(g, 0);
        if (rowCount(parent) > 0)
          emit dataChanged(index(0, 0, parent),
                           index(rowCount(parent) - 1, ColumnCount - 1, parent));
      }
    }
    return started;
  }
  beginResetModel();
  m_alerts = std::move(alerts);
  m_groups = std::move(groups);
  endResetModel();
  return started;
}

std::vector<std::size_t> AlertTableModel::alertsOf(const QModelIndex& idx) const {
  if (!idx.isValid()) return {};
  if (idx.internalId() == 0) {
    if (idx.row() < 0 || static_cast<std::size_t>(idx.row()) >= m_groups.size()) return {};
    return m_groups[static_cast<std::size_t>(idx.row())].members;
  }
  const std::size_t g = static_cast<std::size_t>(idx.internalId() - 1);
  if (g >= m_groups.size() || static_cast<std::size_t>(idx.row()) >= m_groups[g].members.size())
    return {};
  return {m_groups[g].members[static_cast<std::size_t>(idx.row())]};
}

const AlertRow* AlertTableModel::shown(const QModelIndex& idx) const {
  const std::vector<std::size_t> of = alertsOf(idx);
  return of.empty() ? nullptr : &m_alerts[of.front()];
}

void AlertTableModel::acknowledge(const QModelIndex& idx) {
  const std::vector<std::size_t> of = alertsOf(idx);
  if (of.empty()) return;
  for (std::size_t i : of) m_acknowledged.insert(identity(m_alerts[i]));
  const QModelIndex line = idx.sibling(idx.row(), 0);
  emit dataChanged(line, line.sibling(line.row(), ColumnCount - 1));
  // A group line's children, or a child's group line (its state reads "acknowledged" when all are).
  if (idx.internalId() == 0 && rowCount(line) > 0) {
    emit dataChanged(index(0, 0, line), index(rowCount(line) - 1, ColumnCount - 1, line));
  } else if (idx.internalId() != 0) {
    const QModelIndex group = parent(idx);
    emit dataChanged(group, group.sibling(group.row(), ColumnCount - 1));
  }
}

bool AlertTableModel::isAcknowledged(const QModelIndex& idx) const {
  const std::vector<std::size_t> of = alertsOf(idx);
  if (of.empty()) return false;
  for (std::size_t i : of) {
    if (!m_acknowledged.contains(identity(m_alerts[i]))) return false;
  }
  return true;
}

QString AlertTableModel::groupKey(const QModelIndex& idx) const {
  if (!idx.isValid()) return {};
  const std::size_t g = idx.internalId() == 0 ? static_cast<std::size_t>(idx.row())
                                              : static_cast<std::size_t>(idx.internalId() - 1);
  return g < m_groups.size() ? groupKeyOf(m_groups[g]) : QString();
}

QString AlertTableModel::alertKey(const QModelIndex& idx) const {
  if (!idx.isValid() || idx.internalId() == 0) return {};
  const AlertRow* a = shown(idx);
  return a != nullptr ? identity(*a) : QString();
}

QModelIndex AlertTableModel::lineOf(const QString& group, const QString& alert) const {
  for (std::size_t g = 0; g < m_groups.size(); ++g) {
    if (groupKeyOf(m_groups[g]) != group) continue;
    const QModelIndex line = index(static_cast<int>(g), 0);
    if (alert.isEmpty()) return line;
    for (int c = 0; c < rowCount(line); ++c) {
      if (alertKey(index(c, 0, line)) == alert) return index(c, 0, line);
    }
    return {};
  }
  return {};
}

const AlertRow* AlertTableModel::alertAt(const QModelIndex& idx) const {
  return shown(idx);
}

int AlertTableModel::alertCount(const QModelIndex& idx) const {
  return static_cast<int>(alertsOf(idx).size());
}

QModelIndex AlertTableModel::index(int row, int column, const QModelIndex& parent) const {
  if (row < 0 || column < 0 || column >= ColumnCount) return {};
  if (!parent.isValid()) {
    return static_cast<std::size_t>(row) < m_groups.size() ? createIndex(row, column, quintptr{0})
                                                           : QModelIndex();
  }
  if (parent.internalId() != 0 || parent.column() != 0) return {};  // two levels only
  const std::size_t g = static_cast<std::size_t>(parent.row());
  if (g >= m_groups.size() || m_groups[g].members.size() < 2 ||
      static_cast<std::size_t>(row) >= m_groups[g].members.size()) {
    return {};
  }
  return createIndex(row, column, static_cast<quintptr>(g + 1));
}

QModelIndex AlertTableModel::parent(const QModelIndex& child) const {
  if (!child.isValid() || child.internalId() == 0) return {};
  return createIndex(static_cast<int>(child.internalId() - 1), 0, quintptr{0});
}

int AlertTableModel::rowCount(const QModelIndex& parent) const {
  if (!parent.isValid()) return static_cast<int>(m_groups.size());
  if (parent.internalId() != 0 || parent.column() != 0) return 0;
  const std::size_t g = static_cast<std::size_t>(parent.row());
  if (g >= m_groups.size() || m_groups[g].members.size() < 2)
    return 0;  // one alert: the line is it
  return static_cast<int>(m_groups[g].members.size());
}

int AlertTableModel::columnCount(const QModelIndex&) const {
  return ColumnCount;
}

QVariant AlertTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case Rule:
      return tr("Rule");
    case Count:
      return tr("Alerts");
    case State:
      return tr("State");
    case Since:
      return tr("Since");
    case Value:
      return tr("Value");
    case Labels:
      return tr("About");
    case Summary:
      return tr("Summary");
    default:
      return {};
  }
}

QVariant AlertTableModel::data(const QModelIndex& index, int role) const {
  const AlertRow* shown_alert = shown(index);
  if (shown_alert == nullptr || index.column() >= ColumnCount) return {};
  const AlertRow& a = *shown_alert;
  const bool group_line = index.internalId() == 0;
  const int count = alertCount(index);
  const bool acked = isAcknowledged(index);
  if (role == Qt::ForegroundRole && index.column() == State) {
    switch (a.state) {
      case AlertState::firing:
        return acked ? QColor(150, 150, 150) : QColor(220, 50, 47);
      case AlertState::pending:
        return QColor(203, 140, 0);
      case AlertState::resolved:
        return QColor(80, 160, 60);
      case AlertState::no_data:
        return QColor(120, 120, 120);
      case AlertState::inactive:
        return {};
    }
  }
  if (role == Qt::TextAlignmentRole && index.column() == Count)
    return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
  // The label set stays one hover away: the line names what the alert is about.
  // A narrow panel hides since, value and summary (NarrowColumns): every tooltip but the
  // label set's says them.
  if (role == Qt::ToolTipRole) {
    if (index.column() == Labels) return qs(a.labels);
    QString tip = qs(a.summary);
    if (a.since_ms > 0) {
      tip +=
          QLatin1Char('\n') +
          tr("since %1")
              .arg(QDateTime::fromMSecsSinceEpoch(a.since_ms).toString(QStringLiteral("HH:mm:ss")));
    }
    if (a.state != AlertState::no_data)
      tip += QLatin1Char('\n') + tr("value %1").arg(QString::number(a.value, 'g', 4));
    return tip;
  }
  if (role != Qt::DisplayRole) return {};
  switch (index.column()) {
    case Rule:
      if (!group_line) return QString();  // the group line names the rule
      // A server-side rule (AlertRow::origin) is marked with the server that evaluated it.
      return QString(
          qs(a.rule) +
          (a.severity.empty() ? QString()
                              : QString(QStringLiteral(" (") + qs(a.severity) + QLatin1Char(')'))) +
          (a.origin.empty() ? QString()
                            : QString(QStringLiteral(" [") + qs(a.origin) + QLatin1Char(']'))));
    case Count: {
      if (!group_line) return QString();
      const AlertGroup& g = m_groups[static_cast<std::size_t>(index.row())];
      // "3" when all are active, "2 of 3" when some have resolved.
      return g.active == g.members.size() || g.active == 0
                 ? QString::number(count)
                 : tr("%1 of %2").arg(g.active).arg(count);
    }
    case State: {
      const QString s = qs(alert_state_text(a));
      return acked ? QString(s + tr(" (acknowledged)")) : s;
    }
    case Since:
      return a.since_ms > 0
                 ? QDateTime::fromMSecsSinceEpoch(a.since_ms).toString(QStringLiteral("HH:mm:ss"))
                 : QString();
    case Value:
      return a.state == AlertState::no_data ? QStringLiteral("—")
                                            : QString::number(a.value, 'g', 4);
    case Labels: {
      // What the alert is about by name (the key's name, "tier gw-free"); a group of several
      // names its worst. The label set is the tooltip.
      const std::string name = alert_display_name(a);
      const QString entity = name.empty() ? tr("(whole rule)") : qs(name);
      return group_line && count > 1 ? tr("worst: %1").arg(entity) : entity;
    }
    case Summary:
      return qs(a.summary);
    default:
      return {};
  }
}

}  // namespace limitscope::ui
