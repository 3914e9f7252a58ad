#include "ui/narrow_columns.h"

#include <QAbstractItemView>
#include <QEvent>
#include <QHeaderView>
#include <algorithm>

namespace limitscope::ui {

NarrowColumns::NarrowColumns(QAbstractItemView* view, QHeaderView* header, std::vector<int> columns,
                             int digits, int stretch)
    : QObject(view),
      m_view(view),
      m_header(header),
      m_columns(std::move(columns)),
      m_digits(digits),
      m_stretch(stretch) {
  // The viewport's own resize: it comes after the view has laid out its scroll bars. The
  // header is resized after it (the view's geometries): a stretched section still fills the
  // old width until then, so a shown header is measured once it has handled its own resize.
  view->viewport()->installEventFilter(this);
  header->installEventFilter(this);
  // Columns sized to their contents grow when rows arrive, with the viewport as it was. The
  // header is then inside its own resize of every section, where hiding one would leave its
  // length counting the hidden widths: the check waits for the events in hand (once for all).
  connect(header, &QHeaderView::sectionResized, this, &NarrowColumns::postUpdate);
  // The hidden columns' contents change without resizing a section: narrow, the rows are
  // measured again (needsNow) when they change.
  if (QAbstractItemModel* m = view->model(); m != nullptr) {
    using M = QAbstractItemModel;
    connect(m, &M::modelReset, this, &NarrowColumns::postUpdate);
    for (const auto signal : {&M::rowsInserted, &M::rowsRemoved})
      connect(m, signal, this, &NarrowColumns::postUpdate);
    connect(m, &M::dataChanged, this, &NarrowColumns::postUpdate);
    connect(m, &M::layoutChanged, this, &NarrowColumns::postUpdate);
  }
}

void NarrowColumns::postUpdate() {
  if (m_updatePosted) return;
  m_updatePosted = true;
  QMetaObject::invokeMethod(
      this,
      [this] {
        m_updatePosted = false;
        update();
      },
      Qt::QueuedConnection);
}

int NarrowColumns::narrowBelow() const {
  return m_view->fontMetrics().horizontalAdvance(QLatin1Char('0')) * m_digits;
}

bool NarrowColumns::eventFilter(QObject* watched, QEvent* event) {
  if (event->type() != QEvent::Resize) return QObject::eventFilter(watched, event);
  if (watched == m_view->viewport()) {
    // A header still at the old width has not stretched its sections to the new one yet.
    if (!m_header->isVisible() || m_header->width() == m_view->viewport()->width()) update();
  } else if (watched == m_header) {
    postUpdate();  // once the header has handled its resize (filters see it first)
  }
  return QObject::eventFilter(watched, event);
}

void NarrowColumns::update() {
  if (m_updating) return;
  const int width = m_view->viewport()->width();
  if (width < narrowBelow()) return setNarrow(true);
  // Narrow: the hidden columns come back once they fit at what they hold now.
  if (m_narrow && width >= needsNow()) setNarrow(false);
  // Wide: every column is shown, so the header's length is what they need (more than last
  // time if their contents grew while they were hidden).
  const int needs = m_header->length();
  if (!m_narrow && needs > width) {
    // What needsNow() measures from: the widths this length is made of, and what the columns
    // sized to their contents measured.
    m_wideNeeds = needs;
    const auto count = static_cast<std::size_t>(m_header->count());
    m_widths.assign(count, 0);
    m_contents.assign(count, 0);
    for (int c = 0; c < m_header->count(); ++c) {
      const auto i = static_cast<std::size_t>(c);
      m_widths[i] = m_header->sectionSize(c);  // 0 when hidden
      if (m_header->sectionResizeMode(c) == QHeaderView::ResizeToContents)
        m_contents[i] = contentWidth(c);
    }
    setNarrow(true);
  }
}

int NarrowColumns::contentWidth(int c) const {
  // As QHeaderView sizes a ResizeToContents section: the view's hint for the rows in view or
  // the header's own, within the header's bounds. (A hidden column is measured all the same.)
  const int hint = std::max(m_view->sizeHintForColumn(c), m_header->sectionSizeHint(c));
  return std::clamp(hint, m_header->minimumSectionSize(), m_header->maximumSectionSize());
}

int NarrowColumns::needsNow() const {
  const auto count = static_cast<std::size_t>(m_header->count());
  // Never measured: 0, so the columns are shown and measured (update()).
  if (!m_narrow || m_wideNeeds == 0 || m_widths.size() != count) return 0;
  // The last section shown, stretched while narrow when the header stretches its last.
  int last = -1;
  for (int v = m_header->count() - 1; v >= 0 && last < 0; --v) {
    if (!m_header->isSectionHidden(m_header->logicalIndex(v))) last = m_header->logicalIndex(v);
  }
  // The length measured with every column shown, changed by what changed in each column since:
  // a column sized to its contents by its contents (measured both times alike, so contents
  // that did not change change nothing), one hidden or stretched here and not sized to its
  // contents not at all, any other by its width now.
  int needs = m_wideNeeds;
  for (int c = 0; c < m_header->count(); ++c) {
    const auto i = static_cast<std::size_t>(c);
    const bool ours = std::find(m_columns.begin(), m_columns.end(), c) != m_columns.end();
    const bool stretched =
        c == m_stretch || (m_stretch < 0 && m_header->stretchLastSection() && c == last);
    if (ours || stretched) {
      const auto mode = c == m_stretch ? static_cast<QHeaderView::ResizeMode>(m_stretchMode)
                                       : m_header->sectionResizeMode(c);
      if (mode == QHeaderView::ResizeToContents && m_widths[i] > 0)
        needs += contentWidth(c) - m_contents[i];
    } else {
      needs += m_header->sectionSize(c) - m_widths[i];  // 0 when hidden
    }
  }
  return needs;
}

void NarrowColumns::setNarrow(bool narrow) {
  if (narrow == m_narrow) return;
  m_updating = true;
  m_narrow = narrow;
  // Before the columns hide: then it may be the last shown, stretched.
  if (narrow && m_stretch >= 0) m_stretchSize = m_header->sectionSize(m_stretch);
  for (const int c : m_columns) m_header->setSectionHidden(c, narrow);
  if (m_stretch >= 0) {
    // A stretched last section never shrinks below the size it had before it was last, so the
    // header stops stretching its last section while the stretch column takes the rest.
    if (narrow) {
      m_stretchMode = m_header->sectionResizeMode(m_stretch);
      m_stretchLast = m_header->stretchLastSection();
      m_header->setStretchLastSection(false);
      m_header->setSectionResizeMode(m_stretch, QHeaderView::Stretch);
    } else {
      const auto mode = static_cast<QHeaderView::ResizeMode>(m_stretchMode);
      m_header->setSectionResizeMode(m_stretch, mode);
      // Stretched, it took the width the others left: its own width again (else the columns
      // shown need that width too, and do not fit where they did).
      if (mode == QHeaderView::Interactive || mode == QHeaderView::Fixed)
        m_header->resizeSection(m_stretch, m_stretchSize);
      m_header->setStretchLastSection(m_stretchLast);
    }
  }
  m_updating = false;
}

}  // namespace limitscope::ui
