// limitscope: the desktop dashboard. Parses the command line and shows the main window;
// everything else lives in ui/ and core/.

#include <QApplication>
#include <QCommandLineParser>
#include <QTimer>

#include <cstdio>

#include "ui/main_window.h"

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  QApplication::setApplicationName(QStringLiteral("limitscope"));
  QApplication::setOrganizationName(QStringLiteral("limitscope"));

  QCommandLineParser parser;
  parser.setApplicationDescription(QStringLiteral("Rate-limiter dashboard for AI-API gateways"));
  parser.addHelpOption();
  parser.addOption({QStringLiteral("demo"), QStringLiteral("Run on the embedded simulation (default).")});
  parser.addOption({QStringLiteral("screenshot"),
                    QStringLiteral("Render the main window to PNG and exit."), QStringLiteral("PNG")});
  parser.addOption({QStringLiteral("after"),
                    QStringLiteral("Seconds of simulated time before the screenshot."),
                    QStringLiteral("SECONDS"), QStringLiteral("0")});
  parser.process(app);

  limitscope::ui::MainWindow window;
  window.show();

  if (parser.isSet(QStringLiteral("screenshot"))) {
    const QString path = parser.value(QStringLiteral("screenshot"));
    QTimer::singleShot(0, &window, [&window, path] {
      const bool ok = window.grab().save(path, "PNG");
      if (!ok) std::fprintf(stderr, "limitscope: cannot write screenshot \"%s\"\n", qPrintable(path));
      QApplication::exit(ok ? 0 : 2);
    });
  }
  return QApplication::exec();
}
