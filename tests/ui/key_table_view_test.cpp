// Verifies what a refresh of the key table lays out and when: a re-sort of the rows leaves the
// columns alone (the filter proxy drops the model's row-sort hint: the header reads its own
// model, ColumnHeaderModel), while a header click still sorts, shown, hidden and renamed
// columns still reach the header and selected rows still highlight it; and settleLayout() fits the
// columns at once instead of after the events in hand (when the frame was already repainted).

#include "ui/key_table_view.h"

#include <gtest/gtest.h>

#include <QApplication>
#include <QHeaderView>
#include <QImage>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTest>
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

TEST(KeyTableView, TheHeaderHighlightsItsSectionsWhileRowsAreSelected) {
  test::ensure_qt_app();
  Table t;
  show_forty_keys(t);
  QHeaderView* h = t.view.horizontalHeader();
  ASSERT_TRUE(h->highlightSections());
  const QImage plain = h->grab().toImage();
  // As QTableView's header did on the table's own selection (its labels turn bold): mirrored
  // into the header's own model.
  t.view.selectRow(2);
  process_events();
  EXPECT_TRUE(h->selectionModel()->hasSelection());
  EXPECT_NE(h->grab().toImage(), plain) << "a selected row highlights no section";
  t.view.selectRow(5);
  process_events();
  EXPECT_NE(h->grab().toImage(), plain);
  t.view.clearSelection();
  process_events();
  EXPECT_FALSE(h->selectionModel()->hasSelection());
  EXPECT_EQ(h->grab().toImage(), plain);
}

TEST(KeyTableView, TheHeaderSortsAndFollowsTheColumnsItsOwnModelPassesOn) {
  test::ensure_qt_app();
  Table t;
  std::vector<KeyRow> rows = show_forty_keys(t);
  QHeaderView* h = t.view.horizontalHeader();
  ASSERT_NE(h->model(), t.view.model()) << "the header reads the table's model";
  ASSERT_EQ(h->count(), KeyTableModel::ColumnCount);

  // A click on "429/s" sorts the model by it; a second click turns the order round.
  const auto click = [&](int c) {
    QTest::mouseClick(
        h->viewport(), Qt::LeftButton, {},
        QPoint(h->sectionViewportPosition(c) + h->sectionSize(c) / 2, h->height() / 2));
    process_events();
  };
  rows[7].rejected_per_s = 99;
  t.model.setRows(rows);
  click(KeyTableModel::Rejected);
  EXPECT_EQ(t.model.keySort().column, KeyTableModel::Rejected);
  EXPECT_EQ(h->sortIndicatorSection(), KeyTableModel::Rejected);
  const bool ascending = t.model.keySort().ascending;
  click(KeyTableModel::Rejected);
  EXPECT_NE(t.model.keySort().ascending, ascending);
  EXPECT_EQ(t.model.rowAt(t.model.keySort().ascending ? 39 : 0)->api_key, "key-7");

  // Columns shown and hidden as rows report them, and the header's text changing with the
  // table's width, reach the header.
  ASSERT_TRUE(t.view.isColumnHidden(KeyTableModel::Shadow));
  rows[3].shadow_would_refuse_in_view = 12;
  t.model.setRows(rows);
  t.view.showReportedColumns(rows);
  process_events();
  EXPECT_FALSE(t.view.isColumnHidden(KeyTableModel::Shadow));
  EXPECT_GT(t.view.columnWidth(KeyTableModel::Shadow), 0);
  const QString peak =
      h->model()->headerData(KeyTableModel::PeakRejected, Qt::Horizontal).toString();
  t.view.resize(400, 400);
  process_events();
  ASSERT_TRUE(t.view.isCompact());
  EXPECT_NE(h->model()->headerData(KeyTableModel::PeakRejected, Qt::Horizontal).toString(), peak);
  EXPECT_TRUE(t.view.isColumnHidden(KeyTableModel::Model));
  EXPECT_FALSE(t.view.isColumnHidden(KeyTableModel::Key));
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
