#pragma once
// One dashboard time chart: draws a core ChartData (already decimated), its alert thresholds
// as dashed lines labelled with their value, and where a rule was pending or firing: along
// the line its alert selects (ChartData::bands: a halo in the line's colour and a marker lane
// under the plot), as a strip on the plot's top edge when it selects no line drawn, and over
// the whole plot only for a rule about no tier, model or key (or a recording's intervals).
// The y axis can be logarithmic (setLogScaleToggle), so small tiers and a 0.5/s threshold
// stay readable beside a runaway. A shadow config's lines (ChartLine::shadow_of) move to a
// right-hand axis of their own, titled for them, while they and the live lines are more than
// 10x apart on a linear axis (choose_shadow_axis), so a shadow's 3/s is not flat under 1,400/s;
// the legend entry of a line there says "(right axis)".
// A crosshair shows the values under the cursor; dragging selects a time range to zoom into,
// the wheel zooms around the cursor, Shift+wheel pans, a double click returns to live.

#include <QChartView>
#include <QHash>
#include <QPixmap>
#include <QPointer>
#include <QPolygonF>
#include <QSet>
#include <QString>
#include <QStringList>
#include <limits>
#include <vector>

#include "core/dashboard/dashboard_snapshot.h"
#include "ui/charts/pixel_polyline.h"

QT_BEGIN_NAMESPACE
class QAbstractAxis;
class QLineSeries;
class QLogValueAxis;
class QToolButton;
class QValueAxis;
QT_END_NAMESPACE

namespace limitscope::ui {

class TimeChart : public QChartView {
  Q_OBJECT
 public:
  /// @param shaded_rules alert rules whose pending/firing intervals this chart shades
  explicit TimeChart(QStringList shaded_rules, QWidget* parent = nullptr);

  /// Replaces what is shown. Only series whose points changed are replaced.
  void setData(const ChartData& data, const std::vector<AlertInterval>& intervals, qint64 start_ms,
               qint64 end_ms);
  void setDark(bool dark);
  /// Lays out now what setData changed in QtCharts (a title, a range, the legend): QtCharts
  /// does it in a posted event and repaints the moved items in another, a second repaint of
  /// the whole chart after the one setData asked for. Laid out now, the two are one.
  void settleLayout();
  /// Left edge of the plot area without the padding added by setLeftPad (chart pixels).
  double naturalPlotLeft() const;
  /// Extra room left of the y axis, so several charts can share one plot-area left edge.
  void setLeftPad(int px);
  /// Right edge of the plot area without the padding added by setRightPad (chart pixels): a
  /// shadow config's own axis takes room on the right.
  double naturalPlotRight() const;
  /// Extra room right of the plot, so several charts can share one plot-area right edge.
  void setRightPad(int px);

  /// Values of each line at the given time (nearest point at or before), for the tooltip.
  QString valuesAt(qint64 t_ms) const;
  /// Number of line series currently shown (thresholds excluded).
  int lineCount() const { return static_cast<int>(m_lines.size()); }
  /// Points of the named line as drawn (for tests).
  QList<QPointF> pointsOf(const QString& name) const;
  /// Whole-plot shaded intervals as drawn: (start ms, end ms, firing).
  const std::vector<AlertInterval>& shadedIntervals() const { return m_shaded; }
  /// Alert bands in the window as drawn: on a line (line set), as a top-edge marker (line
  /// empty), or over the whole plot (line and about empty).
  const std::vector<AlertBand>& alertBands() const { return m_bands; }
  /// Threshold labels as drawn ("0.5/s"), for tests.
  QStringList thresholdLabels() const;
  /// The colour a line is drawn in (invalid when no such line).
  QColor lineColor(const QString& name) const;
  /// The pen style a line is drawn with (dashed: a shadow config's line), for tests.
  Qt::PenStyle lineStyle(const QString& name) const;
  /// Where a value is drawn, in the view's pixels (the current linear or log scale).
  double yPixel(double value) const;
  /// ... on the axis the named line is drawn against (a shadow line's own axis, when it has
  /// one).
  double yPixel(double value, const QString& line) const;
  /// The vertical axis the named line's series is attached to (nullptr when no such line).
  QAbstractAxis* lineAxisY(const QString& name) const;
  /// Whether the shadow configs' lines have their own, right-hand axis now.
  bool hasShadowAxis() const { return m_shadowOwnAxis; }
  /// That axis (in the chart only while hasShadowAxis()).
  QValueAxis* shadowAxis() const { return m_shadowAxisY; }
  /// Offers the operator a "log" button for the y axis.
  void setLogScaleToggle(bool offered);
  void setLogScale(bool on);
  bool isLogScale() const { return m_log; }
  QToolButton* logScaleButton() const { return m_logButton; }
  /// Outages of the sources this chart draws, as banded ("no data from redis since …").
  const std::vector<NoDataBand>& noDataBands() const { return m_noData; }
  /// The text of each band, as drawn.
  static QString noDataText(const NoDataBand& band);
  /// How many lines the legend can list at the chart's height (more are dropped from it).
  int legendRows() const { return legendRowsAt(height()); }
  /// ... at a chart height of `height` pixels.
  int legendRowsAt(int height) const;
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
  /// Draws QtCharts' items (background, axes, labels, title, legend) from a picture kept until
  /// the scene changes, then the lines, ticks and bands (drawForeground) over it: an update
  /// that only moves the lines does not paint QtCharts' items again.
  void paintEvent(QPaintEvent* event) override;
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
  /// `name` elided in the middle to the legend's width, unlike every other label shown; with
  /// " (right axis)" after it for a line drawn on the right-hand (shadow) axis.
  QString legendLabel(const QString& name, const QFont& font, bool right_axis) const;
  double xAtTime(qint64 t_ms) const;
  /// Fraction of the plot's height (0 bottom, 1 top) where `value` sits on the current scale.
  double yFraction(double value) const;
  /// The scale the named line is drawn on: its own axis's for a shadow line that has one.
  const YScale& scaleOf(const QString& name) const;
  /// Puts the shadow lines on their own right-hand axis, or back on the live one.
  void setShadowAxis(bool own);
  /// The vertical axis a line's series belongs on now.
  QAbstractAxis* axisFor(bool shadow) const;
  void drawBands(QPainter* painter, const QRectF& plot, double offset);
  void drawThresholds(QPainter* painter, const QRectF& plot);

  QStringList m_shadedRules;
  QValueAxis* m_axisX = nullptr;
  QValueAxis* m_axisY = nullptr;
  QLogValueAxis* m_logAxisY = nullptr;  // in the chart instead of m_axisY while m_log
  QToolButton* m_logButton = nullptr;
  bool m_log = false;
  YScale m_yScale;   // the y range drawn (values, not logarithms) and m_log
  ChartData m_data;  // the last data, to redraw on a change of scale
  std::vector<AlertInterval> m_intervals;
  QValueAxis* m_shadowAxisY = nullptr;    // in the chart, on the right, while m_shadowOwnAxis
  QLineSeries* m_shadowAnchor = nullptr;  // lays out m_shadowAxisY's labels, as m_anchor
  bool m_shadowOwnAxis = false;
  YScale m_shadowScale;           // the shadow lines' y range while m_shadowOwnAxis
  QSet<QString> m_shadows;        // the names of the shadow lines shown
  QSet<QString> m_rightLabelled;  // the lines whose legend entry says "(right axis)"
  QLineSeries* m_anchor = nullptr;
  double m_anchorY = std::numeric_limits<double>::quiet_NaN();  // where m_anchor lies, in y
  QHash<QString, QLineSeries*> m_lines;
  QHash<QString, int> m_colors;  // line name -> index into the theme's line colours
  QHash<QString, std::vector<metrics::Point>> m_lastPoints;
  QPolygonF m_polyline;  // a line in pixels, reused by each paint (pixel_polyline)
  std::vector<double> m_thresholdValues;
  QStringList m_thresholdLabels;
  std::vector<AlertBand> m_bands;
  std::vector<AlertInterval> m_shaded;
  std::vector<NoDataBand> m_noData;
  qint64 m_start = 0;
  qint64 m_end = 1;
  qint64 m_crosshair = -1;
  double m_dragStartX = -1;
  double m_dragX = -1;
  bool m_dark = false;
  int m_leftPad = 0;
  int m_rightPad = 0;
  QColor m_tickColor;        // the theme's axis label colour: time labels are drawn by us
  QPixmap m_scene;           // QtCharts' items as last painted (paintEvent)
  bool m_sceneDirty = true;  // the scene changed since m_scene was painted
};

}  // namespace limitscope::ui
