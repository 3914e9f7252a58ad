#include "ui/theme.h"

#include <QApplication>
#include <QPalette>
#include <QStyle>
#include <QStyleFactory>

namespace limitscope::ui {
namespace {
QPalette& systemPalette() {
  static QPalette palette = QApplication::palette();  // captured before we change it
  return palette;
}
}  // namespace

bool systemPrefersDark() {
  const QPalette& p = systemPalette();
  return p.color(QPalette::Window).lightness() < p.color(QPalette::WindowText).lightness();
}

void applyPalette(bool dark) {
  (void)systemPalette();
  QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
  if (!dark) {
    QApplication::setPalette(QApplication::style()->standardPalette());
    return;
  }
  QPalette p;
  const QColor window(37, 40, 44), base(28, 30, 33), text(222, 222, 222), mid(60, 64, 70);
  p.setColor(QPalette::Window, window);
  p.setColor(QPalette::WindowText, text);
  p.setColor(QPalette::Base, base);
  p.setColor(QPalette::AlternateBase, QColor(34, 37, 41));
  p.setColor(QPalette::ToolTipBase, mid);
  p.setColor(QPalette::ToolTipText, text);
  p.setColor(QPalette::Text, text);
  p.setColor(QPalette::Button, window);
  p.setColor(QPalette::ButtonText, text);
  p.setColor(QPalette::BrightText, Qt::red);
  p.setColor(QPalette::Highlight, QColor(38, 110, 180));
  p.setColor(QPalette::HighlightedText, Qt::white);
  p.setColor(QPalette::PlaceholderText, QColor(140, 140, 140));
  p.setColor(QPalette::Disabled, QPalette::Text, QColor(120, 120, 120));
  p.setColor(QPalette::Disabled, QPalette::ButtonText, QColor(120, 120, 120));
  p.setColor(QPalette::Mid, mid);
  QApplication::setPalette(p);
}

}  // namespace limitscope::ui
