// Verifies the dashboard's layout for an incident (issue 16, items 5 and 7) on real widgets
// offscreen: an alert's band goes along the line its labels select, in that line's colour, not
// over the whole plot; threshold lines carry their value; the 429 and quota charts offer a log
// scale that lifts a 0.5/s threshold off the x axis beside a 1,500/s runaway; a chart with
// nothing to show collapses to a one-line note and the others take its room; at 1600×1000 the
// key table shows name, tier, level, 429/s, peak 429/s, spend and burn without scrolling; and
// at 1280×720 every chart's legend lists all its lines and every axis title fits its axis; and
// at both sizes every row in view says which limit it is on, as painted.

#include <gtest/gtest.h>

#include <QAbstractButton>
#include <QApplication>
#include <QHeaderView>
#include <QImage>
#include <QLabel>
#include <QScrollBar>
#include <QSet>
#include <QStyleOptionViewItem>
#include <QTableView>
#include <QToolButton>
#include <QTreeView>
#include <QValueAxis>

#include "support/chart_data.h"
#include "support/qt_app.h"
#include "ui/alert_tree_view.h"
#include "ui/charts/chart_stack.h"
#include "ui/charts/time_chart.h"
#include "ui/key_table_view.h"
#include "ui/main_window.h"
#include "ui/models/alert_table_model.h"
#include "ui/models/decision_table_model.h"
#include "ui/models/key_table_model.h"
#include "ui/narrow_columns.h"
#include "ui/theme.h"

namespace limitscope::ui {
namespace {

constexpr std::int64_t kT0 = 1'800'000'000'000;

ChartLine line(const std::string& name, std::vector<metrics::Point> pts) {
  ChartLine l;
  l.name = name;
  l.points = std::move(pts);
  return l;
}

// A chart at the size these tests measure, in the light palette.
void light_chart(TimeChart& chart) {
  chart.resize(900, 320);
  chart.setDark(false);
}

// 429s by tier: free runs away to 1,500/s in the second half, pro holds 24/s; the rule fires on
// the free tier only.
ChartData runaway_429s() {
  ChartData d = test::rejections_frame();
  std::vector<metrics::Point> free, pro;
  for (std::int64_t t = 0; t <= 60'000; t += 1'000) {
    free.push_back({static_cast<double>(kT0 + t), t >= 30'000 ? 1500.0 : 0.2});
    pro.push_back({static_cast<double>(kT0 + t), 24.0});
  }
  d.lines = {line("free", free), line("pro", pro)};
  d.rules = {"HighRateLimitRejection"};
  d.bands = {AlertBand{"HighRateLimitRejection", kT0 + 30'000, kT0 + 60'000, true, true, "free",
                       "tier=\"free\""}};
  return d;
}

TEST(IncidentLayout, TheFiringTiersLineCarriesTheBandInItsColour) {
  test::ensure_qt_app();
  applyPalette(false);
  TimeChart chart({});
  light_chart(chart);
  chart.show();
  // The rule's interval as alert_view gives it (the whole rule): drawn per line instead.
  const std::vector<AlertInterval> ivs{
      {"HighRateLimitRejection", kT0 + 30'000, kT0 + 60'000, true, true}};
  chart.setData(runaway_429s(), ivs, kT0, kT0 + 60'000);
  QApplication::processEvents();
  EXPECT_TRUE(chart.shadedIntervals().empty()) << "a band over the whole plot";
  ASSERT_EQ(chart.alertBands().size(), 1u);
  EXPECT_EQ(chart.thresholdLabels(), QStringList{QStringLiteral("0.5/s")});

  const QImage img = chart.grab().toImage();
  const QRectF plot = chart.chart()->mapToScene(chart.chart()->plotArea()).boundingRect();
  const auto x_at = [&](std::int64_t t) {
    return static_cast<int>(plot.left() + plot.width() * static_cast<double>(t) / 60'000.0);
  };
  const QColor free = chart.lineColor(QStringLiteral("free"));
  ASSERT_TRUE(free.isValid());
  // Just off the free line, inside the firing stretch: its halo, in the line's colour.
  const QColor halo = img.pixelColor(x_at(45'000), static_cast<int>(chart.yPixel(1500)) + 4);
  const QColor blank = img.pixelColor(x_at(15'000), static_cast<int>(chart.yPixel(1500)) + 4);
  const auto distance = [](const QColor& a, const QColor& b) {
    return std::abs(a.red() - b.red()) + std::abs(a.green() - b.green()) +
           std::abs(a.blue() - b.blue());
  };
  EXPECT_LT(distance(halo, free), distance(blank, free) - 60)
      << "halo " << halo.name().toStdString() << ", line " << free.name().toStdString();
  // Halfway down, between the lines, in the same stretch: no red wash over the pro tier.
  const QColor middle = img.pixelColor(x_at(45'000), static_cast<int>(chart.yPixel(750)));
  EXPECT_LT(middle.red() - middle.green(), 15) << middle.name().toStdString();
}

TEST(IncidentLayout, ALogScaleLiftsTheThresholdOffTheAxis) {
  test::ensure_qt_app();
  TimeChart chart({});
  light_chart(chart);
  chart.setLogScaleToggle(true);
  chart.show();
  chart.setData(runaway_429s(), {}, kT0, kT0 + 60'000);
  QApplication::processEvents();
  const QRectF plot = chart.chart()->mapToScene(chart.chart()->plotArea()).boundingRect();
  // Linear: 0.5/s sits within two pixels of zero beside 1,500/s.
  EXPECT_LT(chart.yPixel(0) - chart.yPixel(0.5), 2.0);
  ASSERT_NE(chart.logScaleButton(), nullptr);
  EXPECT_TRUE(chart.logScaleButton()->isVisible());
  chart.logScaleButton()->click();
  QApplication::processEvents();
  ASSERT_TRUE(chart.isLogScale());
  const double height = plot.height();
  EXPECT_GT(chart.yPixel(0) - chart.yPixel(0.5), height / 10)
      << "the threshold is still on the axis";
  EXPECT_GT(chart.yPixel(0.5) - chart.yPixel(24), height / 5)
      << "pro's 24/s is not apart from 0.5/s";
  EXPECT_TRUE(chart.pointsOf(QStringLiteral("free")).size() > 0);
  chart.logScaleButton()->click();
  EXPECT_FALSE(chart.isLogScale());
  EXPECT_LT(chart.yPixel(0) - chart.yPixel(0.5), 2.0);
}

TEST(IncidentLayout, LegendsKeepTheModelWholeAndNeverRepeatALabel) {
  test::ensure_qt_app();
  TimeChart chart({});
  light_chart(chart);
  ChartData d;
  d.title = "levels";
  d.y_max = 1.0;
  for (const char* model : {"gemini-2.5-flash", "claude-sonnet-4.5"}) {
    for (const char* limit : {"requests", "llm_tokens"}) {
      d.lines.push_back(
          line(std::string("northbank-assistant-production-eu / ") + model + " / " + limit,
               {{double(kT0), 0.5}, {double(kT0 + 1000), 0.4}}));
    }
  }
  chart.setData(d, {}, kT0, kT0 + 1000);
  const QStringList labels = chart.legendLabels();
  ASSERT_EQ(labels.size(), 4);
  EXPECT_EQ(QSet<QString>(labels.begin(), labels.end()).size(), 4)
      << labels.join(QStringLiteral(" | ")).toStdString();
  for (const QString& l : labels) {
    EXPECT_TRUE(l.contains(QStringLiteral(" / gemini-2.5-flash")) ||
                l.contains(QStringLiteral(" / claude-sonnet-4.5")))
        << "the model was elided: " << l.toStdString();
    EXPECT_TRUE(l.startsWith(QStringLiteral("nor"))) << l.toStdString();
  }
}

TEST(IncidentLayout, AnOutagesLabelStaysReadableOverTheLines) {
  test::ensure_qt_app();
  applyPalette(false);
  TimeChart chart({});
  light_chart(chart);
  chart.show();
  ChartData d;
  d.title = "levels";
  d.y_max = 1.0;
  // A key at 97% of capacity runs along the top of the plot, where the label goes.
  d.lines = {line("full-key / gpt-4.1", {{double(kT0), 0.97}, {double(kT0 + 60'000), 0.97}})};
  d.no_data = {NoDataBand{"redis", kT0 + 20'000, kT0 + 60'000, true}};
  chart.setData(d, {}, kT0, kT0 + 60'000);
  QApplication::processEvents();
  const QImage img = chart.grab().toImage();
  const QRectF plot = chart.chart()->mapToScene(chart.chart()->plotArea()).boundingRect();
  const int x =
      static_cast<int>(plot.left() + plot.width() * 20.0 / 60.0) + 3;  // the label's left margin
  const QColor at = img.pixelColor(x, static_cast<int>(chart.yPixel(0.97)));
  EXPECT_GT(at.lightness(), 220) << "the line runs over the label: " << at.name().toStdString();
}

KeyRow tenant(int i) {
  KeyRow r;
  r.api_key = "0123456789ab" + std::to_string(i);
  r.name = i == 0 ? "northbank-assistant-prod-eu" : "tenant-" + std::to_string(i);
  r.tier = i % 3 == 0 ? "enterprise" : "pro";
  r.model = "claude-sonnet-4.5";
  r.limit = "llm_tokens";
  r.algorithm = "token-bucket";
  r.parameters = "token-bucket capacity=2000000 refill=2000000/min";
  r.capacity = 2'000'000;
  r.level = 0.4 + 0.01 * i;
  r.rejected_per_s = 12.5 * i;
  r.peak_rejected_per_s = 1500.0;
  r.requests_per_s = 40;
  r.spend = 1234.56;
  r.quota_burn = 0.93;
  r.sparkline = {1, 0.8, 0.6, 0.4};
  return r;
}

// `lines` lines on the bucket-levels chart: what the worker draws for a view of max_lines.
std::shared_ptr<DashboardSnapshot> incident_snapshot(int lines = 8) {
  auto s = std::make_shared<DashboardSnapshot>();
  s->now_ms = kT0 + 60'000;
  for (int i = 0; i < 12; ++i) s->keys.push_back(tenant(i));
  ChartData levels;
  levels.kind = ChartKind::bucket_levels;
  levels.title = "Bucket levels (lowest keys)";
  levels.unit = "of capacity";
  levels.y_max = 1.0;
  for (int i = 0; i < lines; ++i) {
    levels.lines.push_back(line("tenant-" + std::to_string(i) + " / claude-sonnet-4.5 / llm_tokens",
                                {{double(kT0), 0.5}, {double(kT0 + 60'000), 0.1 * i}}));
  }
  ChartData occupancy;
  occupancy.kind = ChartKind::window_occupancy;
  occupancy.title = "Window occupancy (fullest keys)";
  occupancy.unit = "of limit";
  occupancy.empty_note = "no window-based limits in this source";
  ChartData burn;
  burn.kind = ChartKind::quota_burn;
  burn.title = "Daily quota burn (highest keys)";
  burn.unit = "of daily quota";
  burn.lines = {
      line("tenant-1 / claude-sonnet-4.5", {{double(kT0), 0.5}, {double(kT0 + 60'000), 0.93}})};
  s->charts = {levels, occupancy, runaway_429s(), burn};
  for (int i = 0; i < 2; ++i) {
    AlertRow a;
    a.rule = "HighRateLimitRejection";
    a.state = i == 0 ? AlertState::firing : AlertState::pending;
    a.since_ms = kT0 + 10'000;
    a.for_ms = 600'000;
    a.pending_ms = 435'000;  // "pending 7m15s of 10m": a wide state column
    a.value = 33.46;
    a.labels = "{model=\"claude-sonnet-4.5\", tier=\"pro\"}";
    a.entity = "tenant-" + std::to_string(i);
    a.severity = "warning";
    a.summary = "tier pro is refusing 33% of its requests with HTTP 429";
    s->alerts.push_back(a);
  }
  for (int k = 0; k < 12; ++k) {
    auto& decisions = s->decisions[tenant(k).api_key];
    for (int i = 0; i < 5; ++i) {
      DecisionRow d;
      d.t_ns = (kT0 + 59'000 + i) * 1'000'000;
      d.api_key = tenant(k).api_key;
      d.tier = "pro";
      d.model = "claude-sonnet-4.5";
      d.cost = 1200;
      d.reason = "exhausted";
      d.limit = "llm_tokens";
      d.remaining = 1.37;
      d.retry_after_s = 0.626;
      decisions.push_back(d);
    }
  }
  return s;
}

// Shows `s` and lets layouts settle. The window's own (simulation) snapshots may be applied by
// its timer while events run: `s` is applied again last, and then only posted events (layout
// requests; a queued snapshot only waits for the timer) are delivered.
void settle(MainWindow& window, const std::shared_ptr<DashboardSnapshot>& s) {
  window.applySnapshot(s);
  for (int i = 0; i < 5; ++i) QApplication::processEvents();
  window.applySnapshot(s);
  for (int i = 0; i < 5; ++i) QCoreApplication::sendPostedEvents();
  window.applySnapshot(s);
  for (int i = 0; i < 5; ++i) QCoreApplication::sendPostedEvents();
}

// Opens the window at w×h on `s` (the simulation's own time stopped and its view paused).
void show_at(MainWindow& window, int w, int h, const std::shared_ptr<DashboardSnapshot>& s) {
  window.setPaused(true);
  window.resize(w, h);
  window.show();
  settle(window, s);
}

// Drops the queued calls of a window's own source worker (its stopped simulation still
// publishes a snapshot when the view changes): only the test's snapshots are shown.
class DropWorkerCalls : public QObject {
 public:
  bool eventFilter(QObject* watched, QEvent* event) override {
    return event->type() == QEvent::MetaCall || QObject::eventFilter(watched, event);
  }
};

// The columns an operator reads in an incident: each wholly inside the table's viewport.
void expect_incident_columns_visible(QTableView* view) {
  for (const int c :
       {KeyTableModel::Key, KeyTableModel::Tier, KeyTableModel::Level, KeyTableModel::Rejected,
        KeyTableModel::PeakRejected, KeyTableModel::Spend, KeyTableModel::QuotaBurn}) {
    const int left = view->columnViewportPosition(c);
    EXPECT_GE(left, 0) << "column " << c;
    EXPECT_LE(left + view->columnWidth(c), view->viewport()->width())
        << "column " << c << " ("
        << view->model()->headerData(c, Qt::Horizontal).toString().toStdString() << ") is cut at "
        << view->viewport()->width() << " px";
  }
  EXPECT_EQ(view->horizontalScrollBar()->value(), 0);
}

TEST(IncidentLayout, At1600x1000TheEmptyChartFoldsAndTheKeyTableShowsTheIncidentColumns) {
  test::ensure_qt_app();
  MainWindow window(EmbeddedSimulationOptions{}, /*start_running=*/false);
  show_at(window, 1600, 1000, incident_snapshot());

  ChartStack* stack = window.charts();
  ASSERT_TRUE(stack->isCollapsed(1));
  EXPECT_FALSE(window.chart(1)->isVisible());
  EXPECT_TRUE(stack->note(1)->isVisible());
  EXPECT_TRUE(stack->note(1)->text().contains(QStringLiteral("no window-based limits")))
      << stack->note(1)->text().toStdString();
  EXPECT_LT(stack->note(1)->parentWidget()->height(), 40) << "the note takes more than one line";
  for (int i : {0, 2, 3}) {
    EXPECT_FALSE(stack->isCollapsed(i));
    EXPECT_GT(window.chart(i)->height(), stack->height() / 4)
        << "chart " << i << " did not take the room";
  }
  expect_incident_columns_visible(window.keyView());
  EXPECT_FALSE(window.keyView()->isCompact())
      << "wide enough for every column: " << window.keyView()->viewport()->width()
      << " px, compact below " << window.keyView()->compactBelow();
  EXPECT_FALSE(window.keyView()->isColumnHidden(KeyTableModel::Model));
  const int row = window.keyModel()->findRow(QStringLiteral("0123456789ab0"),
                                             QStringLiteral("claude-sonnet-4.5"));
  ASSERT_GE(row, 0);
  EXPECT_EQ(window.keyModel()->index(row, KeyTableModel::Level).data().toString(),
            QStringLiteral("800,000 / 2,000,000"));

  // A chart that gets lines again unfolds.
  auto again = std::make_shared<DashboardSnapshot>(*window.lastSnapshot());
  again->charts[1].lines = {
      line("tenant-3 / gpt-4.1", {{double(kT0), 0.2}, {double(kT0 + 60'000), 0.7}})};
  settle(window, again);
  EXPECT_FALSE(stack->isCollapsed(1));
  EXPECT_TRUE(window.chart(1)->isVisible());
  EXPECT_GT(window.chart(1)->height(), stack->height() / 5)
      << "the unfolded chart stayed at its minimum";
}

TEST(IncidentLayout, At1280x720NothingIsCut) {
  test::ensure_qt_app();
  MainWindow window(EmbeddedSimulationOptions{}, /*start_running=*/false);
  // Only the test's snapshots: whether the simulation's empty one came between them decided the
  // dock's width (503 or 553 px), and so whether the decisions table fitted, run by run.
  DropWorkerCalls drop;
  window.installEventFilter(&drop);
  // A page as tall as the Tuner's: another tab may not make the dashboard taller than 720.
  auto* tall = new QWidget;
  tall->setMinimumHeight(1100);
  window.addWorkspaceTab(tall, QStringLiteral("Tall"));
  show_at(window, 1280, 720, incident_snapshot());
  // The view asks the worker for as many lines as the legends can list at this size.
  const int max_lines = window.viewRequest().max_lines;
  EXPECT_GE(max_lines, 3) << "charts " << window.chart(0)->height() << ", "
                          << window.chart(2)->height() << ", " << window.chart(3)->height()
                          << " px high; plot " << window.chart(0)->chart()->plotArea().height();
  EXPECT_LT(max_lines, 8) << "720 px high: four charts cannot list eight lines each";
  settle(window, incident_snapshot(max_lines));
  EXPECT_EQ(window.width(), 1280);
  EXPECT_EQ(window.height(), 720)
      << "the docks' and charts' minimum heights forced the window taller";
  EXPECT_GE(window.keyView()->width(), 1280 * 38 / 100) << "the key table got what the charts left";
  // The key table: the incident's columns all in view, nothing to scroll sideways, the name
  // wide enough to read and elided in the middle.
  KeyTableView* keys = window.keyView();
  EXPECT_TRUE(keys->isCompact()) << keys->viewport()->width() << " px, compact below "
                                 << keys->compactBelow();
  expect_incident_columns_visible(keys);
  EXPECT_EQ(keys->horizontalScrollBar()->maximum(), 0) << "the key table scrolls sideways";
  const QFontMetrics fm(keys->font());
  EXPECT_GE(keys->columnWidth(KeyTableModel::Key),
            fm.horizontalAdvance(QStringLiteral("campus-tutor")))
      << "the name column is too narrow to read a name";
  EXPECT_EQ(keys->textElideMode(), Qt::ElideMiddle);
  EXPECT_FALSE(keys->wordWrap()) << "a wrapping cell breaks the name at '/' before eliding it";
  // Two rows of one key stay apart: the name says the model the hidden column held.
  const int first = window.keyModel()->findRow(QStringLiteral("0123456789ab1"),
                                               QStringLiteral("claude-sonnet-4.5"));
  ASSERT_GE(first, 0);
  EXPECT_EQ(window.keyModel()->index(first, KeyTableModel::Key).data().toString(),
            QStringLiteral("tenant-1/claude-sonnet-4.5/llm_tokens"));
  EXPECT_TRUE(keys->isColumnHidden(KeyTableModel::Algorithm))
      << "a secondary column takes the room";
  const int row = window.keyModel()->findRow(QStringLiteral("0123456789ab0"),
                                             QStringLiteral("claude-sonnet-4.5"));
  ASSERT_GE(row, 0);
  EXPECT_EQ(window.keyModel()->index(row, KeyTableModel::Level).data().toString(),
            QStringLiteral("40%"));
  EXPECT_EQ(window.keyModel()->index(row, KeyTableModel::Level).data(Qt::ToolTipRole).toString(),
            QStringLiteral("800,000 / 2,000,000"));
  // The alerts tree and the selected key's recent decisions: no sideways scrolling either; the
  // columns a narrow dock hides are in the tooltips.
  // Selected after the last snapshot (the window's own simulation may be applied while events
  // run and take the selection with its rows); then only the layout's posted events.
  settle(window, incident_snapshot(max_lines));
  keys->selectRow(0);
  for (int i = 0; i < 5; ++i) QCoreApplication::sendPostedEvents();
  QTreeView* alerts = window.alertView();
  // Their scroll ranges follow a delayed layout (a timer): lay them out now.
  alerts->doItemsLayout();
  window.decisionView()->doItemsLayout();
  ASSERT_GE(alerts->model()->rowCount(), 1);
  EXPECT_TRUE(window.alertNarrow()->isNarrow()) << alerts->viewport()->width() << " px";
  EXPECT_EQ(alerts->horizontalScrollBar()->maximum(), 0) << "the alerts tree scrolls sideways";
  EXPECT_LE(alerts->header()->length(), alerts->viewport()->width())
      << "the alerts tree's columns are wider than it";
  for (const int c : {AlertTableModel::Rule, AlertTableModel::Count, AlertTableModel::State,
                      AlertTableModel::Labels}) {
    EXPECT_FALSE(alerts->isColumnHidden(c)) << "alerts column " << c;
    EXPECT_LE(alerts->header()->sectionViewportPosition(c) + alerts->columnWidth(c),
              alerts->viewport()->width())
        << "alerts column " << c << " is cut";
  }
  EXPECT_TRUE(alerts->isColumnHidden(AlertTableModel::Since));
  const QString alert_tip =
      alerts->model()->index(0, AlertTableModel::State).data(Qt::ToolTipRole).toString();
  EXPECT_TRUE(alert_tip.contains(QStringLiteral("since "))) << alert_tip.toStdString();
  QTableView* decisions = window.decisionView();
  ASSERT_EQ(decisions->model()->rowCount(), 5)
      << "the selected key's decisions are shown; selected "
      << keys->selectionModel()->selectedRows().size() << " of " << keys->model()->rowCount();
  EXPECT_TRUE(window.decisionNarrow()->isNarrow()) << decisions->viewport()->width() << " px";
  EXPECT_EQ(decisions->horizontalScrollBar()->maximum(), 0) << "recent decisions scroll sideways";
  EXPECT_LE(decisions->horizontalHeader()->length(), decisions->viewport()->width())
      << "recent decisions' columns are wider than the table";
  for (const int c :
       {DecisionTableModel::Time, DecisionTableModel::Result, DecisionTableModel::Limit,
        DecisionTableModel::Remaining, DecisionTableModel::RetryAfterSent}) {
    EXPECT_FALSE(decisions->isColumnHidden(c)) << "decisions column " << c;
    EXPECT_LE(decisions->columnViewportPosition(c) + decisions->columnWidth(c),
              decisions->viewport()->width())
        << "decisions column " << c << " is cut";
  }
  const QString decision_tip =
      decisions->model()->index(0, DecisionTableModel::Result).data(Qt::ToolTipRole).toString();
  EXPECT_TRUE(decision_tip.contains(QStringLiteral("claude-sonnet-4.5")))
      << decision_tip.toStdString();
  EXPECT_TRUE(decision_tip.contains(QStringLiteral("626 ms"))) << decision_tip.toStdString();
  for (int i : {0, 2, 3}) {
    TimeChart* c = window.chart(i);
    EXPECT_GE(c->legendRows(), c->lineCount()) << "chart " << i << " lists " << c->legendRows()
                                               << " of its " << c->lineCount() << " lines";
    const auto* y = c->chart()->axes(Qt::Vertical).front();
    const int title = QFontMetrics(y->titleFont()).horizontalAdvance(y->titleText());
    EXPECT_LE(title, c->chart()->plotArea().height())
        << "chart " << i << ": \"" << y->titleText().toStdString() << "\" is cut";
  }
}

// The incident with two rows of one tenant on two limits, and every column the key table can
// show reported (a shadow config too): the most the name has to share the table with.
std::shared_ptr<DashboardSnapshot> two_limits_snapshot() {
  auto s = incident_snapshot();
  KeyRow requests = tenant(20);
  requests.name = "campus-tutor";
  requests.model = "gemini-2.5-flash";
  requests.limit = "requests";
  requests.capacity = 60;
  requests.level = 0.015;
  KeyRow tokens = requests;
  tokens.limit = "llm_tokens";
  tokens.capacity = 100'000;
  tokens.level = 0.39;
  s->keys.insert(s->keys.begin(), {requests, tokens});
  for (std::size_t i = 0; i < s->keys.size(); ++i)
    s->keys[i].shadow_would_refuse_in_view = static_cast<double>(231 * (i % 2));
  return s;
}

// What row `row` of `view` shows of its limit: the Limit cell when that column is wholly in
// view, else the Key cell's text as its delegate paints it in the cell's rectangle (elided to
// fit); empty when neither is in view.
QString shown_limit_text(KeyTableView* view, int row) {
  const QAbstractItemModel* m = view->model();
  if (view->isColumnInView(KeyTableModel::Limit))
    return m->index(row, KeyTableModel::Limit).data().toString();
  if (!view->isColumnInView(KeyTableModel::Key)) return {};
  const auto* names =
      qobject_cast<KeyNameDelegate*>(view->itemDelegateForColumn(KeyTableModel::Key));
  if (names == nullptr) return {};
  const QModelIndex index = m->index(row, KeyTableModel::Key);
  QStyleOptionViewItem option;
  option.initFrom(view);
  option.rect = view->visualRect(index);
  option.widget = view;
  return names->shownText(option, index);
}

TEST(IncidentLayout, EveryRowInViewSaysItsLimitAt1600x1000And1280x720) {
  test::ensure_qt_app();
  for (const QSize size : {QSize(1600, 1000), QSize(1280, 720)}) {
    SCOPED_TRACE(QStringLiteral("%1x%2").arg(size.width()).arg(size.height()).toStdString());
    MainWindow window(EmbeddedSimulationOptions{}, /*start_running=*/false);
    show_at(window, size.width(), size.height(), two_limits_snapshot());
    KeyTableView* keys = window.keyView();
    ASSERT_TRUE(keys->isColumnInView(KeyTableModel::Key));
    EXPECT_FALSE(keys->isColumnHidden(KeyTableModel::Shadow));
    EXPECT_GE(keys->columnWidth(KeyTableModel::Key), keys->keyMinimum())
        << "the figures squeezed the name";
    const QAbstractItemModel* m = keys->model();
    QStringList tutor;  // what the two campus-tutor rows show
    int checked = 0;
    for (int row = 0; row < m->rowCount(); ++row) {
      const int y = keys->rowViewportPosition(row);
      if (y < 0 || y + keys->rowHeight(row) > keys->viewport()->height()) continue;
      ++checked;
      const QString limit = m->index(row, KeyTableModel::Limit).data().toString();
      const QString shown = shown_limit_text(keys, row);
      EXPECT_TRUE(shown == limit || shown.endsWith(QLatin1Char('/') + limit))
          << "row " << row << " on " << limit.toStdString() << " shows \"" << shown.toStdString()
          << "\"";
      if (m->index(row, KeyTableModel::Key)
              .data()
              .toString()
              .startsWith(QStringLiteral("campus-tutor")))
        tutor << shown;
    }
    EXPECT_GE(checked, 3) << "no rows in view";
    ASSERT_EQ(tutor.size(), 2) << "the two campus-tutor rows, the emptiest, are in view";
    EXPECT_NE(tutor[0], tutor[1]) << "two limits of one tenant look alike";
    // Scrolled to the Model and Limit columns, the name is the name again.
    if (!keys->isCompact()) {
      keys->scrollTo(m->index(0, KeyTableModel::Limit));
      for (int i = 0; i < 5; ++i) QCoreApplication::sendPostedEvents();
      ASSERT_TRUE(keys->isColumnInView(KeyTableModel::Limit));
      if (keys->isColumnInView(KeyTableModel::Model)) {
        EXPECT_FALSE(window.keyModel()->isQualified());
      }
    }
  }
}

// Whether column `c` of `view` is cut: partly in the viewport, partly out of it.
bool is_cut(const QTableView* view, int c) {
  if (view->isColumnHidden(c)) return false;
  const int left = view->columnViewportPosition(c);
  const int right = left + view->columnWidth(c);
  const int width = view->viewport()->width();
  return left < width && right > 0 && (left < 0 || right > width);
}

TEST(IncidentLayout, EveryKeyTableColumnIsWholeOrOutOfViewWithOrWithoutAShadow) {
  test::ensure_qt_app();
  struct Case {
    QSize size;
    bool shadow;
  };
  for (const Case& k : {Case{QSize(1600, 1000), true}, Case{QSize(1280, 720), true},
                        Case{QSize(1600, 1000), false}}) {
    SCOPED_TRACE(QStringLiteral("%1x%2%3")
                     .arg(k.size.width())
                     .arg(k.size.height())
                     .arg(k.shadow ? QStringLiteral(", shadow shown") : QString())
                     .toStdString());
    MainWindow window(EmbeddedSimulationOptions{}, /*start_running=*/false);
    show_at(window, k.size.width(), k.size.height(),
            k.shadow ? two_limits_snapshot() : incident_snapshot());
    KeyTableView* keys = window.keyView();
    EXPECT_EQ(keys->isColumnHidden(KeyTableModel::Shadow), !k.shadow);
    // At 1280x720 a shadow's figures do not all fit beside a readable name: they scroll.
    if (k.size.width() == 1600) expect_incident_columns_visible(keys);
    for (int c = 0; c < KeyTableModel::ColumnCount; ++c) {
      EXPECT_FALSE(is_cut(keys, c))
          << "column " << c << " ("
          << keys->model()->headerData(c, Qt::Horizontal).toString().toStdString() << ") spans "
          << keys->columnViewportPosition(c) << " to "
          << keys->columnViewportPosition(c) + keys->columnWidth(c) << " of a "
          << keys->viewport()->width() << " px viewport";
    }
  }
}

TEST(IncidentLayout, KeyTableColumnsAreMeasuredOnlyWhenTheirTextChangesLength) {
  test::ensure_qt_app();
  MainWindow window(EmbeddedSimulationOptions{}, /*start_running=*/false);
  DropWorkerCalls drop;
  window.installEventFilter(&drop);
  auto s = incident_snapshot();
  show_at(window, 1600, 1000, s);
  KeyTableView* keys = window.keyView();
  const int fits = keys->fitCount();
  ASSERT_GT(fits, 0);
  // New figures of the same widths ("12.5" -> "13.5"): nothing is measured again.
  auto same = std::make_shared<DashboardSnapshot>(*s);
  for (KeyRow& r : same->keys) r.rejected_per_s += 1.0;
  settle(window, same);
  EXPECT_EQ(keys->fitCount(), fits);
  // A wider figure in view ("1,234.5/s" where "12.5" was): its column is fitted to it.
  auto wider = std::make_shared<DashboardSnapshot>(*same);
  for (KeyRow& r : wider->keys) r.rejected_per_s = 123456.5;
  settle(window, wider);
  EXPECT_GT(keys->fitCount(), fits);
  const QString text = keys->model()->index(0, KeyTableModel::Rejected).data().toString();
  EXPECT_EQ(text, QStringLiteral("123456.5"));
  EXPECT_GE(keys->columnWidth(KeyTableModel::Rejected), keys->fontMetrics().horizontalAdvance(text))
      << "the 429/s column is narrower than its text";
}

}  // namespace
}  // namespace limitscope::ui
