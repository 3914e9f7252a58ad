#pragma once
// Keeps a list or tree from scrolling sideways in a narrow dock (a 1280×720 window): its
// secondary columns are hidden while the view's viewport is narrower than a width given in
// digits of its font, or narrower than its columns need (so no dock width between the two
// scrolls). They come back as soon as they fit again: at a wider viewport, or at the same one
// once what the columns hold (the hidden ones' too) is narrower. The models put what those
// columns hold in their rows' tooltips. (The key table has its own compact mode, KeyTableView,
// because it also rewrites its cells.)

#include <QObject>
#include <vector>

class QAbstractItemView;
class QHeaderView;

namespace limitscope::ui {

class NarrowColumns : public QObject {
 public:
  /// Owned by `view`. `columns` are hidden below `digits` digits of the view's font and while
  /// the columns shown would not fit the viewport; then `stretch` (if ≥ 0) takes the width the
  /// others leave, elided, instead of its own width. `view` has its model already: its rows'
  /// changes are watched (while narrow, the hidden columns' contents are measured again).
  NarrowColumns(QAbstractItemView* view, QHeaderView* header, std::vector<int> columns, int digits,
                int stretch = -1);
  bool isNarrow() const { return m_narrow; }
  /// The viewport width, in pixels, below which the columns are hidden whatever they need.
  int narrowBelow() const;
  /// The viewport width, in pixels, the columns needed with every one shown when they last
  /// did not fit (0 until then).
  int wideNeeds() const { return m_wideNeeds; }
  /// The viewport width, in pixels, the columns would need with every one shown, at what they
  /// hold now (0 when not narrow or never measured): the hidden columns come back once the
  /// viewport is that wide. wideNeeds(), with each column sized to its contents measured again
  /// (the hidden ones too, from the rows in view) and each other column at its width now.
  int needsNow() const;

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  void update();
  /// update() once the events in hand are done (once for however many signals ask).
  void postUpdate();
  void setNarrow(bool narrow);
  /// Column `c`'s width shown with the others, sized to its contents as the header would.
  int contentWidth(int c) const;

  QAbstractItemView* m_view;
  QHeaderView* m_header;
  std::vector<int> m_columns;
  int m_digits;
  int m_stretch;
  int m_stretchMode = 0;  // the stretch column's own QHeaderView::ResizeMode, put back when wide
  int m_stretchSize = 0;  // its width before it stretched, put back too
  bool m_stretchLast = false;  // the header's stretchLastSection, put back when wide
  bool m_narrow = false;
  bool m_updating = false;      // hiding sections resizes them: no update inside an update
  bool m_updatePosted = false;  // a check after the header's resize is queued
  int m_wideNeeds = 0;        // pixels, the header's length with every column shown, when too wide
  std::vector<int> m_widths;  // each section's width then (0: hidden), by logical index
  std::vector<int> m_contents;  // then, each ResizeToContents section's contentWidth()
};

}  // namespace limitscope::ui
