#pragma once
// The key table's view. Wide, it shows every column (the incident's first: name, tier, level,
// 429/s, peak 429/s, spend, burn). Narrower than about 80 digits (the key dock of a
// 1280×720 window) it turns compact so nothing scrolls sideways: the secondary columns (model,
// limit, algorithm, occupancy, last seen, trend; the details pane says them for the selected
// key) are hidden, Level reads as a percentage, and the name takes the width that is left (at
// least about 13 digits), elided in the middle so both ends of a name or a hash stay readable.
// Whenever the Model or Limit column is out of view (compact, or a wide table not scrolled to
// them), the name says the row's model and limit
// ("campus-tutor/gemini-2.5-flash/llm_tokens"), so two rows of one tenant never look alike;
// elided, such a name keeps its start and the limit whole ("campus-tu…/llm_tokens":
// KeyNameDelegate).
// Shadow, Spend and Burn are shown only while some row reports them; a wide table whose
// incident columns do not fit whole (a shadow's "would refuse 231" beside them) turns compact
// too. At the left end no column is cut by the viewport's right edge: the name takes the room
// up to the first column that does not fit, which starts just out of view.
// The columns fit the text of the rows in view, measured again only when a column's longest
// text in view changes length (a refresh that changes figures, not their widths, lays out
// nothing: QHeaderView::ResizeToContents measured every cell in view on every refresh).

#include <QStyledItemDelegate>
#include <QTableView>
#include <array>
#include <vector>

#include "core/dashboard/dashboard_snapshot.h"
#include "core/dashboard/key_table_order.h"

namespace limitscope::ui {

class KeyTableModel;

/// Paints the Key column: a name that ends with its row's limit ("…/llm_tokens") and does not
/// fit keeps its start and the whole limit ("campus-tu…/llm_tokens"); other text is elided in
/// the middle.
class KeyNameDelegate : public QStyledItemDelegate {
  Q_OBJECT
 public:
  using QStyledItemDelegate::QStyledItemDelegate;
  void paint(QPainter* painter, const QStyleOptionViewItem& option,
             const QModelIndex& index) const override;
  /// The text paint() draws for `index` in `option` (its rect, font and widget).
  QString shownText(const QStyleOptionViewItem& option, const QModelIndex& index) const;

 private:
  static QString fitted(const QStyleOptionViewItem& opt);
};

class KeyTableView : public QTableView {
  Q_OBJECT
 public:
  /// @param proxy the sorting/filtering model over `model` that this view shows
  KeyTableView(KeyTableModel* model, QAbstractItemModel* proxy, QWidget* parent = nullptr);
  bool isCompact() const;
  /// The viewport width below which the table turns compact, in pixels of its font.
  int compactBelow() const;
  /// The narrowest the Key column gets in a compact table, in pixels of its font; below it the
  /// figures scroll sideways instead.
  int keyMinimum() const;
  /// Shows the Shadow, Spend and Burn columns while some row reports them
  /// (KeyTableModel::anyReports): a column of "—" only takes the name's room.
  void showReportedColumns(const std::vector<KeyRow>& rows);
  /// Whether column `c` is shown wholly inside the viewport.
  bool isColumnInView(int c) const;
  /// Lays out now what a refresh changed, instead of once the events in hand are done: the
  /// rows (QAbstractItemView's delayed layout, a zero timer) and the columns' fit to their text
  /// (scheduleFit). Called at the end of a refresh, so the table is repainted once with it:
  /// laid out later, the relayout repaints the scroll bars, the header and the resized columns
  /// in a second repaint after the frame's.
  void settleLayout();
  /// How many times a column was measured to fit its text (for tests: a refresh that changes
  /// no text's length measures none).
  int fitCount() const { return m_fits; }

 protected:
  void resizeEvent(QResizeEvent* event) override;

 private:
  void updateCompact();
  /// Gives the Key column at least keyMinimum() while compact, and has the name say the model
  /// and limit while their columns are out of view. Runs after the columns' widths settle.
  void fitColumns();
  /// A wide table at its left end: compact when the incident's columns (name to burn) do not
  /// fit whole; else the name is widened to the edge (widthToEdge).
  void fitWide();
  /// The Key column's width at the left end so that no column is cut by the viewport's right
  /// edge: `own` (the name's own width) widened up to the first column that does not fit whole.
  /// @param incident_cut set to whether that column is one of the incident's (name to burn)
  int widthToEdge(int own, bool* incident_cut) const;
  /// Fits each column whose longest text in view changed length since it was last fitted.
  void fitContents();
  /// fitContents() once the events in hand are done (a refresh emits several signals).
  void scheduleFit();

  KeyTableModel* m_model;
  std::array<int, key_table::ColumnCount> m_fittedChars;  // per column; -1: not fitted
  int m_wideNeeds = 0;  // viewport width a wide table needed for its incident columns; 0: unknown
  int m_keyFitted = 0;  // the Key column's width fitted to its text, before fitWide widens it
  int m_fits = 0;
  bool m_fitPending = false;
};

}  // namespace limitscope::ui
