#pragma once
// The alerts panel, grouped by rule (core/dashboard/alert_groups.h): one line per rule and
// evaluator with its alert count, the worst alert's state (a pending one with its progress),
// since, value and the entity it is about by name; the rule's alerts are its children, worst
// first (a rule with one alert has none: its line is that alert). Refreshes that keep the
// same groups and alerts update the lines in place, so expanded groups and the selection stay.
// Acknowledging (silencing) an alert is the operator's note on this desktop; it hides nothing
// from the engine and lasts until the alert stops firing.

#include <QAbstractItemModel>
#include <QSet>
#include <vector>

#include "core/dashboard/alert_groups.h"
#include "core/dashboard/dashboard_snapshot.h"

namespace limitscope::ui {

class AlertTableModel : public QAbstractItemModel {
  Q_OBJECT
 public:
  /// What the alert is about (Labels) follows its state, so a narrow panel shows it.
  enum Column { Rule, Count, State, Labels, Since, Value, Summary, ColumnCount };

  explicit AlertTableModel(QObject* parent = nullptr);

  /// Replaces the alerts. @return the alerts that started firing since the previous call, as
  /// the status line and the desktop notice say them: "Rule: <alert_display_name>" (the key's
  /// name, "tier gw-free"), or the rule alone for an alert about the whole rule.
  QStringList setAlerts(std::vector<AlertRow> alerts);
  /// Acknowledges the alert at `index`, or every alert of a group line.
  void acknowledge(const QModelIndex& index);
  /// The group line `row` (all its alerts).
  void acknowledge(int row) { acknowledge(index(row, 0)); }
  /// True when the alert at `index` (a group line: every alert of it) is acknowledged.
  bool isAcknowledged(const QModelIndex& index) const;
  bool isAcknowledged(int row) const { return isAcknowledged(index(row, 0)); }
  /// The alert at `index`; a group line: its worst alert.
  const AlertRow* alertAt(const QModelIndex& index) const;
  const AlertRow* alertAt(int row) const { return alertAt(index(row, 0)); }
  /// Alerts in a group line's group (1 for a child line).
  int alertCount(const QModelIndex& index) const;

  /// The group (rule and evaluator) a line belongs to, stable across updates; empty if none.
  QString groupKey(const QModelIndex& index) const;
  /// The alert a child line shows (rule, labels, evaluator); empty for a group line.
  QString alertKey(const QModelIndex& index) const;
  /// The group line of `group`, or its child line of `alert` when given; invalid when gone.
  QModelIndex lineOf(const QString& group, const QString& alert = {}) const;

  QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
  QModelIndex parent(const QModelIndex& child) const override;
  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

 private:
  static QString identity(const AlertRow& a);
  /// The alerts a line stands for: a group line all of its group's, a child line its own.
  std::vector<std::size_t> alertsOf(const QModelIndex& index) const;
  /// The alert a line shows: a group line its worst, a child line its own; nullptr if none.
  const AlertRow* shown(const QModelIndex& index) const;
  /// Group keys and member identities in order: equal shapes update in place.
  QStringList shape(const std::vector<AlertRow>& alerts,
                    const std::vector<AlertGroup>& groups) const;

  std::vector<AlertRow> m_alerts;
  std::vector<AlertGroup> m_groups;
  QSet<QString> m_firing;        // identities firing at the previous update
  QSet<QString> m_acknowledged;  // cleared when the alert stops firing
};

}  // namespace limitscope::ui
