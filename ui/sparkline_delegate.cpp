#include "ui/sparkline_delegate.h"

#include <QPainter>
#include <QPainterPath>
#include <algorithm>

#include "ui/models/key_table_model.h"

namespace limitscope::ui {

void SparklineDelegate::paint(QPainter* painter, const QStyleOptionViewItem& option,
                              const QModelIndex& index) const {
  QStyledItemDelegate::paint(painter, option, index);
  const QVariantList values = index.data(KeyTableModel::SparklineRole).toList();
  if (values.size() < 2) return;
  const QRectF r = QRectF(option.rect).adjusted(3, 3, -3, -3);
  // Levels are fractions of capacity: a fixed 0..1 scale keeps rows comparable.
  QPainterPath path;
  for (qsizetype i = 0; i < values.size(); ++i) {
    const double v = std::clamp(values[i].value<double>(), 0.0, 1.0);
    const QPointF p(
        r.left() + r.width() * static_cast<double>(i) / static_cast<double>(values.size() - 1),
        r.bottom() - v * r.height());
    if (i == 0)
      path.moveTo(p);
    else
      path.lineTo(p);
  }
  painter->save();
  painter->setRenderHint(QPainter::Antialiasing, true);
  const bool low = values.back().value<double>() < 0.1;
  painter->setPen(QPen(low ? QColor(220, 50, 47) : option.palette.color(QPalette::Highlight), 1.4));
  painter->drawPath(path);
  painter->restore();
}

QSize SparklineDelegate::sizeHint(const QStyleOptionViewItem& option,
                                  const QModelIndex& index) const {
  return QStyledItemDelegate::sizeHint(option, index).expandedTo(QSize(90, 20));
}

}  // namespace limitscope::ui
