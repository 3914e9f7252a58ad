// limitscope: the desktop dashboard. Parses the command line and shows the main window;
// everything else lives in ui/ and core/.

#include <QApplication>
#include <QCommandLineParser>
#include <QFileInfo>
#include <QIcon>
#include <QTimer>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <string>

#include "core/common/parse_number.h"
#include "core/common/version.h"
#include "core/connections/secret_resolution.h"
#include "core/redis/redis_password.h"
#include "core/sim/scenario.h"
#include "ui/audits/audits_panel.h"
#include "ui/main_window.h"
#include "ui/rollout/rollout_panel.h"
#include "ui/tuner/tuner_tab.h"

namespace {

int fail(const QString& message) {
  std::fprintf(stderr, "limitscope: %s\n", qPrintable(message));
  return 2;
}

// --help and --version print text and exit: they need no display, so they run on a
// QCoreApplication (a terminal over ssh, a package check in a chroot).
bool only_prints_text(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    for (const char* flag : {"--help", "-h", "-?", "--help-all", "--version", "-v"}) {
      if (std::strcmp(argv[i], flag) == 0) return true;
    }
  }
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  const std::unique_ptr<QCoreApplication> application =
      only_prints_text(argc, argv) ? std::make_unique<QCoreApplication>(argc, argv)
                                   : std::make_unique<QApplication>(argc, argv);
  QCoreApplication& app = *application;
  QCoreApplication::setApplicationName(QStringLiteral("limitscope"));
  QCoreApplication::setOrganizationName(QStringLiteral("limitscope"));
  QCoreApplication::setApplicationVersion(QString::fromUtf8(
      limitscope::version().data(), static_cast<qsizetype>(limitscope::version().size())));
  if (qobject_cast<QApplication*>(&app) != nullptr) {
    QIcon icon;
    for (const char* size : {"32", "64", "256"}) {
      icon.addFile(QStringLiteral(":/icons/limitscope-%1.png").arg(QLatin1String(size)));
    }
    QApplication::setWindowIcon(QIcon::fromTheme(QStringLiteral("limitscope"), icon));
    QGuiApplication::setDesktopFileName(QStringLiteral("limitscope"));
  }

  QCommandLineParser parser;
  parser.setApplicationDescription(QStringLiteral("Rate-limiter dashboard for AI-API gateways"));
  parser.addHelpOption();
  parser.addVersionOption();
  const QCommandLineOption demo(QStringLiteral("demo"),
                                QStringLiteral("Run on the embedded simulation (the default)."));
  const QCommandLineOption scenario(
      QStringLiteral("scenario"),
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
  const QCommandLineOption playback(
      QStringLiteral("playback"),
      QStringLiteral("Play back a recorded session (docs/recording.md) instead of "
                     "the simulation. With --screenshot, --after places the cursor "
                     "that many seconds into the recording (default: its end)."),
      QStringLiteral("FILE"));
  const QCommandLineOption redis_url(
      QStringLiteral("redis"),
      QStringLiteral("Show the limiter keys of this Redis instead of the simulation "
                     "(redis://[user:password@]host:port/db; docs/probe.md)."),
      QStringLiteral("URL"));
  const QCommandLineOption redis_password_file(
      QStringLiteral("redis-password-file"),
      QStringLiteral(
          "With --redis: the Redis password, from a file only its owner may read (0600); else "
          "from LIMITSCOPE_REDIS_PASSWORD; either keeps it out of the command line."),
      QStringLiteral("FILE"));
  const QCommandLineOption profiles(
      QStringLiteral("profiles"),
      QStringLiteral("With --redis: schema profiles (JSON) tried before the built-in ones."),
      QStringLiteral("FILE"));
  const QCommandLineOption metrics_url(
      QStringLiteral("metrics"),
      QStringLiteral("Show a gateway's /metrics (scraped every second; docs/live-sources.md). "
                     "Combines with --redis and --prometheus. Auth from "
                     "LIMITSCOPE_METRICS_TOKEN (bearer) or LIMITSCOPE_METRICS_USER "
                     "and LIMITSCOPE_METRICS_PASSWORD."),
      QStringLiteral("URL"));
  const QCommandLineOption prometheus_url(
      QStringLiteral("prometheus"),
      QStringLiteral("Show the gateway series and the server's alerts of this Prometheus. "
                     "Auth from LIMITSCOPE_PROMETHEUS_TOKEN (bearer) or "
                     "LIMITSCOPE_PROMETHEUS_USER and LIMITSCOPE_PROMETHEUS_PASSWORD."),
      QStringLiteral("URL"));
  const QCommandLineOption rules(
      QStringLiteral("rules"),
      QStringLiteral("With live sources: alert rules (Prometheus rule file) instead of the "
                     "default and live rules."),
      QStringLiteral("FILE"));
  const QCommandLineOption report(
      QStringLiteral("report"),
      QStringLiteral("Write the incident summary (Markdown, and FILE's name with .png beside "
                     "it) at the moment --screenshot would, then exit; --after as for "
                     "--screenshot."),
      QStringLiteral("FILE.md"));
  const QCommandLineOption key_names(
      QStringLiteral("key-names"),
      QStringLiteral("With live sources: names of API keys, a CSV of api_key_hash,name "
                     "(limitscope-cli key-names writes one from a policy), for gateways "
                     "that export no limitscope_key_info."),
      QStringLiteral("FILE"));
  parser.addOptions({demo, scenario, seed, screenshot, after, theme, playback, redis_url,
                     redis_password_file, profiles, metrics_url, prometheus_url, rules, key_names,
                     report});
  const QCommandLineOption tab(
      QStringLiteral("tab"),
      QStringLiteral("Open on this tab: dashboard (default) or tuner. With --screenshot "
                     "and tuner: the Tuner on --scenario's trace (300 s) with a sweep."),
      QStringLiteral("NAME"), QStringLiteral("dashboard"));
  parser.addOption(tab);
  const QCommandLineOption window_size(
      QStringLiteral("window-size"),
      QStringLiteral("Window size in pixels, e.g. 1280x720 (default 1600x1000; "
                     "what --screenshot and --report draw)."),
      QStringLiteral("WxH"), QStringLiteral("1600x1000"));
  parser.addOption(window_size);
  parser.process(app);

  limitscope::EmbeddedSimulationOptions options;
  options.scenario = parser.value(scenario).toStdString();
  bool ok = false;
  options.seed = parser.value(seed).toULongLong(&ok);
  if (!ok) return fail(QStringLiteral("--seed \"%1\": not a whole number").arg(parser.value(seed)));
  if (!limitscope::make_scenario(options.scenario, options.scenario_length)) {
    return fail(QString::fromStdString(
        limitscope::make_scenario(options.scenario, options.scenario_length).error()));
  }
  const std::optional<double> after_parsed =
      limitscope::parse_finite(parser.value(after).toStdString());
  if (!after_parsed || *after_parsed < 0 || *after_parsed > 7 * 86400) {
    return fail(QStringLiteral("--after \"%1\": expected seconds between 0 and 604800")
                    .arg(parser.value(after)));
  }
  const double after_s = *after_parsed;

  // --redis with the password from --redis-password-file or LIMITSCOPE_REDIS_PASSWORD, by the
  // rules of the CLI and the gateway (docs/live-sources.md).
  QString redis_text;
  if (parser.isSet(redis_url)) {
    std::optional<std::string> file;
    if (parser.isSet(redis_password_file)) file = parser.value(redis_password_file).toStdString();
    auto resolved = limitscope::connections::redis_url_text_with_password_source(
        parser.value(redis_url).toStdString(), file, std::getenv(limitscope::redis::kPasswordEnv));
    if (!resolved)
      return fail(QStringLiteral("--redis: ") + QString::fromStdString(resolved.error()));
    redis_text = QString::fromStdString(*resolved);
  } else if (parser.isSet(redis_password_file)) {
    return fail(QStringLiteral("--redis-password-file needs --redis URL"));
  }

  // WxH, each from 640 to 8192: a screenshot of a size that shows nothing is a mistake.
  const QStringList size_parts = parser.value(window_size).split(QLatin1Char('x'));
  bool w_ok = false, h_ok = false;
  const int win_w = size_parts.size() == 2 ? size_parts[0].toInt(&w_ok) : 0;
  const int win_h = size_parts.size() == 2 ? size_parts[1].toInt(&h_ok) : 0;
  if (!w_ok || !h_ok || win_w < 640 || win_h < 480 || win_w > 8192 || win_h > 8192) {
    return fail(QStringLiteral("--window-size \"%1\": expected WIDTHxHEIGHT, 640x480 to 8192x8192")
                    .arg(parser.value(window_size)));
  }

  limitscope::ui::MainWindow window(options);
  if (parser.isSet(window_size)) window.resize(win_w, win_h);
  // The Tuner tab; with --redis it reads that Redis's decision streams and applies to it.
  auto* tuner = new limitscope::ui::TunerTab(redis_text);
  const int tuner_index = window.addWorkspaceTab(tuner, QObject::tr("Tuner"));
  // The Tuner names keys as the dashboard's rows do (names from the gateway or --key-names).
  QObject::connect(&window, &limitscope::ui::MainWindow::snapshotApplied, tuner, [&window, tuner] {
    if (const auto shown = window.lastSnapshot()) tuner->setKeyNames(shown->keys);
  });
  // The Audits tab audits what the dashboard watches (File > Connect too), and --redis.
  auto* audits = new limitscope::ui::AuditsPanel;
  window.addWorkspaceTab(audits, QObject::tr("Audits"));
  if (!redis_text.isEmpty()) audits->setRedisUrl(redis_text);
  QObject::connect(&window, &limitscope::ui::MainWindow::liveRequested, audits,
                   &limitscope::ui::AuditsPanel::setSources);
  // The Rollout tab: a rule's staged rollout on --redis (File > Connect too), its guard on the
  // dashboard's /metrics or Prometheus by default.
  auto* rollout = new limitscope::ui::RolloutPanel;
  window.addWorkspaceTab(rollout, QObject::tr("Rollout"));
  if (!redis_text.isEmpty()) rollout->setRedisUrl(redis_text);
  QObject::connect(&window, &limitscope::ui::MainWindow::liveRequested, rollout,
                   [rollout](const limitscope::LiveSpec& spec) {
                     if (!spec.redis_url.empty())
                       rollout->setRedisUrl(QString::fromStdString(spec.redis_url));
                     rollout->setGuardSource(QString::fromStdString(spec.metrics_url),
                                             QString::fromStdString(spec.prometheus_url));
                   });
  if (parser.isSet(theme)) {
    const QString t = parser.value(theme);
    if (t == QLatin1String("dark"))
      window.setTheme(limitscope::ui::Theme::dark);
    else if (t == QLatin1String("light"))
      window.setTheme(limitscope::ui::Theme::light);
    else if (t == QLatin1String("system"))
      window.setTheme(limitscope::ui::Theme::system);
    else
      return fail(QStringLiteral("--theme \"%1\": expected light, dark or system").arg(t));
  }

  // --report is a screenshot too: the summary is written once the picture is (of the same moment).
  const QString report_path = parser.value(report);
  const bool shot = parser.isSet(screenshot) || parser.isSet(report);
  const QString shot_path = parser.isSet(screenshot)
                                ? parser.value(screenshot)
                                : QFileInfo(report_path).path() + QLatin1Char('/') +
                                      QFileInfo(report_path).completeBaseName() +
                                      QStringLiteral(".png");
  if (shot) {
    window.resize(win_w, win_h);
    QObject::connect(&window, &limitscope::ui::MainWindow::screenshotSaved, &app,
                     [&window, shot_path, report_path](const QString&, bool saved) {
                       if (!saved)
                         std::fprintf(stderr, "limitscope: cannot write screenshot \"%s\"\n",
                                      qPrintable(shot_path));
                       if (!saved || report_path.isEmpty()) {
                         QApplication::exit(saved ? 0 : 2);
                         return;
                       }
                       window.exportIncidentSummary(report_path);
                     });
    QObject::connect(&window, &limitscope::ui::MainWindow::reportSaved, &app,
                     [](const QString&, const limitscope::Status& written) {
                       if (!written.ok())
                         std::fprintf(stderr, "limitscope: %s\n", written.error().c_str());
                       QApplication::exit(written.ok() ? 0 : 2);
                     });
  }
  window.show();
  if (parser.value(tab) == QLatin1String("tuner")) {
    window.showWorkspaceTab(tuner_index);
    if (shot) {
      // The picture waits for the tuner's trace, sweep and what-if chart, not for a source.
      QObject::connect(tuner, &limitscope::ui::TunerTab::demoReady, &window,
                       [&window, shot_path] { window.screenshotAfter(0, shot_path); });
      QObject::connect(tuner, &limitscope::ui::TunerTab::traceLoadFailed, &app,
                       [](const QString& error) {
                         std::fprintf(stderr, "limitscope: tuner: %s\n", qPrintable(error));
                         QApplication::exit(2);
                       });
      tuner->prepareDemo(QString::fromStdString(options.scenario), 300);
      return QApplication::exec();
    }
  } else if (parser.value(tab) != QLatin1String("dashboard")) {
    return fail(QStringLiteral("--tab \"%1\": expected dashboard or tuner").arg(parser.value(tab)));
  }
  const bool live =
      parser.isSet(redis_url) || parser.isSet(metrics_url) || parser.isSet(prometheus_url);
  if (live && parser.isSet(playback)) {
    return fail(QStringLiteral(
        "give --playback alone, or live sources (--redis, --metrics, --prometheus)"));
  }
  if (!live && (parser.isSet(profiles) || parser.isSet(rules) || parser.isSet(key_names))) {
    return fail(
        QStringLiteral("--profiles, --rules and --key-names need a live source (--redis, --metrics "
                       "or --prometheus)"));
  }
  if (live) {
    limitscope::LiveSpec spec;
    spec.redis_url = redis_text.toStdString();
    spec.profiles_file = parser.value(profiles).toStdString();
    spec.metrics_url = parser.value(metrics_url).toStdString();
    spec.prometheus_url = parser.value(prometheus_url).toStdString();
    spec.rules_file = parser.value(rules).toStdString();
    spec.key_names_file = parser.value(key_names).toStdString();
    // Secrets come from the environment, never from the command line (ps shows it).
    const auto env = [](const char* name) {
      const char* v = std::getenv(name);
      return std::string(v != nullptr ? v : "");
    };
    spec.prometheus_auth = {env("LIMITSCOPE_PROMETHEUS_TOKEN"), env("LIMITSCOPE_PROMETHEUS_USER"),
                            env("LIMITSCOPE_PROMETHEUS_PASSWORD")};
    spec.metrics_auth = {env("LIMITSCOPE_METRICS_TOKEN"), env("LIMITSCOPE_METRICS_USER"),
                         env("LIMITSCOPE_METRICS_PASSWORD")};
    // Opened on the worker; an input that cannot be used ends the program. A screenshot of a
    // live source waits --after seconds of real time while the sources refresh, then renders.
    QObject::connect(
        &window, &limitscope::ui::MainWindow::liveOpened, &window,
        [&window, shot, shot_path, after_s](const QString&, const limitscope::Status& opened) {
          if (!opened.ok()) {
            std::fprintf(stderr, "limitscope: %s\n", opened.error().c_str());
            QApplication::exit(2);
            return;
          }
          if (!shot) return;
          QTimer::singleShot(static_cast<int>(after_s * 1000), &window,
                             [&window, shot_path] { window.screenshotAfter(0, shot_path); });
        });
    window.openLive(spec);
  } else if (parser.isSet(playback)) {
    // Loading happens on the worker; a file that cannot be played at all ends the program.
    QObject::connect(&window, &limitscope::ui::MainWindow::playbackFailed, &app,
                     [](const QString& error) {
                       std::fprintf(stderr, "limitscope: %s\n", qPrintable(error));
                       QApplication::exit(2);
                     });
    QObject::connect(
        &window, &limitscope::ui::MainWindow::playbackOpened, &window,
        [&window, shot, shot_path, after_s](const QString&, const QString& load_error) {
          if (!load_error.isEmpty())
            std::fprintf(stderr, "limitscope: %s\n", qPrintable(load_error));
          if (shot) window.screenshotAfter(after_s, shot_path);
        });
    window.openRecording(parser.value(playback));
  } else if (shot) {
    window.screenshotAfter(after_s, shot_path);
  }
  return QApplication::exec();
}
