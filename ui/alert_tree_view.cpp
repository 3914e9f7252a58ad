#include "ui/alert_tree_view.h"

#include "ui/models/alert_table_model.h"

namespace limitscope::ui {

AlertTreeView::AlertTreeView(AlertTableModel* model, QWidget* parent)
    : QTreeView(parent), m_model(model) {
  setModel(model);
  connect(model, &QAbstractItemModel::modelAboutToBeReset, this, &AlertTreeView::remember);
  connect(model, &QAbstractItemModel::modelReset, this, &AlertTreeView::restore);
}

void AlertTreeView::remember() {
  m_expanded.clear();
  m_selected.clear();
  for (int g = 0; g < m_model->rowCount(); ++g) {
    const QModelIndex line = m_model->index(g, 0);
    if (isExpanded(line)) m_expanded.insert(m_model->groupKey(line));
  }
  if (selectionModel() == nullptr) return;
  for (const QModelIndex& idx : selectionModel()->selectedRows()) {
    m_selected.append({m_model->groupKey(idx), m_model->alertKey(idx)});
  }
}

void AlertTreeView::restore() {
  for (const QString& group : std::as_const(m_expanded)) {
    const QModelIndex line = m_model->lineOf(group);
    if (line.isValid()) expand(line);
  }
  if (selectionModel() == nullptr) return;
  QItemSelection selection;
  for (const auto& [group, alert] : std::as_const(m_selected)) {
    // An alert that moved into a group (its rule gained a second alert) is selected there;
    // one whose group became a single line is that line.
    QModelIndex line = m_model->lineOf(group, alert);
    if (!line.isValid() && !alert.isEmpty()) line = m_model->lineOf(group);
    if (line.isValid())
      selection.select(line, line.sibling(line.row(), m_model->columnCount() - 1));
  }
  if (!selection.isEmpty())
    selectionModel()->select(selection,
                             QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
}

}  // namespace limitscope::ui
