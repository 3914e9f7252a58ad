#pragma once
// The dashboard's top-level window. It only arranges views; data arrives from core sources
// through models in ui/models, never computed here.

#include <QMainWindow>

namespace limitscope::ui {

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  explicit MainWindow(QWidget* parent = nullptr);
};

}  // namespace limitscope::ui
