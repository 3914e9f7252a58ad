#pragma once
// Keeps a list or tree from scrolling sideways in a narrow dock (a 1280×720 window): its
// secondary columns are hidden while the view's viewport is narrower than a width given in
// digits of its font, or narrower than its columns need (so no dock width between the two
// scrolls). The models put what those columns hold in their rows' tooltips. (The key table has
// its own compact mode, KeyTableView, because it also rewrites its cells.)

#include <QObject>
#include <vector>

class QAbstractItemView;
class QHeaderView;

namespace limitscope::ui {

class NarrowColumns : public QObject {
 public:
  /// Owned by `view`. `columns` are hidden below `digits` digits of the view's font and while
  /// the columns shown would not fit the viewport; then `stretch` (if ≥ 0) takes the width the
  /// others leave, elided, instead of its own width.
  NarrowColumns(QAbstractItemView* view, QHeaderView* header, std::vector<int> columns, int digits,
                int stretch = -1);
  bool isNarrow() const { return m_narrow; }
  /// The viewport width, in pixels, below which the columns are hidden whatever they need.
  int narrowBelow() const;
  /// The viewport width, in pixels, the columns needed with every one shown when they last
  /// did not fit (0 until then): the view stays narrow below it.
  int wideNeeds() const { return m_wideNeeds; }

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  void update();
  void setNarrow(bool narrow);

  QAbstractItemView* m_view;
  QHeaderView* m_header;
  std::vector<int> m_columns;
  int m_digits;
  int m_stretch;
  int m_stretchMode = 0;  // the stretch column's own QHeaderView::ResizeMode, put back when wide
  bool m_stretchLast = false;  // the header's stretchLastSection, put back when wide
  bool m_narrow = false;
  bool m_updating = false;      // hiding sections resizes them: no update inside an update
  bool m_updatePosted = false;  // a check after the header's resize is queued
  int m_wideNeeds = 0;  // pixels, the header's length with every column shown, when too wide
};

}  // namespace limitscope::ui
