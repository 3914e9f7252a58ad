#pragma once
// The dashboard's four time charts, one above the other in a splitter. A chart with nothing
// to show (window occupancy when no limit is window-based, quota burn from a Redis alone)
// collapses to a one-line note, and the others take its room. The plot areas share one left
// edge, so one instant sits at the same x in every chart; the crosshair follows the cursor
// across all of them.

#include <QWidget>
#include <array>
#include <vector>

#include "core/dashboard/dashboard_snapshot.h"

QT_BEGIN_NAMESPACE
class QLabel;
class QSplitter;
QT_END_NAMESPACE

namespace limitscope::ui {

class TimeChart;

class ChartStack : public QWidget {
  Q_OBJECT
 public:
  static constexpr int kCharts = 4;  // bucket levels, window occupancy, 429s, quota burn

  explicit ChartStack(QWidget* parent = nullptr);

  TimeChart* chart(int i) const { return m_charts.at(static_cast<std::size_t>(i)); }
  /// The note shown instead of chart i while it is collapsed.
  QLabel* note(int i) const { return m_notes.at(static_cast<std::size_t>(i)); }
  bool isCollapsed(int i) const;
  /// How many lines each legend can list once the charts shown share the stack's height:
  /// from the stack's size and what is folded, not from a chart's size mid-layout.
  int legendRows() const;

  /// Draws each chart's data (snapshot order), collapsing those without lines.
  void setData(const std::vector<ChartData>& charts, const std::vector<AlertInterval>& intervals,
               qint64 start_ms, qint64 end_ms);
  void setDark(bool dark);

 signals:
  /// The operator zoomed or panned one chart (a paused view of this window).
  void rangeRequested(qint64 start_ms, qint64 end_ms);
  /// Double click: back to the live preset.
  void liveRequested();
  /// A chart folded or unfolded: the charts shown have another height.
  void foldsChanged();

 private:
  void setCollapsed(int i, bool collapsed);
  void alignCharts();

  QSplitter* m_splitter = nullptr;
  std::array<QWidget*, kCharts> m_slots{};
  std::array<TimeChart*, kCharts> m_charts{};
  std::array<QLabel*, kCharts> m_notes{};
};

}  // namespace limitscope::ui
