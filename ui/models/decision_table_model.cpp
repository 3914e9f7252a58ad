#include "ui/models/decision_table_model.h"

#include <QColor>
#include <QDateTime>

namespace limitscope::ui {

DecisionTableModel::DecisionTableModel(QObject* parent)
    : FlatTableModel({tr("Time"), tr("Model"), tr("Cost"), tr("Result"), tr("Limit"),
                      tr("Remaining"), tr("Retry after"), tr("Retry-After sent")},
                     parent) {}

void DecisionTableModel::setDecisions(std::vector<DecisionRow> rows) {
  const bool same = rows.size() == m_rows.size() &&
                    (rows.empty() || (rows.front().t_ns == m_rows.front().t_ns &&
                                      rows.front().api_key == m_rows.front().api_key &&
                                      rows.back().t_ns == m_rows.back().t_ns));
  if (same) return;  // no new decision: leave the view (and its scroll position) alone
  beginResetModel();
  m_rows = std::move(rows);
  endResetModel();
}

const DecisionRow* DecisionTableModel::decisionAt(int row) const {
  if (row < 0 || row >= rowCount()) return nullptr;
  return &m_rows[static_cast<std::size_t>(row)];
}

int DecisionTableModel::rows() const {
  return static_cast<int>(m_rows.size());
}

QVariant DecisionTableModel::data(const QModelIndex& index, int role) const {
  if (!isCell(index)) return {};
  const DecisionRow& d = m_rows[static_cast<std::size_t>(index.row())];
  if (role == Qt::ForegroundRole && index.column() == Result) {
    if (!d.allowed) return QColor(220, 50, 47);
    if (d.degraded) return QColor(203, 140, 0);
    return {};
  }
  if (role == Qt::TextAlignmentRole &&
      (index.column() == Cost || index.column() == Remaining || index.column() == RetryAfter ||
       index.column() == RetryAfterSent)) {
    return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
  }
  // A narrow panel hides model, cost and the exact wait (NarrowColumns): the tooltip says them.
  if (role == Qt::ToolTipRole) {
    QString tip =
        d.attempt > 0 ? tr("retry %1 of an earlier 429").arg(d.attempt) : tr("first attempt");
    tip += QLatin1Char('\n') +
           tr("model %1, cost %2")
               .arg(QString::fromStdString(d.model), QString::number(d.cost, 'g', 6));
    const QVariant wait = data(index.siblingAtColumn(RetryAfter), Qt::DisplayRole);
    if (!wait.toString().isEmpty())
      tip += QLatin1Char('\n') + tr("retry after %1").arg(wait.toString());
    return tip;
  }
  if (role != Qt::DisplayRole) return {};
  switch (index.column()) {
    case Time:
      return QDateTime::fromMSecsSinceEpoch(d.t_ns / 1'000'000)
          .toString(QStringLiteral("HH:mm:ss.zzz"));
    case Model:
      return QString::fromStdString(d.model);
    case Cost:
      return QString::number(d.cost, 'g', 6);
    case Result:
      if (d.degraded) return tr("allowed (fail-open)");
      if (d.allowed) return tr("allowed");
      return tr("429 %1").arg(QString::fromStdString(d.reason));
    case Limit:
      return QString::fromStdString(d.limit);
    case Remaining:
      return d.degraded ? QString() : QString::number(d.remaining, 'f', 2);
    case RetryAfter:
      if (d.allowed) return QString();
      if (!d.retry_after_s) return tr("never");
      return *d.retry_after_s < 1 ? tr("%1 ms").arg(*d.retry_after_s * 1000, 0, 'f', 0)
                                  : tr("%1 s").arg(*d.retry_after_s, 0, 'f', 2);
    case RetryAfterSent: {
      // What the gateway's header said: whole seconds, rounded up.
      const auto header = retry_after_header_s(d);
      return header ? tr("%1 s").arg(*header) : QString();
    }
    default:
      return {};
  }
}

}  // namespace limitscope::ui
