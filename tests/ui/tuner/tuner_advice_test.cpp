// Verifies the Tuner's recommendation as an operator sees it: in a 1280×720 main window
// (offscreen), after a sweep of the simulation's mixed scenario, the recommendation text is
// shown in full — its label as tall as its wrapped text needs and not clipped by any ancestor —
// with numbers at sensible precision, the spend against the current setting and the spend
// limit (on by default, and off when turned off), on a log-spaced grid. With
// LIMITSCOPE_SCREENSHOT_DIR set, the window is saved there (tuner_advice.png).
#include <gtest/gtest.h>

#include <QLabel>
#include <QRegularExpression>
#include <QSignalSpy>
#include <cstdlib>

#include "support/qt_app.h"
#include "ui/main_window.h"
#include "ui/tuner/sweep_heatmap.h"
#include "ui/tuner/sweep_panel.h"
#include "ui/tuner/trace_panel.h"
#include "ui/tuner/tuner_tab.h"

namespace limitscope::ui {
namespace {

constexpr int kWaitMs = 120'000;  // an upper bound for a condition, not a sleep

// Whether every pixel of `w` is on screen inside its window: the height its wrapped text needs
// and a visible region (clipped by every ancestor, the scroll areas included) equal to its rect.
::testing::AssertionResult fully_visible(const QLabel* w) {
  if (!w->isVisible()) return ::testing::AssertionFailure() << "hidden";
  const int need = w->heightForWidth(w->width());
  if (need > w->height()) {
    return ::testing::AssertionFailure() << "needs " << need << " px, has " << w->height();
  }
  const QRect shown = w->visibleRegion().boundingRect();
  if (shown != w->rect()) {
    return ::testing::AssertionFailure() << "visible " << shown.width() << "×" << shown.height()
                                         << " of " << w->width() << "×" << w->height() << " px";
  }
  const QRect in_window(w->mapTo(w->window(), QPoint(0, 0)), w->size());
  if (!w->window()->rect().contains(in_window))
    return ::testing::AssertionFailure() << "outside the window";
  return ::testing::AssertionSuccess();
}

// Delivers the layout requests a new text posts, and those they post in turn, up the tree.
void settle() {
  for (int i = 0; i < 8; ++i) {
    QCoreApplication::sendPostedEvents();
    QCoreApplication::processEvents();
  }
}

TEST(TunerAdvice, TheRecommendationIsFullyVisibleAt1280x720WithSensiblePrecision) {
  test::ensure_qt_app();
  EmbeddedSimulationOptions o;
  o.scenario = "mixed";
  MainWindow w(o, /*start_running=*/false);
  auto* tab = new TunerTab;
  const int index = w.addWorkspaceTab(tab, QStringLiteral("Tuner"));
  w.resize(1280, 720);
  w.show();
  w.showWorkspaceTab(index);
  QSignalSpy loaded(tab, &TunerTab::traceLoaded);
  tab->tracePanel()->loadScenario(QStringLiteral("mixed"), 120);
  ASSERT_TRUE(loaded.wait(kWaitMs));
  QSignalSpy finished(tab, &TunerTab::sweepFinished);
  tab->sweepPanel()->runSweep();
  ASSERT_TRUE(finished.wait(kWaitMs));
  ASSERT_TRUE(finished.at(0).at(0).toBool()) << finished.at(0).at(1).toString().toStdString();
  settle();

  const QLabel* advice = tab->sweepPanel()->adviceLabel();
  const QString text = advice->text();
  ASSERT_FALSE(text.isEmpty());
  EXPECT_TRUE(fully_visible(advice)) << text.toStdString();
  // The spend against the current setting, under the spend limit that is on by default.
  EXPECT_TRUE(text.contains(QStringLiteral("the current setting")) &&
              text.contains(QStringLiteral("+10%")))
      << text.toStdString();
  // No figure printed with more precision than it carries (918.367/s, 6557.936).
  EXPECT_FALSE(text.contains(QRegularExpression(QStringLiteral("\\d\\.\\d{4,}|\\d{4,}\\.\\d"))))
      << text.toStdString();
  // The grid is log-spaced: even ratios between neighbouring capacities.
  const auto* result = tab->sweepPanel()->heatmap()->result();
  ASSERT_NE(result, nullptr);
  const int ys = tab->sweepPanel()->heatmap()->spec().y.steps;
  const double r1 = result->cells[static_cast<std::size_t>(ys)].x / result->cells[0].x;
  const double r2 = result->cells[static_cast<std::size_t>(2 * ys)].x /
                    result->cells[static_cast<std::size_t>(ys)].x;
  EXPECT_NEAR(r1, r2, 0.05 * r1);
  if (const char* dir = std::getenv("LIMITSCOPE_SCREENSHOT_DIR")) {
    EXPECT_TRUE(w.grab().save(QString::fromUtf8(dir) + QStringLiteral("/tuner_advice.png")));
  }

  // The spend limit turned off: the recommendation says so, and is still fully visible.
  tab->sweepPanel()->setSpendLimit(std::nullopt);
  QSignalSpy again(tab, &TunerTab::sweepFinished);
  tab->sweepPanel()->runSweep();
  ASSERT_TRUE(again.wait(kWaitMs));
  settle();
  EXPECT_TRUE(advice->text().contains(QStringLiteral("The spend limit is off.")))
      << advice->text().toStdString();
  EXPECT_TRUE(fully_visible(advice)) << advice->text().toStdString();
}

}  // namespace
}  // namespace limitscope::ui
