#include "ui/kept_scroll_bar.h"

#include <QPaintEvent>
#include <QPainter>
#include <QStyle>

namespace limitscope::ui {
namespace {

bool same_picture(const QStyleOptionSlider& a, const QStyleOptionSlider& b) {
  return a.rect == b.rect && a.state == b.state && a.direction == b.direction &&
         a.orientation == b.orientation && a.minimum == b.minimum && a.maximum == b.maximum &&
         a.sliderPosition == b.sliderPosition && a.sliderValue == b.sliderValue &&
         a.singleStep == b.singleStep && a.pageStep == b.pageStep && a.upsideDown == b.upsideDown &&
         a.subControls == b.subControls && a.activeSubControls == b.activeSubControls;
}

}  // namespace

KeptScrollBar::KeptScrollBar(Qt::Orientation orientation, QWidget* parent)
    : QScrollBar(orientation, parent) {}

void KeptScrollBar::paintEvent(QPaintEvent* event) {
  if (underMouse() || isSliderDown()) {
    m_keptPalette = -1;  // hover and pressed states: QScrollBar knows them
    QScrollBar::paintEvent(event);
    return;
  }
  QStyleOptionSlider opt;
  initStyleOption(&opt);
  opt.subControls = QStyle::SC_All;
  opt.activeSubControls = QStyle::SC_None;  // nothing hovered or pressed
  const qreal dpr = devicePixelRatioF();
  if (m_keptPalette != palette().cacheKey() || m_kept.devicePixelRatio() != dpr ||
      !same_picture(opt, m_keptFor)) {
    m_kept = QPixmap((QSizeF(size()) * dpr).toSize());
    m_kept.setDevicePixelRatio(dpr);
    m_kept.fill(Qt::transparent);
    QPainter p(&m_kept);
    style()->drawComplexControl(QStyle::CC_ScrollBar, &opt, &p, this);
    m_keptFor = opt;
    m_keptPalette = palette().cacheKey();
    ++m_draws;
  }
  QPainter painter(this);
  const QRectF r = event->rect();
  painter.drawPixmap(r, m_kept, QRectF(r.topLeft() * dpr, r.size() * dpr));
}

}  // namespace limitscope::ui
