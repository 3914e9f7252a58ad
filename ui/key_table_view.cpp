#include "ui/key_table_view.h"

#include <QApplication>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QPainter>
#include <QResizeEvent>
#include <QScrollBar>
#include <QSignalBlocker>

#include "ui/column_header_model.h"
#include "ui/kept_scroll_bar.h"
#include "ui/models/key_table_model.h"
#include "ui/sparkline_delegate.h"

namespace limitscope::ui {

namespace {

constexpr int kSecondary[] = {KeyTableModel::Model,     KeyTableModel::Limit,
                              KeyTableModel::Algorithm, KeyTableModel::Occupancy,
                              KeyTableModel::LastSeen,  KeyTableModel::Trend};

// An unnamed key is a 32-digit hash: fitted, no column may push the incident's out of view.
constexpr int kWidestFit = 180;

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
  // The filter proxy drops the model's layout-change hint (QSortFilterProxyModel could filter
  // columns too), so each re-sort of the rows looked to the horizontal header as if its columns
  // might have moved: it saved and restored every section, resized the hidden ones, and the
  // table then laid out its geometry again and repainted the columns right of them and both
  // scroll bars, after the frame's repaint. A layout change here never moves a column (the
  // model sorts rows, the proxy filters rows), so the header reads the columns from a model of
  // its own (ColumnHeaderModel) that passes on column inserts, removes and moves, resets and
  // header data, and no layout change. (The header does honour the model's VerticalSortHint
  // in Qt 6.4, as a view on the model itself shows, but keeping it through the filter would take
  // a filter proxy of our own in place of QSortFilterProxyModel.)
  // QTableView::setModel gives the header the table's model: this comes after it.
  auto* columns = new ColumnHeaderModel(proxy, this);
  horizontalHeader()->setModel(columns);
  // The header highlights the sections of the selected rows' cells (whole rows: every section)
  // from its own selection model, of its own model: the table's selection is mirrored there.
  connect(selectionModel(), &QItemSelectionModel::selectionChanged, this, [this, columns] {
    QItemSelectionModel* own = horizontalHeader()->selectionModel();
    const bool any = selectionModel()->hasSelection();
    if (any == own->hasSelection() || columns->columnCount() == 0) return;
    if (any) {
      own->select(columns->index(0, 0), QItemSelectionModel::Select | QItemSelectionModel::Rows);
    } else {
      own->clearSelection();
    }
  });
  // Laid out on every refresh (and raised, so repainted): painted from a kept picture.
  setHorizontalScrollBar(new KeptScrollBar(Qt::Horizontal, this));
  setVerticalScrollBar(new KeptScrollBar(Qt::Vertical, this));
  // QAbstractItemView connected the bars it made to these (fetching more, hover): again.
  connect(verticalScrollBar(), &QScrollBar::actionTriggered, this,
          &KeyTableView::verticalScrollbarAction);
  connect(horizontalScrollBar(), &QScrollBar::actionTriggered, this,
          &KeyTableView::horizontalScrollbarAction);
  connect(verticalScrollBar(), &QScrollBar::valueChanged, this,
          &KeyTableView::verticalScrollbarValueChanged);
  connect(horizontalScrollBar(), &QScrollBar::valueChanged, this,
          &KeyTableView::horizontalScrollbarValueChanged);
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
  // The columns fit their text (fitContents), measured only when its length changes.
  m_fittedChars.fill(-1);
  horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
  horizontalHeader()->setResizeContentsPrecision(0);  // the rows in view
  horizontalHeader()->setStretchLastSection(true);
  horizontalHeader()->setSectionResizeMode(KeyTableModel::Trend, QHeaderView::Stretch);
  setColumnHidden(KeyTableModel::Shadow, true);
  // Wide until shown: the first resize event (on show) decides. The columns' widths settle in
  // the header's own layout pass: the Key column and name are fitted after it (queued).
  connect(horizontalHeader(), &QHeaderView::sectionResized, this, &KeyTableView::fitColumns,
          Qt::QueuedConnection);
  for (const auto signal : {&QAbstractItemModel::rowsInserted, &QAbstractItemModel::rowsRemoved})
    connect(proxy, signal, this, &KeyTableView::scheduleFit);
  connect(proxy, &QAbstractItemModel::dataChanged, this, &KeyTableView::scheduleFit);
  connect(proxy, &QAbstractItemModel::layoutChanged, this, &KeyTableView::scheduleFit);
  connect(proxy, &QAbstractItemModel::modelReset, this, &KeyTableView::scheduleFit);
  connect(verticalScrollBar(), &QScrollBar::valueChanged, this, &KeyTableView::scheduleFit);
  connect(horizontalScrollBar(), &QScrollBar::valueChanged, this, &KeyTableView::fitColumns);
}

void KeyTableView::showReportedColumns(const std::vector<KeyRow>& rows) {
  bool changed = false;
  for (const KeyTableModel::Column c :
       {KeyTableModel::Shadow, KeyTableModel::Spend, KeyTableModel::QuotaBurn}) {
    const bool shown = KeyTableModel::anyReports(rows, c);
    if (isColumnHidden(c) != shown) continue;
    setColumnHidden(c, !shown);
    changed = true;
  }
  if (!changed) return;
  // Other columns: a wide table may fit its incident columns again.
  m_wideNeeds = 0;
  updateCompact();
  scheduleFit();
}

void KeyTableView::scheduleFit() {
  if (m_fitPending) return;
  m_fitPending = true;
  QMetaObject::invokeMethod(
      this,
      [this] {
        if (!m_fitPending) return;  // settleLayout() did it
        m_fitPending = false;
        fitContents();
      },
      Qt::QueuedConnection);
}

void KeyTableView::settleLayout() {
  executeDelayedItemsLayout();
  if (!m_fitPending) return;
  m_fitPending = false;
  // The columns resized here are laid out here too: QTableView answers a resized column from
  // a zero timer (its geometry, both scroll bars, a repaint of the columns right of it), which
  // fires after the frame's repaint and paints the table a second time. With the header's
  // signals held, the view does that work now, in the one repaint.
  const int fits = m_fits;
  {
    const QSignalBlocker hold(horizontalHeader());
    fitContents();
    (void)horizontalHeader()->length();  // the stretched column's posted resize, now
  }
  if (m_fits == fits) return;
  updateGeometries();
  viewport()->update();
  const QSignalBlocker hold(horizontalHeader());
  fitColumns();
  (void)horizontalHeader()->length();
  updateGeometries();
}

void KeyTableView::fitContents() {
  const QAbstractItemModel* m = model();
  if (m == nullptr) return;
  int top = rowAt(0), bottom = rowAt(viewport()->height() - 1);
  if (top < 0) top = 0;
  if (bottom < 0) bottom = std::min(m->rowCount(), top + 100) - 1;
  QHeaderView* h = horizontalHeader();
  for (int c = 0; c < h->count(); ++c) {
    if (h->isSectionHidden(c) || h->sectionResizeMode(c) == QHeaderView::Stretch) continue;
    // Name: a compact table sizes it in fitColumns.
    if (c == KeyTableModel::Key && m_model->isCompact()) continue;
    auto chars = static_cast<int>(m->headerData(c, Qt::Horizontal).toString().size());
    for (int r = top; r <= bottom; ++r)
      chars = std::max(chars, static_cast<int>(m->index(r, c).data().toString().size()));
    int& fitted = m_fittedChars[static_cast<std::size_t>(c)];
    if (chars == fitted) continue;
    fitted = chars;
    ++m_fits;
    const int w = std::min(kWidestFit, std::max(sizeHintForColumn(c), h->sectionSizeHint(c)));
    if (c == KeyTableModel::Key) m_keyFitted = w;
    h->resizeSection(c, w);
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
  const bool compact = viewport()->width() < compactBelow() || viewport()->width() < m_wideNeeds;
  if (compact == m_model->isCompact()) return;
  m_model->setCompact(compact);
  for (const int c : kSecondary) setColumnHidden(c, compact);
  QHeaderView* h = horizontalHeader();
  // Compact: the name stretches over what the figures leave (the last visible column would
  // otherwise take it); wide: the trend does.
  h->setStretchLastSection(!compact);
  h->setSectionResizeMode(KeyTableModel::Key,
                          compact ? QHeaderView::Stretch : QHeaderView::Interactive);
  h->setSectionResizeMode(KeyTableModel::Trend,
                          compact ? QHeaderView::Interactive : QHeaderView::Stretch);
  m_fittedChars.fill(-1);  // the cells read otherwise: fit every column again
  scheduleFit();
}

int KeyTableView::widthToEdge(int own, bool* incident_cut) const {
  const QHeaderView* h = horizontalHeader();
  const int width = viewport()->width();
  const int named = h->sectionSize(KeyTableModel::Key);
  // Where each column would sit with the name `own` wide (the Key column comes first): the
  // first that does not fit whole starts at the right edge, the name taking the room up to it.
  for (int v = 0; v < h->count(); ++v) {
    const int c = h->logicalIndex(v);
    if (h->isSectionHidden(c)) continue;
    const bool key = c == KeyTableModel::Key;
    const int left = h->sectionViewportPosition(c) - (key ? 0 : named - own);
    if (left + (key ? own : h->sectionSize(c)) <= width) continue;
    if (incident_cut != nullptr) *incident_cut = c <= KeyTableModel::QuotaBurn;
    return left < width && !key ? own + width - left : own;
  }
  return own;
}

void KeyTableView::fitWide() {
  for (int c = KeyTableModel::Key; c <= KeyTableModel::QuotaBurn; ++c) {
    if (!isColumnHidden(c) && m_fittedChars[static_cast<std::size_t>(c)] < 0) return;  // not yet
  }
  bool cut = false;
  const int wanted = widthToEdge(m_keyFitted, &cut);
  if (cut) {
    // Name to burn do not fit whole (a shadow's "would refuse 231" beside them): compact.
    m_wideNeeds = viewport()->width() + 1;
    updateCompact();
  } else if (wanted != horizontalHeader()->sectionSize(KeyTableModel::Key)) {
    horizontalHeader()->resizeSection(KeyTableModel::Key, wanted);
  }
}

void KeyTableView::fitColumns() {
  QHeaderView* h = horizontalHeader();
  const bool at_left = horizontalScrollBar()->value() == 0;  // scrolled: leave the widths be
  if (!m_model->isCompact() && at_left && m_keyFitted > 0) fitWide();
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
    // No room: the minimum, and up to the first figure that does not fit (it starts just out
    // of view, not cut).
    const int key =
        at_left ? widthToEdge(keyMinimum(), nullptr) : h->sectionSize(KeyTableModel::Key);
    if (!room && h->sectionSize(KeyTableModel::Key) != key)
      h->resizeSection(KeyTableModel::Key, key);
  }
  m_model->setQualified(
      !(isColumnInView(KeyTableModel::Model) && isColumnInView(KeyTableModel::Limit)));
}

}  // namespace limitscope::ui
