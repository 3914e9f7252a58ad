// Verifies the Tuner tab offscreen: the what-if chart's 429 series equal replay() for the
// current and the candidate setting; a heatmap click loads that cell's parameters; a sweep and a
// load cancel, and so do the passes over a loaded trace; a file with bad lines shows line-numbered
// errors and loads nothing unless the operator chooses its good lines; zero/negative rates and a
// capacity below the largest cost are refused in the fields with a clear message; spend in dollars
// shows for both settings (and says why when the trace cannot be priced until tokens per request
// are assumed), and the sweep's spend constraint picks a cell under it, or says it needs prices. A
// rate is edited in its own unit (per s/min/h/day) and read back exactly. The outage and routing
// what-ifs run on the simulation's trace with the current setting and show exactly core's figures;
// a bad outage window is refused naming it. The first guess for another algorithm is a pass on
// the job worker, asked by the sweep panel and run by the trace panel. With
// LIMITSCOPE_SCREENSHOT_DIR set, the scenario test saves the tab there (tuner_whatifs.png).
#include "ui/tuner/tuner_tab.h"

#include <gtest/gtest.h>

#include <QAbstractButton>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QProgressBar>
#include <QSignalSpy>
#include <QTest>
#include <cstdio>
#include <cstdlib>
#include <random>

#include "core/limiter/policy.h"
#include "core/tuner/outage_whatif.h"
#include "core/tuner/replay.h"
#include "core/tuner/routing_whatif.h"
#include "support/process.h"
#include "support/qt_app.h"
#include "ui/models/result_table_model.h"
#include "ui/result_box.h"
#include "ui/tuner/live_panel.h"
#include "ui/tuner/param_editor.h"
#include "ui/tuner/scenario_panel.h"
#include "ui/tuner/sweep_heatmap.h"
#include "ui/tuner/sweep_panel.h"
#include "ui/tuner/trace_panel.h"
#include "ui/tuner/whatif_chart.h"
#include "ui/tuner/whatif_panel.h"

namespace limitscope::ui {
namespace {

TracePtr random_trace(std::size_t events, int keys = 6, double rate = 100) {
  std::mt19937_64 rng(11);
  std::exponential_distribution<double> gap(rate);
  std::uniform_int_distribution<int> key(0, keys - 1);
  std::uniform_int_distribution<int> cost(1, 4);
  auto t = std::make_shared<trace::Trace>();
  double now = 0;
  for (std::size_t i = 0; i < events; ++i) {
    now += gap(rng);
    t->add(static_cast<std::int64_t>(now * 1e9), "k" + std::to_string(key(rng)), cost(rng));
  }
  return t;
}

double sum_y(const QList<QPointF>& points) {
  double s = 0;
  for (const QPointF& p : points) s += p.y();
  return s;
}

struct TunerTabTest : ::testing::Test {
  void SetUp() override {
    test::ensure_qt_app();
    tab = std::make_unique<TunerTab>();
    tab->resize(1400, 900);
    tab->show();
  }
  void adopt(TracePtr t) {
    QSignalSpy updated(tab.get(), &TunerTab::whatIfUpdated);
    tab->tracePanel()->setTrace(std::move(t), QStringLiteral("test"));
    ASSERT_TRUE(updated.wait(10000));
  }
  std::unique_ptr<TunerTab> tab;
};

TEST_F(TunerTabTest, WhatIfSeriesEqualReplay) {
  const TracePtr trace = random_trace(20'000);
  adopt(trace);
  const auto check = [&] {
    for (const auto& [editor, name] :
         {std::pair{tab->currentEditor(), QStringLiteral("current 429s")},
          std::pair{tab->candidateEditor(), QStringLiteral("candidate 429s")}}) {
      const auto r = tuner::replay(*trace, editor->params());
      ASSERT_TRUE(r.ok());
      EXPECT_EQ(sum_y(tab->whatIfPanel()->chart()->pointsOf(name)),
                static_cast<double>(r->total.rejected))
          << name.toStdString();
    }
  };
  check();
  // A slider change recomputes the candidate only; the result still equals replay.
  QSignalSpy updated(tab.get(), &TunerTab::whatIfUpdated);
  tab->candidateEditor()->secondSpin()->setValue(37.5);
  ASSERT_TRUE(updated.wait(10000));
  check();
  tab->candidateEditor()->algorithmBox()->setCurrentText(QStringLiteral("sliding-log"));
  ASSERT_TRUE(updated.wait(10000));
  check();
}

TEST_F(TunerTabTest, HeatmapClickLoadsThatCellsParameters) {
  adopt(random_trace(5'000));
  tab->sweepPanel()->setSweepAxes(10, 40, 4, 5, 20, 3);
  QSignalSpy finished(tab.get(), &TunerTab::sweepFinished);
  tab->sweepPanel()->runSweep();
  ASSERT_TRUE(finished.wait(20000));
  ASSERT_TRUE(finished.at(0).at(0).toBool()) << finished.at(0).at(1).toString().toStdString();
  const auto* result = tab->sweepPanel()->heatmap()->result();
  ASSERT_NE(result, nullptr);
  ASSERT_EQ(result->cells.size(), 12u);
  for (const int index : {0, 5, 11}) {
    QTest::mouseClick(tab->sweepPanel()->heatmap(), Qt::LeftButton, {},
                      tab->sweepPanel()->heatmap()->cellRect(index).center());
    const LimitParams p = tab->candidateEditor()->params();
    const LimitParams& want = result->cells[static_cast<std::size_t>(index)].params;
    EXPECT_DOUBLE_EQ(p.capacity, want.capacity) << index;
    EXPECT_DOUBLE_EQ(p.refill.per_second(), want.refill.per_second()) << index;
  }
}

// Four keys on gpt-4.1 at 1,000 tokens a request ($0.008); k0 sends ten times the others.
// Keys named as a gateway's hashes are ("000000000000" …), so the dashboard's names apply.
std::string hash_key(int k) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%012x", k);
  return buf;
}

TracePtr priced_trace(bool with_tokens) {
  std::mt19937_64 rng(5);
  std::exponential_distribution<double> gap(40);
  std::uniform_int_distribution<int> key(0, 12);
  auto t = std::make_shared<trace::Trace>();
  double now = 0;
  for (int i = 0; i < 6000; ++i) {
    now += gap(rng);
    const int k = key(rng);
    t->add(static_cast<std::int64_t>(now * 1e9), hash_key(k < 10 ? 0 : k - 9), 1, "gpt-4.1", "",
           with_tokens ? std::optional<std::uint32_t>(1000) : std::nullopt);
  }
  return t;
}

TEST_F(TunerTabTest, SpendOfBothSettingsAndTheSpendConstraint) {
  const TracePtr trace = priced_trace(true);
  adopt(trace);
  const tuner::PricingOptions pricing{&default_policy(), std::nullopt};
  tuner::ReplayOptions options;
  options.pricing = &pricing;
  const auto cand = tuner::replay(*trace, tab->candidateEditor()->params(), options);
  ASSERT_TRUE(cand.ok());
  const QString text = tab->whatIfPanel()->spendText();
  EXPECT_TRUE(text.startsWith(QStringLiteral("Spend — current: "))) << text.toStdString();
  const QString want = QStringLiteral("candidate: $%L1 admitted, worst key %3 $%L2/min")
                           .arg(cand->total.admitted_spend, 0, 'f', 2)
                           .arg(cand->spend.worst_key_per_min, 0, 'f', 2)
                           .arg(QString::fromStdString(trace->keys[cand->spend.worst_key]));
  EXPECT_TRUE(text.contains(want)) << text.toStdString() << " / " << want.toStdString();
  // With the dashboard's names, the worst key is named as its rows name it.
  KeyRow named;
  named.api_key = trace->keys[cand->spend.worst_key] + "0123456789abcdef0123";
  named.name = "acme-prod";
  tab->setKeyNames({named});
  EXPECT_TRUE(tab->whatIfPanel()->spendText().contains(QStringLiteral("worst key acme-prod $")))
      << tab->whatIfPanel()->spendText().toStdString();
  EXPECT_EQ(tab->livePanel()->keyShown(QString::fromStdString(named.api_key) +
                                       QStringLiteral(":gpt-4.1")),
            QStringLiteral("acme-prod (%1:gpt-4.1)").arg(QString::fromStdString(named.api_key)));
  // The spend view plots each side's dollars per column (adding up to its spend) and the
  // highest key's quota burn.
  tab->whatIfPanel()->setChartView(1);
  EXPECT_NEAR(sum_y(tab->whatIfPanel()->chart()->pointsOf(QStringLiteral("candidate $"))),
              cand->total.admitted_spend, 1e-9);
  EXPECT_FALSE(
      tab->whatIfPanel()->chart()->pointsOf(QStringLiteral("current quota burn")).isEmpty());
  EXPECT_TRUE(tab->whatIfPanel()->chart()->pointsOf(QStringLiteral("candidate 429s")).isEmpty());
  tab->whatIfPanel()->setChartView(0);
  EXPECT_FALSE(tab->whatIfPanel()->chart()->pointsOf(QStringLiteral("candidate 429s")).isEmpty());

  // A spend limit between the grid's extremes: the ★ cell is under it.
  tab->sweepPanel()->setSweepAxes(5, 200, 5, 0.5, 40, 5);
  tab->sweepPanel()->setWellBehaved429(std::nullopt);
  tab->sweepPanel()->setMaxKeySpend(0.5);
  QSignalSpy finished(tab.get(), &TunerTab::sweepFinished);
  tab->sweepPanel()->runSweep();
  ASSERT_TRUE(finished.wait(20000));
  ASSERT_TRUE(finished.at(0).at(0).toBool());
  const QString label = finished.at(0).at(1).toString();
  const auto* result = tab->sweepPanel()->heatmap()->result();
  ASSERT_NE(result, nullptr);
  EXPECT_TRUE(result->priced);
  const auto best = tab->sweepPanel()->heatmap()->recommendation().best;
  ASSERT_TRUE(best.has_value()) << label.toStdString();
  EXPECT_LE(result->cells[*best].worst_key_spend_per_min, 0.5);
  EXPECT_TRUE(label.contains(QStringLiteral("worst key $"))) << label.toStdString();

  // Without token counts: the spend is unknown and says why; the spend limit cannot be judged.
  adopt(priced_trace(false));
  EXPECT_TRUE(tab->whatIfPanel()->spendText().contains(QStringLiteral("carry no token count")))
      << tab->whatIfPanel()->spendText().toStdString();
  QSignalSpy again(tab.get(), &TunerTab::sweepFinished);
  tab->sweepPanel()->runSweep();
  ASSERT_TRUE(again.wait(20000));
  EXPECT_TRUE(again.at(0).at(1).toString().contains(QStringLiteral("needs prices")))
      << again.at(0).at(1).toString().toStdString();
  // Assuming 1,000 tokens a request prices it again.
  QSignalSpy updated(tab.get(), &TunerTab::whatIfUpdated);
  tab->tracePanel()->setTokensPerRequest(1000);
  ASSERT_TRUE(updated.wait(10000));
  EXPECT_TRUE(
      tab->whatIfPanel()->spendText().contains(QStringLiteral("admitted, worst key acme-prod $")))
      << tab->whatIfPanel()->spendText().toStdString();
}

TEST_F(TunerTabTest, ScenarioAndRecordingSources) {
  QSignalSpy loaded(tab.get(), &TunerTab::traceLoaded);
  QSignalSpy updated(tab.get(), &TunerTab::whatIfUpdated);
  tab->tracePanel()->loadScenario(QStringLiteral("runaway"), 30);
  ASSERT_TRUE(loaded.wait(20000));
  ASSERT_NE(tab->trace(), nullptr);
  EXPECT_GT(tab->trace()->events.size(), 100u);
  // The simulation's requests carry their tokens, so the what-if is priced.
  EXPECT_EQ(tab->trace()->tokens.size(), tab->trace()->events.size());
  ASSERT_TRUE(updated.wait(10000));
  EXPECT_TRUE(tab->whatIfPanel()->spendText().startsWith(QStringLiteral("Spend — current: $")))
      << tab->whatIfPanel()->spendText().toStdString();

  const std::string bad = test::write_temp("not_a_recording.jsonl", "{\"t\": 1, \"key\": \"a\"}\n");
  QSignalSpy failed(tab.get(), &TunerTab::traceLoadFailed);
  const auto before = tab->trace();
  tab->tracePanel()->loadRecording(QString::fromStdString(bad));
  ASSERT_TRUE(failed.wait(10000));
  EXPECT_TRUE(failed.at(0).at(0).toString().contains(QString::fromStdString(bad)))
      << failed.at(0).at(0).toString().toStdString();
  EXPECT_EQ(tab->trace(), before);  // nothing already loaded is lost
}

TEST_F(TunerTabTest, SweepCancels) {
  adopt(random_trace(150'000, 50, 2000));
  tab->sweepPanel()->setSweepAxes(10, 100, 8, 5, 50, 8);
  QSignalSpy finished(tab.get(), &TunerTab::sweepFinished);
  tab->sweepPanel()->runSweep();
  EXPECT_TRUE(tab->tracePanel()->progressBar()->isVisible());
  tab->tracePanel()->cancelWork();  // before the first chunk's check: the sweep stops there
  ASSERT_TRUE(finished.wait(20000));
  EXPECT_FALSE(finished.at(0).at(0).toBool());
  EXPECT_TRUE(finished.at(0).at(1).toString().contains(QStringLiteral("cancelled")));
  EXPECT_FALSE(tab->sweepPanel()->heatmap()->hasSweep());
  EXPECT_FALSE(tab->tracePanel()->progressBar()->isVisible());
}

// The first guess for another algorithm than the load's is a pass over the trace: the sweep
// panel asks, the trace panel runs it on the job worker (progress and Cancel), and the guess
// becomes the candidate; the same guess core makes of the trace for that algorithm.
TEST_F(TunerTabTest, FirstGuessForAnotherAlgorithmIsAPassOnTheJobWorker) {
  const TracePtr trace = random_trace(3'000);
  adopt(trace);
  tab->candidateEditor()->algorithmBox()->setCurrentText(QStringLiteral("sliding-log"));
  QStringList jobs;
  const auto connection = QObject::connect(tab.get(), &TunerTab::jobStarted,
                                           [&](const QString& what) { jobs << what; });
  QSignalSpy chosen(tab->sweepPanel(), &SweepPanel::candidateChosen);
  tab->sweepPanel()->useFirstGuess();
  ASSERT_TRUE(chosen.wait(10000));
  QObject::disconnect(connection);
  EXPECT_EQ(jobs, QStringList{QStringLiteral("First guess")});
  EXPECT_FALSE(tab->tracePanel()->progressBar()->isVisible());
  const tuner::TraceFacts facts =
      tuner::study_trace(*trace, Algorithm::sliding_log, tab->sweepPanel()->steps(0));
  const LimitParams shown = tab->candidateEditor()->params();
  EXPECT_EQ(shown.algorithm, Algorithm::sliding_log);
  EXPECT_NEAR(shown.capacity, facts.first_guess.params.capacity,
              1e-6 * facts.first_guess.params.capacity);
  EXPECT_TRUE(tab->sweepPanel()->text().startsWith(QStringLiteral("First guess:")))
      << tab->sweepPanel()->text().toStdString();
}

TEST_F(TunerTabTest, LoadCancelsAndKeepsThePreviousTrace) {
  std::string text;
  for (int i = 0; i < 200'000; ++i) text += "{\"t\": " + std::to_string(i) + ", \"key\": \"a\"}\n";
  const auto path = test::write_temp("tuner_cancel.jsonl", text);
  QSignalSpy failed(tab.get(), &TunerTab::traceLoadFailed);
  tab->tracePanel()->loadTraceFile(QString::fromStdString(path));
  tab->tracePanel()->cancelWork();
  ASSERT_TRUE(failed.wait(20000));
  EXPECT_EQ(failed.at(0).at(0).toString(), QStringLiteral("cancelled"));
  EXPECT_EQ(tab->trace(), nullptr);
}

TEST_F(TunerTabTest, CancelDuringTheTracePassesKeepsThePreviousTrace) {
  const TracePtr first = random_trace(2'000);
  adopt(first);
  QSignalSpy failed(tab.get(), &TunerTab::traceLoadFailed);
  QSignalSpy loaded(tab.get(), &TunerTab::traceLoaded);
  // Cancel as the passes' job starts, before the worker is handed it: the worker then sees the
  // flag at its first check, however fast it is, so the test does not race the passes.
  QStringList jobs;
  const auto connection =
      QObject::connect(tab.get(), &TunerTab::jobStarted, [&](const QString& what) {
        jobs << what;
        if (what == QStringLiteral("Reading the trace")) tab->tracePanel()->cancelWork();
      });
  tab->tracePanel()->setTrace(random_trace(5'000), QStringLiteral("second"));
  ASSERT_TRUE(failed.wait(20000));
  QObject::disconnect(connection);
  EXPECT_EQ(jobs, QStringList{QStringLiteral("Reading the trace")});
  EXPECT_EQ(failed.at(0).at(0).toString(), QStringLiteral("cancelled"));
  EXPECT_EQ(loaded.size(), 0);
  EXPECT_EQ(tab->trace(), first);
  EXPECT_FALSE(tab->tracePanel()->progressBar()->isVisible());
}

TEST_F(TunerTabTest, BadFileShowsLineNumberedErrorsAndLoadsNothingUnlessChosen) {
  const auto path = QString::fromStdString(
      test::write_temp("tuner_bad.jsonl",
                       "{\"t\": 1, \"key\": \"a\"}\nnot json\n{\"t\": 2, \"key\": \"b\", \"cost\": "
                       "-1}\n{\"t\": 3, \"key\": \"c\"}\n"));
  for (const bool use : {false, true}) {
    QSignalSpy shown(tab.get(), &TunerTab::loadReportShown);
    tab->tracePanel()->loadTraceFile(path);
    ASSERT_TRUE(shown.wait(10000));
    QMessageBox* report = tab->tracePanel()->loadReport();
    ASSERT_NE(report, nullptr);
    EXPECT_TRUE(report->informativeText().contains(QStringLiteral("line 2: not a JSON object")))
        << report->informativeText().toStdString();
    EXPECT_TRUE(
        report->informativeText().contains(QStringLiteral("line 3: cost must be a number > 0")));
    EXPECT_EQ(tab->trace(), nullptr);  // nothing until the operator chooses
    QAbstractButton* choice = nullptr;
    for (QAbstractButton* b : report->buttons()) {
      if ((report->buttonRole(b) == QMessageBox::AcceptRole) == use) choice = b;
    }
    ASSERT_NE(choice, nullptr);
    if (use) {
      QSignalSpy loaded(tab.get(), &TunerTab::traceLoaded);
      choice->click();
      // The good lines' passes (largest cost, first guess, axes) run on the job worker.
      ASSERT_TRUE(loaded.wait(10000));
      ASSERT_EQ(loaded.size(), 1);
      ASSERT_NE(tab->trace(), nullptr);
      EXPECT_EQ(tab->trace()->events.size(), 2u);
    } else {
      QSignalSpy failed(tab.get(), &TunerTab::traceLoadFailed);
      choice->click();
      ASSERT_EQ(failed.size(), 1);
      EXPECT_EQ(tab->trace(), nullptr);
      EXPECT_TRUE(tab->tracePanel()->status().contains(QStringLiteral("Nothing loaded")));
    }
  }
}

TEST_F(TunerTabTest, FieldsRefuseZeroNegativeRatesAndCapacityBelowTheLargestCost) {
  auto t = std::make_shared<trace::Trace>();
  t->add(0, "a", 8);
  t->add(1'000'000, "a", 1);
  adopt(t);
  ParamEditor* c = tab->candidateEditor();
  struct Row {
    int field;
    double value;
    const char* says;
  };
  const Row rows[] = {{1, 0, "refill rate must be greater than 0 (got 0)"},
                      {1, -3, "greater than 0 (got -3)"},
                      {0, 5, "capacity 5 is below the largest cost in the trace (8)"},
                      {0, 0, "capacity must be greater than 0"}};
  for (const Row& row : rows) {
    c->setParams(tab->currentEditor()->params());
    (row.field == 0 ? c->firstSpin() : c->secondSpin())->setValue(row.value);
    EXPECT_FALSE(c->isValid());
    EXPECT_TRUE(c->problemText(row.field).contains(QString::fromUtf8(row.says)))
        << row.says << " / " << c->problemText(row.field).toStdString();
    // The value stays as typed (never clamped), and the chart drops the candidate's line.
    EXPECT_EQ((row.field == 0 ? c->firstSpin() : c->secondSpin())->value(), row.value);
    EXPECT_TRUE(tab->whatIfPanel()->chart()->pointsOf(QStringLiteral("candidate 429s")).isEmpty());
  }
}

// A live rate of "100/min" or "1/h" is edited as written: shown in its own unit and read back
// exactly (a per-second spin box with 3 decimals showed 1/h as 0 and 100/min as 1.667/s).
TEST(ParamEditorRate, ARateIsShownInItsOwnUnitAndReadBackExactly) {
  test::ensure_qt_app();
  tuner::SettingForm form;
  ParamEditor e(QStringLiteral("current"), form);
  const struct {
    Rate rate;
    const char* unit;
    double shown;
  } rows[] = {
      {Rate{100, std::chrono::minutes(1)}, "/ min", 100},
      {Rate{1, std::chrono::hours(1)}, "/ h", 1},
      {Rate{50000, std::chrono::hours(24)}, "/ day", 50000},
      {Rate::per_sec(12.5), "/ s", 12.5},
      {Rate{1, std::chrono::seconds(2)}, "/ min", 30}};  // another period: the shortest unit >= 1
  for (const auto& row : rows) {
    LimitParams p;
    p.algorithm = Algorithm::token_bucket;
    p.capacity = 60;
    p.refill = row.rate;
    e.setParams(p);
    EXPECT_EQ(e.rateUnitBox()->currentText(), QString::fromUtf8(row.unit)) << row.rate.to_string();
    EXPECT_EQ(e.secondSpin()->value(), row.shown) << row.rate.to_string();
    EXPECT_DOUBLE_EQ(e.params().refill.per_second(), row.rate.per_second()) << row.rate.to_string();
    EXPECT_TRUE(e.isValid()) << row.rate.to_string();
  }
  // The unit is part of the value: 30 per minute becomes 30 per hour, and that is a change.
  QSignalSpy changed(&e, &ParamEditor::changed);
  e.rateUnitBox()->setCurrentText(QStringLiteral("/ h"));
  EXPECT_EQ(changed.size(), 1);
  EXPECT_EQ(e.params().refill.to_string(), "30/h");
  // Window algorithms have no rate: no unit.
  LimitParams w;
  w.algorithm = Algorithm::sliding_log;
  w.limit = 10;
  w.window = std::chrono::seconds(60);
  e.setParams(w);
  EXPECT_FALSE(e.rateUnitBox()->isVisibleTo(&e));
}

TEST_F(TunerTabTest, OutageAndRoutingWhatIfsShowCoresFigures) {
  tab->resize(1600, 1000);  // the main window's size
  QSignalSpy loaded(tab.get(), &TunerTab::traceLoaded);
  tab->tracePanel()->loadScenario(QStringLiteral("mixed"), 300);
  ASSERT_TRUE(loaded.wait(60000));
  tab->tracePanel()->setTokensPerRequest(800);
  LimitParams pro;  // the default policy's pro tier
  pro.capacity = 500;
  pro.refill = Rate::per_sec(50);
  tab->currentEditor()->setParams(pro);
  const TracePtr trace = tab->trace();
  ASSERT_TRUE(trace && !trace->events.empty());
  QSignalSpy finished(tab.get(), &TunerTab::scenarioFinished);

  tab->scenarioPanel()->setOutage(QStringLiteral("1m@+2m"), 2);
  tab->scenarioPanel()->runOutageWhatIf();
  ASSERT_TRUE(finished.wait(60000));
  const Policy& policy = default_policy();
  const tuner::PricingOptions pricing{&policy, 800};
  tuner::OutageOptions o;
  o.window = *tuner::parse_outage("1m@+2m", *trace);
  o.replicas = 2;
  o.pricing = &pricing;
  const auto outage = tuner::whatif_outage(*trace, tab->currentEditor()->params(), o);
  ASSERT_TRUE(outage.ok()) << outage.error();
  const ResultTableModel* m = tab->scenarioPanel()->outageBox()->model();
  ASSERT_EQ(m->rowCount(), 4) << tab->scenarioPanel()->outageBox()->verdict().toStdString();
  for (int i = 0; i < 3; ++i) {
    const tuner::OutageModeResult& mode = outage->modes[static_cast<std::size_t>(i)];
    EXPECT_EQ(m->text(i + 1, 0).toStdString(), tuner::to_string(mode.mode));
    EXPECT_EQ(m->text(i + 1, 1), QString::number(mode.total.admitted));
    EXPECT_EQ(m->text(i + 1, 2), QString::number(mode.total.rejected));
    EXPECT_EQ(m->text(i + 1, 6).toStdString(), limitscope::format_dollars(mode.extra_spend));
  }
  EXPECT_GT(outage->modes[0].over_admitted_requests, 0);  // the mixed scenario overloads someone
  EXPECT_TRUE(m->isFlagged(1));
  EXPECT_TRUE(
      tab->scenarioPanel()->outageBox()->verdict().contains(QStringLiteral("fail-open admits +")))
      << tab->scenarioPanel()->outageBox()->verdict().toStdString();

  tab->scenarioPanel()->setRouting(1000, QStringLiteral("deepseek-v3.2"));
  tab->scenarioPanel()->runRoutingWhatIf();
  ASSERT_TRUE(finished.wait(60000));
  const auto routing = tuner::whatif_routing(*trace, tab->currentEditor()->params(),
                                             {1000, "deepseek-v3.2"}, pricing);
  ASSERT_TRUE(routing.ok()) << routing.error();
  const ResultTableModel* r = tab->scenarioPanel()->routingBox()->model();
  ASSERT_EQ(r->rowCount(), 2) << tab->scenarioPanel()->routingBox()->verdict().toStdString();
  EXPECT_EQ(r->text(0, 4).toStdString(),
            limitscope::format_dollars(routing->as_was.admitted_spend));
  EXPECT_EQ(r->text(1, 4).toStdString(),
            limitscope::format_dollars(routing->routed.admitted_spend));
  EXPECT_EQ(r->text(1, 2), QString::number(routing->routed.rejected));
  EXPECT_TRUE(tab->scenarioPanel()->routingBox()->verdict().contains(
      QString::fromStdString("spend saved " + limitscope::format_dollars(routing->spend_saved))))
      << tab->scenarioPanel()->routingBox()->verdict().toStdString();
  if (const char* dir = std::getenv("LIMITSCOPE_SCREENSHOT_DIR")) {
    QCoreApplication::sendPostedEvents();  // the verdicts' new heights, laid out
    QCoreApplication::processEvents();
    EXPECT_TRUE(tab->grab().save(QString::fromUtf8(dir) + QStringLiteral("/tuner_whatifs.png")));
  }

  tab->scenarioPanel()->setOutage(QStringLiteral("10m@25:00"), 1);
  tab->scenarioPanel()->runOutageWhatIf();
  ASSERT_TRUE(finished.wait(60000));
  EXPECT_TRUE(tab->scenarioPanel()->outageBox()->verdict().contains(QStringLiteral("10m@25:00")))
      << tab->scenarioPanel()->outageBox()->verdict().toStdString();
  EXPECT_EQ(tab->scenarioPanel()->outageBox()->model()->rowCount(), 0);
}

}  // namespace
}  // namespace limitscope::ui
