// limitscope: the desktop dashboard. Parses the command line and shows the main window;
// everything else lives in ui/ and core/.

#include <QApplication>
#include <QCommandLineParser>
#include <QTimer>

#include <cstdio>

#include "core/sim/scenario.h"
#include "ui/main_window.h"
#include "ui/tuner/tuner_tab.h"

namespace {

int fail(const QString& message) {
  std::fprintf(stderr, "limitscope: %s\n", qPrintable(message));
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  QApplication::setApplicationName(QStringLiteral("limitscope"));
  QApplication::setOrganizationName(QStringLiteral("limitscope"));
  QApplication::setApplicationVersion(QStringLiteral("0.1.0"));

  QCommandLineParser parser;
  parser.setApplicationDescription(QStringLiteral("Rate-limiter dashboard for AI-API gateways"));
  parser.addHelpOption();
  parser.addVersionOption();
  const QCommandLineOption demo(QStringLiteral("demo"),
                                QStringLiteral("Run on the embedded simulation (the default)."));
  const QCommandLineOption scenario(QStringLiteral("scenario"),
                                    QStringLiteral("Simulation scenario: steady, burst, runaway, diurnal, "
                                                   "misconfigured-tenant, mixed (default)."),
                                    QStringLiteral("NAME"), QStringLiteral("mixed"));
  const QCommandLineOption seed(QStringLiteral("seed"), QStringLiteral("Simulation seed."),
                                QStringLiteral("N"), QStringLiteral("1"));
  const QCommandLineOption screenshot(QStringLiteral("screenshot"),
                                      QStringLiteral("Render the main window to PNG and exit."),
                                      QStringLiteral("PNG"));
  const QCommandLineOption after(QStringLiteral("after"),
                                 QStringLiteral("Seconds of simulated time before the screenshot."),
                                 QStringLiteral("SECONDS"), QStringLiteral("0"));
  const QCommandLineOption theme(QStringLiteral("theme"), QStringLiteral("light, dark or system."),
                                 QStringLiteral("THEME"));
  const QCommandLineOption playback(QStringLiteral("playback"),
                                    QStringLiteral("Play back a recorded session (docs/recording.md) instead of "
                                                   "the simulation. With --screenshot, --after places the cursor "
                                                   "that many seconds into the recording (default: its end)."),
                                    QStringLiteral("FILE"));
  const QCommandLineOption redis_url(QStringLiteral("redis"),
                                     QStringLiteral("Show the limiter keys of this Redis instead of the simulation "
                                                    "(redis://[user:password@]host:port/db; docs/probe.md)."),
                                     QStringLiteral("URL"));
  const QCommandLineOption profiles(QStringLiteral("profiles"),
                                    QStringLiteral("With --redis: schema profiles (JSON) tried before the built-in ones."),
                                    QStringLiteral("FILE"));
  parser.addOptions({demo, scenario, seed, screenshot, after, theme, playback, redis_url, profiles});
  const QCommandLineOption tab(QStringLiteral("tab"),
                               QStringLiteral("Open on this tab: dashboard (default) or tuner. With --screenshot "
                                              "and tuner: the Tuner on --scenario's trace (300 s) with a sweep."),
                               QStringLiteral("NAME"), QStringLiteral("dashboard"));
  parser.addOption(tab);
  parser.process(app);

  limitscope::EmbeddedSimulationOptions options;
  options.scenario = parser.value(scenario).toStdString();
  bool ok = false;
  options.seed = parser.value(seed).toULongLong(&ok);
  if (!ok) return fail(QStringLiteral("--seed \"%1\": not a whole number").arg(parser.value(seed)));
  if (!limitscope::make_scenario(options.scenario, options.scenario_length)) {
    return fail(QString::fromStdString(limitscope::make_scenario(options.scenario, options.scenario_length).error()));
  }
  const double after_s = parser.value(after).toDouble(&ok);
  if (!ok || after_s < 0 || after_s > 7 * 86400) {
    return fail(QStringLiteral("--after \"%1\": expected seconds between 0 and 604800").arg(parser.value(after)));
  }

  limitscope::ui::MainWindow window(options);
  // The Tuner tab; with --redis it reads that Redis's decision streams and applies to it.
  auto* tuner = new limitscope::ui::TunerTab(parser.value(redis_url));
  const int tuner_index = window.addWorkspaceTab(tuner, QObject::tr("Tuner"));
  if (parser.isSet(theme)) {
    const QString t = parser.value(theme);
    if (t == QLatin1String("dark")) window.setTheme(limitscope::ui::Theme::dark);
    else if (t == QLatin1String("light")) window.setTheme(limitscope::ui::Theme::light);
    else if (t == QLatin1String("system")) window.setTheme(limitscope::ui::Theme::system);
    else return fail(QStringLiteral("--theme \"%1\": expected light, dark or system").arg(t));
  }

  const bool shot = parser.isSet(screenshot);
  const QString shot_path = parser.value(screenshot);
  if (shot) {
    window.resize(1600, 1000);
    QObject::connect(&window, &limitscope::ui::MainWindow::screenshotSaved, &app,
                     [shot_path](const QString&, bool saved) {
                       if (!saved) std::fprintf(stderr, "limitscope: cannot write screenshot \"%s\"\n", qPrintable(shot_path));
                       QApplication::exit(saved ? 0 : 2);
                     });
  }
  window.show();
  if (parser.value(tab) == QLatin1String("tuner")) {
    window.showWorkspaceTab(tuner_index);
    if (shot) {
      // The picture waits for the tuner's trace, sweep and what-if chart, not for a source.
      QObject::connect(tuner, &limitscope::ui::TunerTab::demoReady, &window,
                       [&window, shot_path] { window.screenshotAfter(0, shot_path); });
      QObject::connect(tuner, &limitscope::ui::TunerTab::traceLoadFailed, &app, [](const QString& error) {
        std::fprintf(stderr, "limitscope: tuner: %s\n", qPrintable(error));
        QApplication::exit(2);
      });
      tuner->prepareDemo(QString::fromStdString(options.scenario), 300);
      return QApplication::exec();
    }
  } else if (parser.value(tab) != QLatin1String("dashboard")) {
    return fail(QStringLiteral("--tab \"%1\": expected dashboard or tuner").arg(parser.value(tab)));
  }
  if (parser.isSet(redis_url) && parser.isSet(playback)) {
    return fail(QStringLiteral("give one of --redis and --playback"));
  }
  if (parser.isSet(redis_url)) {
    // Opened on the worker; a URL or profiles file that cannot be used ends the program.
    QObject::connect(&window, &limitscope::ui::MainWindow::liveOpened, &window,
                     [&window, shot, shot_path, after_s](const QString& name, const QString& error) {
                       if (name.isEmpty()) {
                         std::fprintf(stderr, "limitscope: %s\n", qPrintable(error));
                         QApplication::exit(2);
                         return;
                       }
                       if (shot) window.screenshotAfter(after_s, shot_path);
                     });
    window.openRedis(parser.value(redis_url), parser.value(profiles));
  } else if (parser.isSet(playback)) {
    // Loading happens on the worker; a file that cannot be played at all ends the program.
    QObject::connect(&window, &limitscope::ui::MainWindow::playbackFailed, &app, [](const QString& error) {
      std::fprintf(stderr, "limitscope: %s\n", qPrintable(error));
      QApplication::exit(2);
    });
    QObject::connect(&window, &limitscope::ui::MainWindow::playbackOpened, &window,
                     [&window, shot, shot_path, after_s](const QString&, const QString& load_error) {
                       if (!load_error.isEmpty()) std::fprintf(stderr, "limitscope: %s\n", qPrintable(load_error));
                       if (shot) window.screenshotAfter(after_s, shot_path);
                     });
    window.openRecording(parser.value(playback));
  } else if (shot) {
    window.screenshotAfter(after_s, shot_path);
  }
  return QApplication::exec();
}
