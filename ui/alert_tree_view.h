#pragma once
// The alerts panel's tree (AlertTableModel: a line per rule, its alerts under it). An update
// that adds or removes an alert resets the model; this view keeps what the operator opened
// and picked through it: the expanded groups and the selected lines, found again by their
// rule and alert keys, not by row numbers.

#include <QList>
#include <QPair>
#include <QSet>
#include <QTreeView>

namespace limitscope::ui {

class AlertTableModel;

class AlertTreeView : public QTreeView {
  Q_OBJECT
 public:
  explicit AlertTreeView(AlertTableModel* model, QWidget* parent = nullptr);

 private:
  void remember();
  void restore();

  AlertTableModel* m_model;
  QSet<QString> m_expanded;                   // group keys
  QList<QPair<QString, QString>> m_selected;  // (group key, alert key or empty for a group line)
};

}  // namespace limitscope::ui
