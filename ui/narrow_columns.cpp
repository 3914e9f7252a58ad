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
}

int NarrowColumns::narrowBelow() const {
  return m_view->fontMetrics().horizontalAdvance(QLatin1Char('0')) * m_digits;
}

bool NarrowColumns::eventFilter(QObject* watched, QEvent* event) {
  if (watched == m_view->viewport() && event->type() == QEvent::Resize) update();
  return QObject::eventFilter(watched, event);
}

void NarrowColumns::update() {
  const bool narrow = m_view->viewport()->width() < narrowBelow();
  if (narrow == m_narrow) return;
  m_narrow = narrow;
  for (const int c : m_columns) m_header->setSectionHidden(c, narrow);
  if (m_stretch < 0) return;
  // A stretched last section never shrinks below the size it had before it was last, so the
  // header stops stretching its last section while the stretch column takes the rest.
  if (narrow) {
    m_stretchMode = m_header->sectionResizeMode(m_stretch);
    m_stretchLast = m_header->stretchLastSection();
    m_header->setStretchLastSection(false);
    m_header->setSectionResizeMode(m_stretch, QHeaderView::Stretch);
  } else {
    m_header->setSectionResizeMode(m_stretch, static_cast<QHeaderView::ResizeMode>(m_stretchMode));
    m_header->setStretchLastSection(m_stretchLast);
  }
}

}  // namespace limitscope::ui
