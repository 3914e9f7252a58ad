#pragma once
// One dashboard time chart: draws a core ChartData (already decimated), its alert thresholds
// as dashed lines and the intervals where a rule was pending or firing as shaded bands.
// A crosshair shows the values under the cursor; dragging selects a time range to zoom into,
// the wheel zooms around the cursor, Shift+wheel pans, a double click returns to live.

#include <QChartView>
#include <QHash>
#include <QPointer>
#include <QString>
#include <QStringList>

#include <vector>

#include "core/sources/dashboard_snapshot.h"

QT_BEGIN_NAMESPACE
class QLineSeries;
class QValueAxis;
QT_END_NAMESPACE

namespace limitscope::ui {

class TimeChart : public QChartView {
  Q_OBJECT
 public:
  /// @param shaded_rules alert rules whose pending/firing intervals this chart shades
  explicit TimeChart(QStringList shaded_rules, QWidget* parent = nullptr);

  /// Replaces what is shown. Only series whose points changed are replaced.
  void setData(const ChartData& data, const std::vector<AlertInterval>& intervals,
               qint64 start_ms, qint64 end_ms);
  void setDark(bool dark);
  /// Left edge of the plot area without the padding added by setLeftPad (chart pixels).
  double naturalPlotLeft() const;
  /// Extra room left of the y axis, so several charts can share one plot-area left edge.
  void setLeftPad(int px);

  /// Values of each line at the given time (nearest point at or before), for the tooltip.
  QString valuesAt(qint64 t_ms) const;
  /// Number of line series currently shown (thresholds excluded).
  int lineCount() const { return static_cast<int>(m_lines.size()); }
  /// Points of the named line as drawn (for tests).
  QList<QPointF> pointsOf(const QString& name) const;
  /// Shaded intervals as drawn: (start ms, end ms, firing).
  const std::vector<AlertInterval>& shadedIntervals() const { return m_shaded; }
  /// Outages of the sources this chart draws, as banded ("no data from redis since …").
  const std::vector<NoDataBand>& noDataBands() const { return m_noData; }
  /// The text of each band, as drawn.
  static QString noDataText(const NoDataBand& band);
  /// Legend labels as shown (elided in the middle to the legend's width), for tests.
  QStringList legendLabels() const;

 signals:
  /// The operator asked for another time window (zoom/pan); paused view.
  void rangeRequested(qint64 start_ms, qint64 end_ms);
  /// Double click: back to the live preset.
  void liveRequested();
  /// The crosshair moved to this time (-1 when the cursor left); charts follow each other.
  void crosshairMoved(qint64 t_ms);

 public slots:
  void setCrosshair(qint64 t_ms);

 protected:
  void drawForeground(QPainter* painter, const QRectF& rect) override;
  void drawTimeTicks(QPainter* painter, const QRectF& plot);
  void mouseMoveEvent(QMouseEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void mouseDoubleClickEvent(QMouseEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;
  void leaveEvent(QEvent* event) override;

 private:
  qint64 timeAtX(double x) const;
  /// `name` elided in the middle to the legend's width, unlike every other label shown.
  QString legendLabel(const QString& name, const QFont& font) const;
  double xAtTime(qint64 t_ms) const;

  QStringList m_shadedRules;
  QValueAxis* m_axisX = nullptr;
  QValueAxis* m_axisY = nullptr;
  QLineSeries* m_anchor = nullptr;
  QHash<QString, QLineSeries*> m_lines;
  QHash<QString, int> m_colors;  // line name -> index into the theme's line colours
  QHash<QString, std::vector<metrics::Point>> m_lastPoints;
  std::vector<double> m_thresholdValues;
  std::vector<AlertInterval> m_shaded;
  std::vector<NoDataBand> m_noData;
  qint64 m_start = 0;
  qint64 m_end = 1;
  qint64 m_crosshair = -1;
  double m_dragStartX = -1;
  double m_dragX = -1;
  bool m_dark = false;
  int m_leftPad = 0;
  QColor m_tickColor;  // the theme's axis label colour: time labels are drawn by us
};

}  // namespace limitscope::ui
