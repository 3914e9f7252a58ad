#pragma once
// One QApplication for a gtest program (widgets need it); offscreen unless told otherwise.

#include <QApplication>
#include <cstdlib>

namespace limitscope::test {

inline QApplication& ensure_qt_app() {
  if (auto* app = qobject_cast<QApplication*>(QCoreApplication::instance())) return *app;
  if (std::getenv("QT_QPA_PLATFORM") == nullptr) setenv("QT_QPA_PLATFORM", "offscreen", 1);
  static int argc = 1;
  static char name[] = "limitscope-tests";
  static char* argv[] = {name, nullptr};
  static QApplication* app = new QApplication(argc, argv);
  return *app;
}

}  // namespace limitscope::test
