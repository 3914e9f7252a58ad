#include "ui/narrow_columns.h"

#include <QAbstractItemView>
#include <QEvent>
#include <QHeaderView>

namespace limitscope::ui {

NarrowColumns::NarrowColumns(QAbstractItemView* view, QHeaderView* header, std::vector<int> columns,
                             int digits, int stretch)
    : QObject(view),
      m_view(view),
      m_header(header),
      m_columns(std::move(columns)),
      m_digits(digits),
      m_stretch(stretch) {
  // The viewport's own resize: it comes after the view has laid out its scroll bars.
  view->viewport()->installEventFilter(this);
  // Columns sized to their contents grow when rows arrive, with the viewport as it was. The
  // header is then inside its own resize of every section, where hiding one would leave its
  // length counting the hidden widths: the check waits for the events in hand (once for all).
  connect(header, &QHeaderView::sectionResized, this, [this] {
    if (m_updatePosted) return;
    m_updatePosted = true;
    QMetaObject::invokeMethod(
        this,
        [this] {
          m_updatePosted = false;
          update();
        },
        Qt::QueuedConnection);
  });
}

int NarrowColumns::narrowBelow() const {
  return m_view->fontMetrics().horizontalAdvance(QLatin1Char('0')) * m_digits;
}

bool NarrowColumns::eventFilter(QObject* watched, QEvent* event) {
  if (watched == m_view->viewport() && event->type() == QEvent::Resize) update();
  return QObject::eventFilter(watched, event);
}

void NarrowColumns::update() {
  if (m_updating) return;
  const int width = m_view->viewport()->width();
  if (width < narrowBelow()) return setNarrow(true);
  // Narrow: the hidden columns come back once the width they last needed is there.
  if (m_narrow && width >= m_wideNeeds) setNarrow(false);
  // Wide: every column is shown, so the header's length is what they need (more than last
  // time if their contents grew while they were hidden).
  const int needs = m_header->length();
  if (!m_narrow && needs > width) {
    m_wideNeeds = needs;
    setNarrow(true);
  }
}

void NarrowColumns::setNarrow(bool narrow) {
  if (narrow == m_narrow) return;
  m_updating = true;
  m_narrow = narrow;
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
      m_header->setSectionResizeMode(m_stretch,
                                     static_cast<QHeaderView::ResizeMode>(m_stretchMode));
      m_header->setStretchLastSection(m_stretchLast);
    }
  }
  m_updating = false;
}

}  // namespace limitscope::ui
