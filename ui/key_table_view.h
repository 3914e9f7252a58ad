#pragma once
// The key table's view. Wide, it shows every column (the incident's first: name, tier, level,
// 429/s, peak 429/s, spend, burn). Narrower than about 80 digits (the key dock of a
// 1280×720 window) it turns compact so nothing scrolls sideways: the secondary columns (model,
// limit, algorithm, occupancy, last seen, trend; the details pane says them for the selected
// key) are hidden, Level reads as a percentage, and the name takes the width that is left,
// elided in the middle ("campus…tutor") so both ends of a name or a hash stay readable.

#include <QTableView>

namespace limitscope::ui {

class KeyTableModel;

class KeyTableView : public QTableView {
  Q_OBJECT
 public:
  /// @param proxy the sorting/filtering model over `model` that this view shows
  KeyTableView(KeyTableModel* model, QAbstractItemModel* proxy, QWidget* parent = nullptr);
  bool isCompact() const;
  /// The viewport width below which the table turns compact, in pixels of its font.
  int compactBelow() const;
  /// Shows the Shadow column (hidden until a source reports what a shadow config would do).
  void showShadowColumn(bool shown);

 protected:
  void resizeEvent(QResizeEvent* event) override;

 private:
  void updateCompact();

  KeyTableModel* m_model;
};

}  // namespace limitscope::ui
