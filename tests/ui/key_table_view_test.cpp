// Verifies what a refresh of the key table lays out and when: a re-sort of the rows leaves the
// columns alone (the filter proxy drops the model's row-sort hint), and settleLayout() fits the
// columns at once instead of after the events in hand (when the frame was already repainted).

#include "ui/key_table_view.h"

#include <gtest/gtest.h>

#include <QApplication>
#include <QHeaderView>
#include <QImage>
#include <QScrollBar>
#include <QSignalSpy>
#include <memory>
#include <string>
#include <vector>

#include "support/qt_app.h"
#include "ui/kept_scroll_bar.h"
#include "ui/models/key_table_model.h"

namespace limitscope::ui {
namespace {

KeyRow row(int k, double level, double rejected) {
  KeyRow r;
  r.api_key = "key-" + std::to_string(k);
  r.name = "tenant-" + std::to_string(k);
  r.tier = "pro";
  r.model = "gpt-4.1";
  r.limit = "requests";
  r.algorithm = "token_bucket";
  r.parameters = "capacity 60, 1/s";
  r.capacity = 60;
  r.level = level;
  r.requests_per_s = 1;
  r.rejected_per_s = rejected;
  r.last_seen_ms = 1'700'000'000'000;
  r.sparkline.assign(10, level);
  return r;
}

void process_events() {
  for (int i = 0; i < 5; ++i) QApplication::processEvents();
}

struct Table {
  KeyTableModel model;
  KeyFilterProxy proxy;
  std::unique_ptr<KeyTableView> owned;  // made once the proxy has the model's columns
  KeyTableView& view;
  Table() : owned(make(model, proxy)), view(*owned) {
    view.resize(1200, 400);
    view.show();
  }
  static std::unique_ptr<KeyTableView> make(KeyTableModel& m, KeyFilterProxy& p) {
    p.setSourceModel(&m);
    return std::make_unique<KeyTableView>(&m, &p);
  }
};

// Forty keys at levels 0%, 2%, ... 78%, each refusing 1.5/s, shown in the table and laid out;
// the rows, for a test to change and show again.
std::vector<KeyRow> show_forty_keys(Table& t) {
  std::vector<KeyRow> rows;
  for (int k = 0; k < 40; ++k) rows.push_back(row(k, 0.02 * k, 1.5));
  t.model.setRows(rows);
  process_events();
  return rows;
}

TEST(KeyTableView, ARowSortLeavesTheColumnsAlone) {
  test::ensure_qt_app();
  Table t;
  std::vector<KeyRow> rows = show_forty_keys(t);
  ASSERT_TRUE(t.view.isColumnHidden(KeyTableModel::Shadow));
  std::vector<int> widths;
  for (int c = 0; c < KeyTableModel::ColumnCount; ++c) widths.push_back(t.view.columnWidth(c));

  // The table sorts by level: the first and last keys swap places, their texts as long as before.
  std::swap(rows.front().level, rows.back().level);
  QSignalSpy sorted(&t.proxy, &QAbstractItemModel::layoutChanged);
  QSignalSpy resized(t.view.horizontalHeader(), &QHeaderView::sectionResized);
  t.model.setRows(rows);
  t.view.settleLayout();
  process_events();
  ASSERT_GE(sorted.count(), 1) << "the rows did not move";
  EXPECT_EQ(resized.count(), 0) << "a row sort resized a column";
  EXPECT_TRUE(t.view.isColumnHidden(KeyTableModel::Shadow));
  for (int c = 0; c < KeyTableModel::ColumnCount; ++c)
    EXPECT_EQ(t.view.columnWidth(c), widths[static_cast<std::size_t>(c)]) << "column " << c;
  EXPECT_EQ(t.model.rowAt(0)->api_key, "key-39");
}

TEST(KeyTableView, SettleLayoutFitsTheColumnsAtOnce) {
  test::ensure_qt_app();
  Table t;
  std::vector<KeyRow> rows = show_forty_keys(t);
  const int fits = t.view.fitCount();
  ASSERT_GT(fits, 0);

  for (KeyRow& r : rows) r.rejected_per_s = 123456.5;  // "123456.5" where "1.5" was
  t.model.setRows(rows);
  EXPECT_EQ(t.view.fitCount(), fits) << "fitted before the refresh was done";
  t.view.settleLayout();
  const int settled = t.view.fitCount();
  EXPECT_GT(settled, fits);
  EXPECT_GE(t.view.columnWidth(KeyTableModel::Rejected),
            t.view.fontMetrics().horizontalAdvance(QStringLiteral("123456.5")));
  process_events();
  EXPECT_EQ(t.view.fitCount(), settled) << "the fit was done again after settleLayout";
}

/// Counts the paint events a widget receives.
class PaintCounter : public QObject {
 public:
  int paints = 0;
  bool eventFilter(QObject* watched, QEvent* event) override {
    if (event->type() == QEvent::Paint) ++paints;
    return QObject::eventFilter(watched, event);
  }
};

TEST(KeyTableView, ARefreshThatWidensAColumnPaintsTheTableOnce) {
  test::ensure_qt_app();
  Table t;
  std::vector<KeyRow> rows = show_forty_keys(t);
  PaintCounter counter;
  t.view.viewport()->installEventFilter(&counter);

  for (KeyRow& r : rows) r.rejected_per_s = 123456.5;  // the 429/s column widens
  const int fits = t.view.fitCount();
  t.model.setRows(rows);
  t.view.settleLayout();
  process_events();
  ASSERT_GT(t.view.fitCount(), fits);
  // Laid out after the repaint (QTableView's zero timer for a resized column), the resized
  // columns were painted a second time.
  EXPECT_EQ(counter.paints, 1);
}

TEST(KeptScrollBar, PaintsWhatAScrollBarPaintsAndDrawsOnlyWhenThatChanges) {
  test::ensure_qt_app();
  const auto shown = [](QScrollBar& bar, int value) {
    bar.setRange(0, 500);
    bar.setPageStep(100);
    bar.resize(300, 16);
    bar.setValue(value);
    return bar.grab().toImage();
  };
  KeptScrollBar kept(Qt::Horizontal);
  QScrollBar plain(Qt::Horizontal);
  QScrollBar other(Qt::Horizontal);
  ASSERT_NE(shown(plain, 0), shown(other, 250)) << "the slider's position does not show";
  EXPECT_EQ(shown(kept, 0), shown(plain, 0));
  const int draws = kept.drawCount();
  EXPECT_EQ(shown(kept, 0), shown(plain, 0));
  EXPECT_EQ(kept.drawCount(), draws) << "drew the same picture again";
  EXPECT_EQ(shown(kept, 250), shown(plain, 250)) << "kept the old slider position";
  EXPECT_GT(kept.drawCount(), draws);
}

TEST(KeyTableView, ScrollingItsKeptScrollBarsScrollsTheTable) {
  test::ensure_qt_app();
  Table t;
  std::vector<KeyRow> rows;
  for (int k = 0; k < 200; ++k) rows.push_back(row(k, 0.004 * k, 1.5));
  t.model.setRows(rows);
  process_events();
  ASSERT_NE(dynamic_cast<KeptScrollBar*>(t.view.verticalScrollBar()), nullptr);
  ASSERT_GT(t.view.verticalScrollBar()->maximum(), 0);
  t.view.verticalScrollBar()->triggerAction(QAbstractSlider::SliderPageStepAdd);
  process_events();
  EXPECT_GT(t.view.rowAt(0), 0) << "the first row in view is still the table's first";
}

}  // namespace
}  // namespace limitscope::ui
