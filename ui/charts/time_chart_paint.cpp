// TimeChart's painting: QtCharts' items from a kept picture, then the time ticks, alert
// bands, outages, lines, thresholds and crosshair over them (drawForeground).

#include <QFontMetricsF>
#include <QGraphicsScene>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QPaintEvent>
#include <QPainter>
#include <QPolygonF>
#include <QTime>
#include <QValueAxis>
#include <algorithm>

#include "ui/charts/pixel_polyline.h"
#include "ui/charts/time_chart.h"
#include "ui/local_time.h"

namespace limitscope::ui {
namespace {

// Round steps for time labels: the smallest that fits the width gives ticks at whole
// seconds, minutes or hours (QDateTimeAxis spaces a fixed count evenly: 12:10:50, 12:11:40...).
constexpr qint64 kTickSteps[] = {1'000,      2'000,      5'000,     10'000,    15'000,
                                 30'000,     60'000,     120'000,   300'000,   600'000,
                                 900'000,    1'800'000,  3'600'000, 7'200'000, 10'800'000,
                                 21'600'000, 43'200'000, 86'400'000};

}  // namespace

void TimeChart::drawTimeTicks(QPainter* painter, const QRectF& plot) {
  const qint64 span = m_end - m_start;
  if (span <= 0 || plot.width() < 10) return;
  const qint64 max_ticks = std::clamp<qint64>(static_cast<qint64>(plot.width() / 85), 2, 8);
  qint64 step = kTickSteps[std::size(kTickSteps) - 1];
  for (const qint64 s : kTickSteps) {
    if (span / s <= max_ticks) {
      step = s;
      break;
    }
  }
  // Align to the local clock, so "every 5 minutes" lands on :00, :05...
  const qint64 offset = local_utc_offset_ms(m_start);
  qint64 t = ((m_start + offset + step - 1) / step) * step - offset;
  const QString format = step < 60'000 ? QStringLiteral("HH:mm:ss") : QStringLiteral("HH:mm");
  const QFont font = m_axisX->labelsFont();
  const QFontMetricsF fm(font);
  painter->save();
  painter->setFont(font);
  const double sx = plot.width() / static_cast<double>(span);
  for (; t <= m_end; t += step) {
    const double x = plot.left() + static_cast<double>(t - m_start) * sx;
    painter->setPen((m_log ? static_cast<QAbstractAxis*>(m_logAxisY) : m_axisY)
                        ->gridLinePen());  // the theme's grid
    painter->drawLine(QPointF(x, plot.top()), QPointF(x, plot.bottom()));
    // Local time of day by arithmetic: a QDateTime per label costs a time-zone lookup.
    const qint64 of_day = ((t + offset) % 86'400'000 + 86'400'000) % 86'400'000;
    const QString label =
        QTime::fromMSecsSinceStartOfDay(static_cast<int>(of_day)).toString(format);
    const double w = fm.horizontalAdvance(label);
    const double left = std::clamp(x - w / 2, plot.left() - w / 2, plot.right() + 4 - w);
    painter->setPen(m_tickColor);
    painter->drawText(QPointF(left, plot.bottom() + 6 + fm.ascent()), label);
  }
  painter->restore();
}

void TimeChart::drawBands(QPainter* painter, const QRectF& plot, double offset) {
  const QColor firing(220, 50, 47), pending(240, 170, 0);
  for (const AlertInterval& iv : m_shaded) {
    const double x1 = std::max(plot.left(), xAtTime(iv.start_ms) + offset);
    const double x2 = std::min(plot.right(), xAtTime(iv.end_ms) + offset);
    if (x2 < x1) continue;
    const QColor color = iv.firing ? QColor(220, 50, 47, 60) : QColor(240, 170, 0, 55);
    painter->fillRect(QRectF(x1, plot.top(), std::max(1.0, x2 - x1), plot.height()), color);
  }
  const double sx = plot.width() / static_cast<double>(m_end - m_start);
  QHash<QString, int> lanes;  // one marker lane under the plot per line with a band
  for (const AlertBand& b : m_bands) {
    const qint64 end = b.open ? m_end : b.end_ms;
    const double x1 = std::max(plot.left(), xAtTime(b.start_ms) + offset);
    const double x2 = std::min(plot.right(), xAtTime(end) + offset);
    if (x2 < x1) continue;
    const QColor state = b.firing ? firing : pending;
    if (b.line.empty()) {
      QColor fill = state;
      if (b.about.empty()) {  // a rule about no tier, model or key: the whole plot
        fill.setAlpha(b.firing ? 60 : 55);
        painter->fillRect(QRectF(x1, plot.top(), std::max(1.0, x2 - x1), plot.height()), fill);
      } else {  // about a series this chart does not draw: a marker on the top edge
        painter->fillRect(QRectF(x1, plot.top(), std::max(2.0, x2 - x1), 5), fill);
      }
      continue;
    }
    const QString name = QString::fromStdString(b.line);
    const QColor color = lineColor(name);
    if (!color.isValid()) continue;
    // A halo in the line's own colour along the stretch it was pending or firing.
    QColor halo = color;
    halo.setAlpha(b.firing ? 120 : 70);
    painter->setPen(QPen(halo, b.firing ? 10 : 7, Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin));
    QPolygonF poly;
    const YScale& scale = scaleOf(name);
    for (const metrics::Point& p : m_lastPoints.value(name)) {
      if (p.x < static_cast<double>(b.start_ms) || p.x > static_cast<double>(end)) continue;
      poly << QPointF(plot.left() + (p.x - static_cast<double>(m_start)) * sx,
                      plot.bottom() - scale.fraction(p.y) * plot.height());
    }
    if (poly.size() == 1) poly << poly.front() + QPointF(0.5, 0);
    painter->drawPolyline(poly);
    // Its lane: the line's colour, edged in the state's (red firing, amber pending).
    if (!lanes.contains(name)) lanes.insert(name, static_cast<int>(lanes.size()));
    const QRectF lane(x1, plot.bottom() - 6 - 6 * lanes.value(name), std::max(2.0, x2 - x1), 5);
    painter->fillRect(lane, color);
    painter->setPen(QPen(state, 1));
    painter->drawRect(lane);
  }
}

void TimeChart::drawThresholds(QPainter* painter, const QRectF& plot) {
  const QColor red(220, 50, 47);
  QPen pen(red);
  pen.setStyle(Qt::DashLine);
  pen.setWidthF(1.2);
  QFont f = m_axisX->labelsFont();
  f.setPointSizeF(std::max(6.0, f.pointSizeF() - 1));
  const QFontMetricsF fm(f);
  painter->setFont(f);
  // setData labels every threshold.
  const auto count =
      std::min(m_thresholdValues.size(), static_cast<std::size_t>(m_thresholdLabels.size()));
  for (std::size_t i = 0; i < count; ++i) {
    const double th = m_thresholdValues[i];
    if (th < m_yScale.lo() || th > m_yScale.hi() || (m_log && th <= 0)) continue;
    const double y = plot.bottom() - yFraction(th) * plot.height();
    painter->setPen(pen);
    painter->drawLine(QPointF(plot.left(), y), QPointF(plot.right(), y));
    // Its value at the right end, above the line (below it when the line is at the top).
    const QString text = m_thresholdLabels[static_cast<qsizetype>(i)];
    const double w = fm.horizontalAdvance(text) + 6;
    const double top = y - fm.height() - 1 >= plot.top() ? y - fm.height() - 1 : y + 1;
    const QRectF box(plot.right() - w - 2, top, w, fm.height());
    painter->fillRect(box, m_dark ? QColor(30, 30, 30, 200) : QColor(255, 255, 255, 200));
    painter->setPen(red);
    painter->drawText(box, Qt::AlignCenter, text);
  }
}

void TimeChart::paintEvent(QPaintEvent* event) {
  // What QGraphicsView::paintEvent draws, with the items from a picture: the view maps the
  // scene 1:1 to the viewport (QChartView sizes the scene to it), so the picture is the
  // viewport's size and the foreground is drawn in scene coordinates over it.
  const qreal dpr = viewport()->devicePixelRatioF();
  const QSize size = (QSizeF(viewport()->size()) * dpr).toSize();
  if (m_sceneDirty || m_scene.size() != size) {
    m_scene = QPixmap(size);
    m_scene.setDevicePixelRatio(dpr);
    m_scene.fill(Qt::transparent);
    QPainter p(&m_scene);
    p.setRenderHints(renderHints());
    const QRectF all(QPointF(0, 0), QSizeF(viewport()->size()));
    if (backgroundBrush().style() != Qt::NoBrush) p.fillRect(all, backgroundBrush());
    scene()->render(&p, all, mapToScene(all.toRect()).boundingRect(), Qt::IgnoreAspectRatio);
    m_sceneDirty = false;
  }
  QPainter painter(viewport());
  const QRectF exposed = event->rect();
  painter.drawPixmap(exposed, m_scene, QRectF(exposed.topLeft() * dpr, exposed.size() * dpr));
  painter.setRenderHints(renderHints());
  painter.setWorldTransform(viewportTransform());
  drawForeground(&painter, mapToScene(event->rect()).boundingRect());
}

void TimeChart::drawForeground(QPainter* painter, const QRectF& rect) {
  QChartView::drawForeground(painter, rect);
  const QRectF plot = chart()->mapToScene(chart()->plotArea()).boundingRect();
  drawTimeTicks(painter, plot);
  painter->save();
  painter->setClipRect(plot);
  const double offset = plot.left() - chart()->plotArea().left();
  drawBands(painter, plot, offset);
  // Outages: grey hatching over the gap, and what it is, so a silent line is not read as calm.
  for (std::size_t i = 0; i < m_noData.size(); ++i) {
    const NoDataBand& b = m_noData[i];
    const double x1 = std::max(plot.left(), xAtTime(b.start_ms) + offset);
    const double x2 = std::min(plot.right(), xAtTime(b.end_ms) + offset);
    if (x2 < x1) continue;
    const QRectF band(x1, plot.top(), std::max(2.0, x2 - x1), plot.height());
    const QColor grey = m_dark ? QColor(200, 200, 200) : QColor(90, 90, 90);
    QColor fill = grey;
    fill.setAlpha(40);
    painter->fillRect(band, fill);
    QColor hatch = grey;
    hatch.setAlpha(90);
    painter->fillRect(band, QBrush(hatch, Qt::BDiagPattern));
    painter->setPen(QPen(grey, 1, Qt::DashLine));
    painter->drawLine(QPointF(x1, plot.top()), QPointF(x1, plot.bottom()));
  }
  if (m_yScale.hi() > m_yScale.lo()) {
    PlotMapping mapping;
    mapping.plot = plot;
    mapping.start_ms = static_cast<double>(m_start);
    mapping.ms_per_px = static_cast<double>(m_end - m_start) / std::max(1.0, plot.width());
    for (auto it = m_lastPoints.cbegin(); it != m_lastPoints.cend(); ++it) {
      const QLineSeries* series = m_lines.value(it.key(), nullptr);
      if (series == nullptr || it->empty()) continue;
      mapping.y = scaleOf(it.key());  // a shadow line on its own axis has its own scale
      pixel_polyline(*it, mapping, m_polyline);
      // A cosmetic pen of whole-pixel width takes the raster engine's fast line path; a 1.5 px
      // pen goes through the stroker, several times slower for tens of thousands of points.
      QPen pen = series->pen();
      pen.setWidth(pen.widthF() > 2 ? 3 : 1);
      pen.setCosmetic(true);
      painter->setPen(pen);
      painter->drawPolyline(m_polyline);
    }
    drawThresholds(painter, plot);
  }
  // The outages' labels last, over the lines (a line at full capacity runs along the top).
  for (std::size_t i = 0; i < m_noData.size(); ++i) {
    const NoDataBand& b = m_noData[i];
    const double x1 = std::max(plot.left(), xAtTime(b.start_ms) + offset);
    if (std::min(plot.right(), xAtTime(b.end_ms) + offset) < x1) continue;
    QFont f = m_axisX->labelsFont();
    f.setBold(true);
    painter->setFont(f);
    const QFontMetricsF fm(f);
    const QString text = noDataText(b);
    const double w = fm.horizontalAdvance(text) + 8;
    // Inside the band when it fits, else left of its start; one row per band.
    const double left = x1 + w <= plot.right() ? x1 + 2 : std::max(plot.left(), x1 - w);
    const QRectF box(left, plot.top() + 2 + static_cast<double>(i) * (fm.height() + 4), w,
                     fm.height() + 2);
    painter->fillRect(box, m_dark ? QColor(40, 40, 40, 235) : QColor(255, 255, 255, 235));
    painter->setPen(m_dark ? QColor(230, 230, 230) : QColor(60, 60, 60));
    painter->drawText(box, Qt::AlignCenter, text);
  }
  if (m_crosshair >= m_start && m_crosshair <= m_end) {
    const double x = xAtTime(m_crosshair) + offset;
    painter->setPen(QPen(m_dark ? QColor(230, 230, 230, 160) : QColor(40, 40, 40, 140), 1));
    painter->drawLine(QPointF(x, plot.top()), QPointF(x, plot.bottom()));
  }
  if (m_dragStartX >= 0 && m_dragX >= 0) {
    painter->fillRect(QRectF(QPointF(std::min(m_dragStartX, m_dragX), plot.top()),
                             QPointF(std::max(m_dragStartX, m_dragX), plot.bottom())),
                      QColor(38, 139, 210, 50));
  }
  painter->restore();
}

}  // namespace limitscope::ui
