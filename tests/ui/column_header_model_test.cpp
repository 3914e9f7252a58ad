// Verifies ColumnHeaderModel on its own: a header given it follows the table model's columns
// (inserted, removed, moved, renamed, reset, the model gone) and none of its row layout changes.

#include "ui/column_header_model.h"

#include <gtest/gtest.h>

#include <QAbstractTableModel>
#include <QHeaderView>
#include <QSignalSpy>
#include <QStringList>
#include <memory>

#include "support/qt_app.h"

namespace limitscope::ui {
namespace {

// A table of named columns and `rows` rows, each change published as a model publishes it.
class Table : public QAbstractTableModel {
 public:
  explicit Table(QStringList names) : m_names(std::move(names)) {}
  int rowCount(const QModelIndex& parent = {}) const override { return parent.isValid() ? 0 : 4; }
  int columnCount(const QModelIndex& parent = {}) const override {
    return parent.isValid() ? 0 : static_cast<int>(m_names.size());
  }
  QVariant data(const QModelIndex&, int) const override { return {}; }
  QVariant headerData(int section, Qt::Orientation o, int role) const override {
    if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
    return m_names.value(section);
  }
  void sortRows() {  // a re-sort of the rows, as a proxy passes it on: no hint
    emit layoutAboutToBeChanged();
    emit layoutChanged();
  }
  void insert(int at, const QString& name) {
    beginInsertColumns({}, at, at);
    m_names.insert(at, name);
    endInsertColumns();
  }
  void move(int from, int to) {  // `from` to before `to`
    ASSERT_TRUE(beginMoveColumns({}, from, from, {}, to));
    m_names.move(from, to > from ? to - 1 : to);
    endMoveColumns();
  }
  void remove(int at) {
    beginRemoveColumns({}, at, at);
    m_names.removeAt(at);
    endRemoveColumns();
  }
  void rename(int at, const QString& name) {
    m_names[at] = name;
    emit headerDataChanged(Qt::Horizontal, at, at);
  }
  void reset(QStringList names) {
    beginResetModel();
    m_names = std::move(names);
    endResetModel();
  }

 private:
  QStringList m_names;
};

QString label(const QHeaderView& h, int section) {
  return h.model()->headerData(section, Qt::Horizontal).toString();
}

TEST(ColumnHeaderModel, AHeaderFollowsTheColumnsAndNotTheRows) {
  test::ensure_qt_app();
  auto t = std::make_unique<Table>(
      QStringList{QStringLiteral("a"), QStringLiteral("b"), QStringLiteral("c")});
  ColumnHeaderModel columns(t.get());
  QHeaderView h(Qt::Horizontal);
  h.setModel(&columns);
  ASSERT_EQ(h.count(), 3);
  EXPECT_EQ(columns.rowCount(), 1);
  EXPECT_EQ(label(h, 1), QStringLiteral("b"));

  // A re-sort of the rows reaches no section: the header hears no layout change.
  h.resizeSection(2, 77);
  h.hideSection(1);
  QSignalSpy layout(&columns, &QAbstractItemModel::layoutChanged);
  QSignalSpy resized(&h, &QHeaderView::sectionResized);
  t->sortRows();
  EXPECT_EQ(layout.count(), 0);
  EXPECT_EQ(resized.count(), 0);
  EXPECT_EQ(h.sectionSize(2), 77);
  EXPECT_TRUE(h.isSectionHidden(1));

  // Columns inserted, renamed, moved and removed do.
  t->insert(0, QStringLiteral("new"));
  EXPECT_EQ(h.count(), 4);
  EXPECT_EQ(label(h, 0), QStringLiteral("new"));
  EXPECT_TRUE(h.isSectionHidden(2)) << "the hidden section did not move with its column";
  EXPECT_EQ(h.sectionSize(3), 77);
  t->rename(0, QStringLiteral("first"));
  EXPECT_EQ(label(h, 0), QStringLiteral("first"));
  t->move(3, 0);  // "c" first
  EXPECT_EQ(label(h, 0), QStringLiteral("c"));
  EXPECT_EQ(h.sectionSize(0), 77) << "the section did not move with its column";
  t->remove(1);
  EXPECT_EQ(h.count(), 3);
  EXPECT_EQ(label(h, 1), QStringLiteral("a"));

  // A reset, and the model gone.
  QSignalSpy reset(&columns, &QAbstractItemModel::modelReset);
  t->reset({QStringLiteral("x")});
  EXPECT_EQ(reset.count(), 1);
  EXPECT_EQ(h.count(), 1);
  EXPECT_EQ(label(h, 0), QStringLiteral("x"));
  t.reset();
  EXPECT_EQ(reset.count(), 2);
  EXPECT_EQ(columns.columnCount(), 0);
  EXPECT_EQ(h.count(), 0);
}

}  // namespace
}  // namespace limitscope::ui
