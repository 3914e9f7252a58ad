#include "ui/key_table_view.h"

#include <QHeaderView>
#include <QResizeEvent>

#include "ui/models/key_table_model.h"
#include "ui/sparkline_delegate.h"

namespace limitscope::ui {

namespace {

constexpr int kSecondary[] = {KeyTableModel::Model,     KeyTableModel::Limit,
                              KeyTableModel::Algorithm, KeyTableModel::Occupancy,
                              KeyTableModel::LastSeen,  KeyTableModel::Trend};

}  // namespace

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
  // Wide until shown: the first resize event (on show) decides.
}

void KeyTableView::showShadowColumn(bool shown) {
  if (isColumnHidden(KeyTableModel::Shadow) == shown)
    setColumnHidden(KeyTableModel::Shadow, !shown);
}

int KeyTableView::compactBelow() const {
  return fontMetrics().horizontalAdvance(QLatin1Char('0')) * 80;
}

bool KeyTableView::isCompact() const {
  return m_model->isCompact();
}

void KeyTableView::resizeEvent(QResizeEvent* event) {
  QTableView::resizeEvent(event);
  updateCompact();
}

void KeyTableView::updateCompact() {
  const bool compact = viewport()->width() < compactBelow();
  if (compact == m_model->isCompact() &&
      horizontalHeader()->sectionResizeMode(KeyTableModel::Key) ==
          (compact ? QHeaderView::Stretch : QHeaderView::ResizeToContents)) {
    return;
  }
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

}  // namespace limitscope::ui
