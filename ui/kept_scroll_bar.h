#pragma once
// A scroll bar painted from a picture of itself, drawn again only when what the style draws
// changes (range, position, page step, size, state, palette). An item view lays out its scroll
// bars on each relayout and QAbstractScrollArea raises both scroll bar containers each time,
// which repaints them: the key table's two took about 5% of a dashboard update (Fusion's
// gradients), every update, to paint the same pixels. While the pointer is over it or its
// slider is held, it paints as QScrollBar does (hover and pressed states).

#include <QPixmap>
#include <QScrollBar>
#include <QStyleOptionSlider>

namespace limitscope::ui {

class KeptScrollBar : public QScrollBar {
  Q_OBJECT
 public:
  explicit KeptScrollBar(Qt::Orientation orientation, QWidget* parent = nullptr);
  /// How many times the picture was drawn (for tests).
  int drawCount() const { return m_draws; }

 protected:
  void paintEvent(QPaintEvent* event) override;

 private:
  QPixmap m_kept;
  QStyleOptionSlider m_keptFor;  // what m_kept shows
  qint64 m_keptPalette = -1;     // the palette's cacheKey it was drawn with
  int m_draws = 0;
};

}  // namespace limitscope::ui
