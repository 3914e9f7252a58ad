// Verifies that a view kept narrow (NarrowColumns) never scrolls sideways at any width: its
// secondary columns hide below the width in digits and also wherever the columns, sized to their
// contents, would not fit; that the state at a width does not depend on the width it came from;
// that rows arriving at a fixed width hide the columns once they no longer fit; and that hidden
// columns come back as soon as they fit what they hold now, not only at the width they needed.

#include "ui/narrow_columns.h"

#include <gtest/gtest.h>

#include <QAbstractTableModel>
#include <QApplication>
#include <QHeaderView>
#include <QScrollBar>
#include <QStandardItemModel>
#include <QTableView>
#include <QTreeView>
#include <utility>
#include <vector>

#include "support/qt_app.h"

namespace limitscope::ui {
namespace {

constexpr int kColumns = 5;
constexpr int kDigits = 20;  // the width-in-digits bound, well below what the columns need

// Rows of five cells, replaced as a whole the way the recent decisions are (a model reset):
// columns 0 to 2 hold the row's short primary text, the secondary columns 3 and 4 its detail.
class Rows : public QAbstractTableModel {
 public:
  void setRows(std::vector<std::pair<QString, QString>> rows) {
    beginResetModel();
    m_rows = std::move(rows);
    endResetModel();
  }
  int rowCount(const QModelIndex& parent) const override {
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
  }
  int columnCount(const QModelIndex& parent) const override {
    return parent.isValid() ? 0 : kColumns;
  }
  QVariant data(const QModelIndex& index, int role) const override {
    if (role != Qt::DisplayRole) return {};
    const auto& r = m_rows[static_cast<std::size_t>(index.row())];
    return index.column() < 3 ? r.first : r.second;
  }

 private:
  std::vector<std::pair<QString, QString>> m_rows;
};

// A table whose columns are sized to their contents; columns 3 and 4 are the secondary ones.
struct Table {
  Rows model;
  QTableView view;
  NarrowColumns* narrow = nullptr;

  Table() {
    view.setModel(&model);
    view.verticalHeader()->hide();
    view.horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    view.horizontalHeader()->setStretchLastSection(false);
    narrow = new NarrowColumns(&view, view.horizontalHeader(), {3, 4}, kDigits);
  }
  // Resizes the viewport to `width` pixels and lets the view lay its columns out.
  void setViewportWidth(int width) {
    view.resize(width + (view.width() - view.viewport()->width()), 200);
    settle();
  }
  void settle() {
    for (int i = 0; i < 3; ++i) QApplication::processEvents();
    view.doItemsLayout();
    for (int i = 0; i < 3; ++i) QApplication::processEvents();
  }
};

TEST(NarrowColumns, NoWidthBetweenTheDigitBoundAndTheColumnsWidthScrollsSideways) {
  test::ensure_qt_app();
  Table t;
  t.model.setRows({{QStringLiteral("ok"), QStringLiteral("a rather long detail")},
                   {QStringLiteral("ok"), QStringLiteral("another long detail")}});
  t.view.show();
  t.setViewportWidth(1200);
  ASSERT_FALSE(t.narrow->isNarrow()) << "1200 px fits five columns";
  const int needs = t.view.horizontalHeader()->length();
  ASSERT_GT(needs, t.narrow->narrowBelow() + 40) << "the widths under test are not between";
  // Down from wide, then up from narrow: the same state at every width, and nothing to scroll.
  std::vector<int> widths;
  for (int w = needs + 30; w >= t.narrow->narrowBelow() - 30; w -= 15) widths.push_back(w);
  const std::vector<int> down = widths;
  widths.insert(widths.end(), down.rbegin() + 1, down.rend());
  for (const int w : widths) {
    t.setViewportWidth(w);
    SCOPED_TRACE(testing::Message() << w << " px, the columns need " << needs);
    EXPECT_EQ(t.narrow->isNarrow(), w < needs);
    EXPECT_EQ(t.view.horizontalScrollBar()->maximum(), 0) << "the view scrolls sideways";
    EXPECT_LE(t.view.horizontalHeader()->length(), t.view.viewport()->width());
    EXPECT_EQ(t.view.isColumnHidden(3), t.narrow->isNarrow());
  }
}

TEST(NarrowColumns, RowsThatNoLongerFitHideTheColumnsAtTheSameWidth) {
  test::ensure_qt_app();
  Table t;
  t.model.setRows({{QStringLiteral("ok"), QStringLiteral("short")}});
  t.view.show();
  t.setViewportWidth(2000);
  ASSERT_FALSE(t.narrow->isNarrow());
  t.setViewportWidth(t.view.horizontalHeader()->length() + 100);
  ASSERT_FALSE(t.narrow->isNarrow());
  const int width = t.view.viewport()->width();
  ASSERT_GT(width, t.narrow->narrowBelow());
  t.model.setRows(
      {{QStringLiteral("ok"), QStringLiteral("short")},
       {QStringLiteral("ok"), QStringLiteral("a detail far wider than the room left")}});
  t.settle();
  EXPECT_EQ(t.view.viewport()->width(), width) << "the viewport itself did not change";
  EXPECT_TRUE(t.narrow->isNarrow())
      << width << " px, header " << t.view.horizontalHeader()->length() << " needs "
      << t.narrow->wideNeeds();
  EXPECT_EQ(t.view.horizontalScrollBar()->maximum(), 0);
  // Wide enough again: the columns come back.
  t.setViewportWidth(2000);
  EXPECT_FALSE(t.narrow->isNarrow());
  EXPECT_FALSE(t.view.isColumnHidden(4));
}

TEST(NarrowColumns, HiddenColumnsComeBackOnceTheyFitWhatTheyHoldNow) {
  test::ensure_qt_app();
  Table t;
  const std::vector<std::pair<QString, QString>> short_rows = {
      {QStringLiteral("ok"), QStringLiteral("short")}};
  t.model.setRows(short_rows);
  t.view.show();
  t.setViewportWidth(2000);
  const int short_needs = t.view.horizontalHeader()->length();
  const int width = short_needs + 40;
  ASSERT_GT(width, t.narrow->narrowBelow());
  t.setViewportWidth(width);
  ASSERT_FALSE(t.narrow->isNarrow());
  // A long detail hides the columns at this width...
  t.model.setRows(
      {{QStringLiteral("ok"), QStringLiteral("short")},
       {QStringLiteral("ok"), QStringLiteral("a detail far wider than the room left")}});
  t.settle();
  ASSERT_TRUE(t.narrow->isNarrow());
  ASSERT_GT(t.narrow->wideNeeds(), width);
  EXPECT_EQ(t.narrow->needsNow(), t.narrow->wideNeeds()) << "nothing changed since";
  // ... and the columns come back at the same width once it is gone, though the width they
  // needed then is not there (the detail is in a hidden column: no section resizes).
  t.model.setRows(short_rows);
  t.settle();
  EXPECT_EQ(t.view.viewport()->width(), width) << "the viewport itself did not change";
  EXPECT_FALSE(t.narrow->isNarrow()) << width << " px, needed " << t.narrow->wideNeeds();
  EXPECT_FALSE(t.view.isColumnHidden(4));
  EXPECT_LE(t.view.horizontalHeader()->length(), t.view.viewport()->width());
  EXPECT_EQ(t.view.horizontalScrollBar()->maximum(), 0);

  // A detail that is shorter, but still does not fit, keeps them hidden; and at the width it
  // needs they come back.
  t.model.setRows(
      {{QStringLiteral("ok"), QStringLiteral("a detail far wider than the room left")}});
  t.settle();
  ASSERT_TRUE(t.narrow->isNarrow());
  const int longest = t.narrow->wideNeeds();
  t.model.setRows({{QStringLiteral("ok"), QStringLiteral("a detail wider than the room")}});
  t.settle();
  EXPECT_TRUE(t.narrow->isNarrow());
  const int needs = t.narrow->needsNow();
  EXPECT_GT(needs, width);
  EXPECT_LT(needs, longest);
  t.setViewportWidth(needs - 1);
  EXPECT_TRUE(t.narrow->isNarrow()) << "back a pixel too early";
  t.setViewportWidth(needs);
  EXPECT_FALSE(t.narrow->isNarrow()) << needs << " px, needed " << longest << " before";
  EXPECT_EQ(t.view.horizontalHeader()->length(), needs) << "needsNow() measured otherwise";
  EXPECT_EQ(t.view.horizontalScrollBar()->maximum(), 0);
}

// The alert tree's arrangement (MainWindow::buildAlerts): columns 0 to 2 sized to their
// contents, 3 and 4 too and hidden when narrow, an interactive column 5 that takes the width
// left while narrow, and a last column 6, stretched, hidden too. Shrunk from a wider view (its
// last section stretched to the old width) it is measured at the new width, and its stretch
// column gets its own width back when the others come back.
TEST(NarrowColumns, ATreeWithAStretchedColumnComesBackOnceItFits) {
  test::ensure_qt_app();
  QStandardItemModel model(0, 7);
  const auto set_detail = [&](const QString& detail) {
    model.setRowCount(0);
    for (int r = 0; r < 3; ++r) {
      QList<QStandardItem*> row;
      for (int c = 0; c < 7; ++c)
        row << new QStandardItem(c == 3 ? detail : QStringLiteral("ok%1").arg(c));
      model.appendRow(row);
    }
  };
  set_detail(QStringLiteral("short"));
  QTreeView view;
  view.setModel(&model);
  view.setRootIsDecorated(false);
  QHeaderView* h = view.header();
  h->setStretchLastSection(true);
  for (int c : {0, 1, 2, 3, 4}) h->setSectionResizeMode(c, QHeaderView::ResizeToContents);
  h->setSectionResizeMode(5, QHeaderView::Interactive);
  h->resizeSection(5, 120);
  auto* narrow = new NarrowColumns(&view, h, {3, 4, 6}, kDigits, 5);
  const auto settle = [&] {
    for (int i = 0; i < 3; ++i) QApplication::processEvents();
    view.doItemsLayout();
    for (int i = 0; i < 3; ++i) QApplication::processEvents();
  };
  const auto set_width = [&](int width) {
    view.resize(width + (view.width() - view.viewport()->width()), 200);
    settle();
  };
  view.show();
  set_width(2000);
  ASSERT_FALSE(narrow->isNarrow());
  const int width = narrow->narrowBelow() + 900;
  set_width(width);
  ASSERT_FALSE(narrow->isNarrow()) << h->length() << " px needed";
  set_detail(QStringLiteral("a detail far wider than the room this tree has left, ").repeated(4));
  settle();
  ASSERT_TRUE(narrow->isNarrow());
  EXPECT_EQ(narrow->needsNow(), narrow->wideNeeds());
  EXPECT_EQ(view.horizontalScrollBar()->maximum(), 0);
  set_detail(QStringLiteral("short"));
  settle();
  EXPECT_EQ(view.viewport()->width(), width);
  EXPECT_FALSE(narrow->isNarrow()) << width << " px, needed " << narrow->wideNeeds();
  EXPECT_FALSE(h->isSectionHidden(6));
  EXPECT_EQ(h->sectionResizeMode(5), QHeaderView::Interactive) << "still stretched";
  EXPECT_LE(h->length(), view.viewport()->width());
  EXPECT_EQ(view.horizontalScrollBar()->maximum(), 0);
}

}  // namespace
}  // namespace limitscope::ui
