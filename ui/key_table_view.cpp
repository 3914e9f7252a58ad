#include "ui/key_table_view.h"

#include <QApplication>
#include <QHeaderView>
#include <QPainter>
#include <QResizeEvent>
#include <QScrollBar>

#include "ui/models/key_table_model.h"
#include "ui/sparkline_delegate.h"

namespace limitscope::ui {

namespace {

constexpr int kSecondary[] = {KeyTableModel::Model,     KeyTableModel::Limit,
                              KeyTableModel::Algorithm, KeyTableModel::Occupancy,
                              KeyTableModel::LastSeen,  KeyTableModel::Trend};

}  // namespace

void KeyNameDelegate::paint(QPainter* painter, const QStyleOptionViewItem& option,
                            const QModelIndex& index) const {
  QStyleOptionViewItem opt = option;
  initStyleOption(&opt, index);
  opt.text = fitted(opt);
  opt.textElideMode = Qt::ElideNone;
  const QStyle* style = opt.widget != nullptr ? opt.widget->style() : QApplication::style();
  style->drawControl(QStyle::CE_ItemViewItem, &opt, painter, opt.widget);
}

QString KeyNameDelegate::shownText(const QStyleOptionViewItem& option,
                                   const QModelIndex& index) const {
  QStyleOptionViewItem opt = option;
  initStyleOption(&opt, index);
  return fitted(opt);
}

QString KeyNameDelegate::fitted(const QStyleOptionViewItem& opt) {
  const QStyle* style = opt.widget != nullptr ? opt.widget->style() : QApplication::style();
  // The text's room as the style lays it out: its rect less a margin on each side.
  const int margin = style->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, opt.widget) + 1;
  const int width =
      style->subElementRect(QStyle::SE_ItemViewItemText, &opt, opt.widget).width() - 2 * margin;
  const QFontMetrics& fm = opt.fontMetrics;
  if (fm.horizontalAdvance(opt.text) <= width) return opt.text;
  const QString limit = opt.index.siblingAtColumn(KeyTableModel::Limit).data().toString();
  const QString tail = QLatin1Char('/') + limit;
  const int tail_width = fm.horizontalAdvance(tail);
  if (limit.isEmpty() || !opt.text.endsWith(tail) || tail_width >= width)
    return fm.elidedText(opt.text, Qt::ElideMiddle, width);
  // The name's start and the limit: "campus-tu…/llm_tokens" (the model is in the tooltip).
  return fm.elidedText(opt.text.chopped(tail.size()), Qt::ElideRight, width - tail_width) + tail;
}

KeyTableView::KeyTableView(KeyTableModel* model, QAbstractItemModel* proxy, QWidget* parent)
    : QTableView(parent), m_model(model) {
  setModel(proxy);
  setSortingEnabled(true);
  sortByColumn(KeyTableModel::Level, Qt::AscendingOrder);
  setSelectionBehavior(QAbstractItemView::SelectRows);
  setSelectionMode(QAbstractItemView::ExtendedSelection);
  verticalHeader()->hide();
  verticalHeader()->setDefaultSectionSize(22);
  setItemDelegateForColumn(KeyTableModel::Trend, new SparklineDelegate(this));
  setItemDelegateForColumn(KeyTableModel::Key, new KeyNameDelegate(this));
  setAlternatingRowColors(true);
  // One line per cell, elided as a whole: a wrapping view breaks a name at '/' or '-' first
  // and elides what is left over ("campus-tutor/…" instead of "campus-…/llm_tokens").
  setWordWrap(false);
  setTextElideMode(Qt::ElideMiddle);
  horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  // Fit the rows in view only: measuring every cell of 10,000 rows on each refresh took the
  // GUI thread 20-50 ms (limitscope-bench-ui).
  horizontalHeader()->setResizeContentsPrecision(0);
  horizontalHeader()->setStretchLastSection(true);
  // An unnamed key is a 32-digit hash: it may not push the incident's columns out of view.
  horizontalHeader()->setMaximumSectionSize(180);
  horizontalHeader()->setSectionResizeMode(KeyTableModel::Trend, QHeaderView::Stretch);
  setColumnHidden(KeyTableModel::Shadow, true);
  // Wide until shown: the first resize event (on show) decides. The columns' widths settle in
  // the header's own layout pass: the Key column and name are fitted after it (queued).
  connect(horizontalHeader(), &QHeaderView::sectionResized, this, &KeyTableView::fitColumns,
          Qt::QueuedConnection);
  connect(horizontalScrollBar(), &QScrollBar::valueChanged, this, &KeyTableView::fitColumns);
}

void KeyTableView::showReportedColumns(const std::vector<KeyRow>& rows) {
  for (const KeyTableModel::Column c :
       {KeyTableModel::Shadow, KeyTableModel::Spend, KeyTableModel::QuotaBurn}) {
    const bool shown = KeyTableModel::anyReports(rows, c);
    if (isColumnHidden(c) == shown) setColumnHidden(c, !shown);
  }
}

int KeyTableView::compactBelow() const {
  return fontMetrics().horizontalAdvance(QLatin1Char('0')) * 80;
}

int KeyTableView::keyMinimum() const {
  return fontMetrics().horizontalAdvance(QLatin1Char('0')) * 13;
}

bool KeyTableView::isCompact() const {
  return m_model->isCompact();
}

bool KeyTableView::isColumnInView(int c) const {
  if (isColumnHidden(c)) return false;
  const int left = columnViewportPosition(c);
  return left >= 0 && left + columnWidth(c) <= viewport()->width();
}

void KeyTableView::resizeEvent(QResizeEvent* event) {
  QTableView::resizeEvent(event);
  updateCompact();
  fitColumns();
}

void KeyTableView::updateCompact() {
  const bool compact = viewport()->width() < compactBelow();
  if (compact == m_model->isCompact()) return;
  m_model->setCompact(compact);
  for (const int c : kSecondary) setColumnHidden(c, compact);
  QHeaderView* h = horizontalHeader();
  // Compact: the name stretches over what the figures leave (the last visible column would
  // otherwise take it); wide: the trend does.
  h->setStretchLastSection(!compact);
  h->setSectionResizeMode(KeyTableModel::Key,
                          compact ? QHeaderView::Stretch : QHeaderView::ResizeToContents);
  h->setSectionResizeMode(KeyTableModel::Trend,
                          compact ? QHeaderView::ResizeToContents : QHeaderView::Stretch);
}

void KeyTableView::fitColumns() {
  QHeaderView* h = horizontalHeader();
  if (m_model->isCompact()) {
    // The name stretches over what the figures leave, but not below a readable minimum: then
    // it keeps the minimum and the table scrolls sideways.
    int figures = 0;
    for (int c = 0; c < h->count(); ++c) {
      if (c != KeyTableModel::Key && !h->isSectionHidden(c)) figures += h->sectionSize(c);
    }
    const bool room = viewport()->width() - figures >= keyMinimum();
    const auto mode = room ? QHeaderView::Stretch : QHeaderView::Interactive;
    if (h->sectionResizeMode(KeyTableModel::Key) != mode)
      h->setSectionResizeMode(KeyTableModel::Key, mode);
    if (!room && h->sectionSize(KeyTableModel::Key) != keyMinimum())
      h->resizeSection(KeyTableModel::Key, keyMinimum());
  }
  m_model->setQualified(
      !(isColumnInView(KeyTableModel::Model) && isColumnInView(KeyTableModel::Limit)));
}

}  // namespace limitscope::ui
