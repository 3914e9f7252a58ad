#pragma once
// Draws a small line of recent values (KeyTableModel::SparklineRole) inside a table cell.

#include <QStyledItemDelegate>

namespace limitscope::ui {

class SparklineDelegate : public QStyledItemDelegate {
  Q_OBJECT
 public:
  using QStyledItemDelegate::QStyledItemDelegate;
  void paint(QPainter* painter, const QStyleOptionViewItem& option,
             const QModelIndex& index) const override;
  QSize sizeHint(const QStyleOptionViewItem& option, const QModelIndex& index) const override;
};

}  // namespace limitscope::ui
