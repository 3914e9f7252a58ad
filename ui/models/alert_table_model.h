#pragma once
// The alerts panel: rule, state, since, value, labels. Acknowledging (silencing) an alert is
// the operator's note on this desktop; it hides nothing from the engine and lasts until the
// alert resolves.

#include <QAbstractTableModel>
#include <QSet>

#include <vector>

#include "core/sources/dashboard_snapshot.h"

namespace limitscope::ui {

class AlertTableModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column { Rule, State, Since, Value, Labels, Summary, ColumnCount };

  explicit AlertTableModel(QObject* parent = nullptr);

  /// Replaces the alerts. @return the identities (rule + labels) that started firing since
  /// the previous call, for notifications.
  QStringList setAlerts(std::vector<AlertRow> alerts);
  void acknowledge(int row);
  bool isAcknowledged(int row) const;
  const AlertRow* alertAt(int row) const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

 private:
  static QString identity(const AlertRow& a);

  std::vector<AlertRow> m_alerts;
  QSet<QString> m_firing;        // identities firing at the previous update
  QSet<QString> m_acknowledged;  // cleared when the alert stops firing
};

}  // namespace limitscope::ui
