#include "ui/main_window.h"

#include <QLabel>

namespace limitscope::ui {

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
  setWindowTitle(QStringLiteral("limitscope"));
  auto* label = new QLabel(QStringLiteral("limitscope: the dashboard arrives with issue 4.\n"
                                          "The limiter core and CLI are live: limitscope-cli --help"),
                           this);
  label->setAlignment(Qt::AlignCenter);
  setCentralWidget(label);
  resize(1280, 800);
}

}  // namespace limitscope::ui
