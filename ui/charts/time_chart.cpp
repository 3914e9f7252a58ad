#include "ui/charts/time_chart.h"

#include <QDateTime>
#include <QFontMetrics>
#include <QFontMetricsF>
#include <QLegendMarker>
#include <QLineSeries>
#include <QMouseEvent>
#include <QPainter>
#include <QPolygonF>
#include <QSet>
#include <QTime>
#include <QToolTip>
#include <QValueAxis>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

namespace limitscope::ui {
namespace {

QString number(double v) { return QString::number(v, 'g', 4); }

// Round steps for time labels: the smallest that fits the width gives ticks at whole
// seconds, minutes or hours (QDateTimeAxis spaces a fixed count evenly: 12:10:50, 12:11:40...).
// Ten line colours per theme, none of them red (red is for thresholds and firing bands).
// QtCharts' themes have five, so eight lines repeat colours and the legend becomes ambiguous.
constexpr QRgb kLightLines[] = {0x1f77b4, 0xff7f0e, 0x2ca02c, 0x9467bd, 0x8c564b,
                                0xe377c2, 0x17becf, 0x7f7f7f, 0xbcbd22, 0x393b79};
constexpr QRgb kDarkLines[] = {0x5aa9f0, 0xffa04d, 0x5cc85c, 0xb894e6, 0xd0a48f,
                               0xf39ad6, 0x40d4e4, 0xb8b8b8, 0xd8d94a, 0x9aa6f5};

constexpr qint64 kTickSteps[] = {1'000,     2'000,     5'000,      10'000,     15'000,     30'000,
                                 60'000,    120'000,   300'000,    600'000,    900'000,    1'800'000,
                                 3'600'000, 7'200'000, 10'800'000, 21'600'000, 43'200'000, 86'400'000};

}  // namespace

TimeChart::TimeChart(QStringList shaded_rules, QWidget* parent)
    : QChartView(parent), m_shadedRules(std::move(shaded_rules)) {
  auto* c = new QChart();
  c->setMargins(QMargins(4, 4, 4, 4));  // left grows by setLeftPad()
  c->legend()->setAlignment(Qt::AlignRight);
  c->legend()->setShowToolTips(true);
  c->setAnimationOptions(QChart::NoAnimation);
  // x in ms since the epoch. drawTimeTicks() draws the time labels and grid at round times;
  // this axis only keeps a label row's room (blank labels, two ticks: QDateTimeAxis spent a
  // sixth of each update formatting dates nobody saw).
  m_axisX = new QValueAxis(c);
  m_axisX->setTickCount(2);
  m_axisX->setLabelFormat(QStringLiteral(" "));
  m_axisY = new QValueAxis(c);
  m_axisY->setLabelFormat(QStringLiteral("%.4g"));
  c->addAxis(m_axisX, Qt::AlignBottom);
  c->addAxis(m_axisY, Qt::AlignLeft);
  // An invisible two-point series spanning the window: QtCharts lays out axis labels only for
  // axes with a series holding data, and the lines themselves are painted in drawForeground.
  m_anchor = new QLineSeries(c);
  c->addSeries(m_anchor);
  m_anchor->attachAxis(m_axisX);
  m_anchor->attachAxis(m_axisY);
  m_anchor->setPen(QPen(Qt::transparent));
  setChart(c);
  setRenderHint(QPainter::Antialiasing, false);  // ~20% cheaper; lines stay readable
  setMouseTracking(true);
  setMinimumHeight(150);
}

double TimeChart::naturalPlotLeft() const { return chart()->plotArea().left() - m_leftPad; }

void TimeChart::setLeftPad(int px) {
  if (px == m_leftPad) return;
  m_leftPad = px;
  chart()->setMargins(QMargins(4 + px, 4, 4, 4));
}

void TimeChart::setDark(bool dark) {
  m_dark = dark;
  chart()->setTheme(dark ? QChart::ChartThemeDark : QChart::ChartThemeLight);
  chart()->setMargins(QMargins(4 + m_leftPad, 4, 4, 4));
  chart()->setBackgroundRoundness(0);
  QFont small = chart()->legend()->font();
  small.setPointSizeF(8);
  chart()->legend()->setFont(small);
  chart()->legend()->setVisible(true);
  chart()->legend()->setAlignment(Qt::AlignRight);
  // A fixed legend width keeps the four plot areas (nearly) the same width, so one instant
  // sits at the same x in every chart.
  chart()->legend()->setMinimumWidth(240);
  chart()->legend()->setMaximumWidth(240);
  m_anchor->setPen(QPen(Qt::transparent));  // the theme gave it a colour
  // The axis keeps its labels' room, but drawTimeTicks() draws labels and grid at round times.
  // (QChart::setTheme() with the current theme changes nothing, so keep the last real colour.)
  if (m_axisX->labelsBrush().color().alpha() != 0) m_tickColor = m_axisX->labelsBrush().color();
  m_axisX->setLabelsBrush(QBrush(Qt::transparent));
  m_axisX->setGridLineVisible(false);
  m_lastPoints.clear();  // the theme reset pens; redraw everything on the next update
}

void TimeChart::setData(const ChartData& chartData, const std::vector<AlertInterval>& intervals,
                        qint64 start_ms, qint64 end_ms) {
  QChart* c = chart();
  c->setTitle(QString::fromStdString(chartData.title));
  m_start = start_ms;
  m_end = std::max(end_ms, start_ms + 1);
  m_axisX->setRange(static_cast<double>(m_start), static_cast<double>(m_end));
  m_axisY->setTitleText(QString::fromStdString(chartData.unit));

  double y_max = chartData.y_max.value_or(0);
  if (!chartData.y_max) {
    for (const ChartLine& l : chartData.lines) {
      for (const auto& p : l.points) y_max = std::max(y_max, p.y);
    }
    for (double t : chartData.thresholds) y_max = std::max(y_max, t);
    y_max = y_max <= 0 ? 1 : y_max * 1.15;
  }
  m_anchor->replace(QList<QPointF>{{static_cast<double>(m_start), chartData.y_min},
                                   {static_cast<double>(m_end), chartData.y_min}});
  for (QLegendMarker* m : c->legend()->markers(m_anchor)) m->setVisible(false);
  m_axisY->setRange(chartData.y_min, y_max);
  if (!chartData.y_max) m_axisY->applyNiceNumbers();

  // Lines: one QLineSeries per name gives the legend entry and the theme's colour; the points
  // themselves are drawn in drawForeground with QPainter::drawPolyline. QtCharts re-maps and
  // re-paths every point on replace() (~1 us per point: 60 ms per tick for 500 keys x 1 h),
  // a polyline costs a small fraction of that.
  QHash<QString, bool> seen;
  for (const ChartLine& l : chartData.lines) {
    const QString name = QString::fromStdString(l.name);
    seen.insert(name, true);
    QLineSeries* s = m_lines.value(name, nullptr);
    if (s == nullptr) {
      s = new QLineSeries(c);
      s->setName(legendLabel(name, c->legend()->font()));
      c->addSeries(s);
      s->attachAxis(m_axisX);
      s->attachAxis(m_axisY);
      m_lines.insert(name, s);
      // The first colour no current line uses, kept for the line's life.
      QSet<int> used;
      for (auto u = m_colors.cbegin(); u != m_colors.cend(); ++u) used.insert(u.value());
      int color = 0;
      while (used.contains(color) && color < static_cast<int>(std::size(kLightLines)) - 1) ++color;
      m_colors.insert(name, color);
    }
    QPen pen = s->pen();
    const int color = m_colors.value(name);
    pen.setColor(QColor::fromRgb(m_dark ? kDarkLines[color] : kLightLines[color]));
    pen.setWidthF(l.selected ? 3.0 : 1.5);
    s->setPen(pen);
    m_lastPoints[name] = l.points;
  }
  for (auto it = m_lines.begin(); it != m_lines.end();) {
    if (!seen.contains(it.key())) {
      c->removeSeries(it.value());
      delete it.value();
      m_lastPoints.remove(it.key());
      m_colors.remove(it.key());
      it = m_lines.erase(it);
    } else {
      ++it;
    }
  }

  // Threshold lines are drawn in drawForeground (no series: they stay out of the legend).
  m_thresholdValues = chartData.thresholds;

  m_noData.clear();
  for (const NoDataBand& b : chartData.no_data) {
    if (b.end_ms >= m_start && b.start_ms <= m_end) m_noData.push_back(b);
  }
  m_shaded.clear();
  for (const AlertInterval& iv : intervals) {
    const bool bound = std::find(chartData.rules.begin(), chartData.rules.end(), iv.rule) != chartData.rules.end();
    if ((bound || m_shadedRules.contains(QString::fromStdString(iv.rule))) && iv.end_ms >= m_start &&
        iv.start_ms <= m_end) {
      m_shaded.push_back(iv);
    }
  }
  viewport()->update();
}

QString TimeChart::noDataText(const NoDataBand& band) {
  const QString since = QDateTime::fromMSecsSinceEpoch(band.start_ms).toString(QStringLiteral("HH:mm:ss"));
  const QString source = QString::fromStdString(band.source);
  if (band.open) return tr("no data from %1 since %2").arg(source, since);
  return tr("no data from %1 %2–%3")
      .arg(source, since, QDateTime::fromMSecsSinceEpoch(band.end_ms).toString(QStringLiteral("HH:mm:ss")));
}

QString TimeChart::legendLabel(const QString& name, const QFont& font) const {
  // The legend is 240 px wide; the marker takes about 40. The middle goes, so both the name
  // and what tells two lines of one key apart (model, limit) stay readable.
  const QString elided = QFontMetrics(font).elidedText(name, Qt::ElideMiddle, 190);
  QSet<QString> taken;
  for (const QLineSeries* other : m_lines) taken.insert(other->name());
  if (!taken.contains(elided)) return elided;
  for (int n = 2;; ++n) {  // two names that elide alike: numbered, never two identical labels
    const QString numbered = QFontMetrics(font).elidedText(name, Qt::ElideMiddle, 170) + QStringLiteral(" #%1").arg(n);
    if (!taken.contains(numbered)) return numbered;
  }
}

QStringList TimeChart::legendLabels() const {
  QStringList out;
  for (const QLineSeries* s : m_lines) out << s->name();
  out.sort();
  return out;
}

QList<QPointF> TimeChart::pointsOf(const QString& name) const {
  QList<QPointF> out;
  const auto it = m_lastPoints.constFind(name);
  if (it == m_lastPoints.cend()) return out;
  out.reserve(static_cast<qsizetype>(it->size()));
  for (const auto& p : *it) out.append(QPointF(p.x, p.y));
  return out;
}

double TimeChart::xAtTime(qint64 t_ms) const {
  const QRectF plot = chart()->plotArea();
  const double f = static_cast<double>(t_ms - m_start) / static_cast<double>(m_end - m_start);
  return plot.left() + f * plot.width();
}

qint64 TimeChart::timeAtX(double x) const {
  const QRectF plot = chart()->plotArea();
  const double f = std::clamp((x - plot.left()) / std::max(1.0, plot.width()), 0.0, 1.0);
  return m_start + static_cast<qint64>(std::llround(f * static_cast<double>(m_end - m_start)));
}

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
  const qint64 offset = static_cast<qint64>(QDateTime::fromMSecsSinceEpoch(m_start).offsetFromUtc()) * 1000;
  qint64 t = ((m_start + offset + step - 1) / step) * step - offset;
  const QString format = step < 60'000 ? QStringLiteral("HH:mm:ss") : QStringLiteral("HH:mm");
  const QFont font = m_axisX->labelsFont();
  const QFontMetricsF fm(font);
  painter->save();
  painter->setFont(font);
  const double sx = plot.width() / static_cast<double>(span);
  for (; t <= m_end; t += step) {
    const double x = plot.left() + static_cast<double>(t - m_start) * sx;
    painter->setPen(m_axisY->gridLinePen());  // the theme's grid, as the horizontal lines
    painter->drawLine(QPointF(x, plot.top()), QPointF(x, plot.bottom()));
    // Local time of day by arithmetic: a QDateTime per label costs a time-zone lookup.
    const qint64 of_day = ((t + offset) % 86'400'000 + 86'400'000) % 86'400'000;
    const QString label = QTime::fromMSecsSinceStartOfDay(static_cast<int>(of_day)).toString(format);
    const double w = fm.horizontalAdvance(label);
    const double left = std::clamp(x - w / 2, plot.left() - w / 2, plot.right() + 4 - w);
    painter->setPen(m_tickColor);
    painter->drawText(QPointF(left, plot.bottom() + 6 + fm.ascent()), label);
  }
  painter->restore();
}

void TimeChart::drawForeground(QPainter* painter, const QRectF& rect) {
  QChartView::drawForeground(painter, rect);
  const QRectF plot = chart()->mapToScene(chart()->plotArea()).boundingRect();
  drawTimeTicks(painter, plot);
  painter->save();
  painter->setClipRect(plot);
  const double offset = plot.left() - chart()->plotArea().left();
  for (const AlertInterval& iv : m_shaded) {
    const double x1 = std::max(plot.left(), xAtTime(iv.start_ms) + offset);
    const double x2 = std::min(plot.right(), xAtTime(iv.end_ms) + offset);
    if (x2 < x1) continue;
    const QColor color = iv.firing ? QColor(220, 50, 47, 60) : QColor(240, 170, 0, 55);
    painter->fillRect(QRectF(x1, plot.top(), std::max(1.0, x2 - x1), plot.height()), color);
  }
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
    QFont f = m_axisX->labelsFont();
    f.setBold(true);
    painter->setFont(f);
    const QFontMetricsF fm(f);
    const QString text = noDataText(b);
    const double w = fm.horizontalAdvance(text) + 8;
    // Inside the band when it fits, else left of its start; one row per band.
    const double left = x1 + w <= plot.right() ? x1 + 2 : std::max(plot.left(), x1 - w);
    const QRectF box(left, plot.top() + 2 + static_cast<double>(i) * (fm.height() + 4), w, fm.height() + 2);
    painter->fillRect(box, m_dark ? QColor(40, 40, 40, 220) : QColor(255, 255, 255, 220));
    painter->setPen(m_dark ? QColor(230, 230, 230) : QColor(60, 60, 60));
    painter->drawText(box, Qt::AlignCenter, text);
  }
  const double y_lo = m_axisY->min(), y_hi = m_axisY->max();
  if (y_hi > y_lo) {
    const double sx = plot.width() / static_cast<double>(m_end - m_start);
    const double sy = plot.height() / (y_hi - y_lo);
    QPolygonF poly;
    for (auto it = m_lastPoints.cbegin(); it != m_lastPoints.cend(); ++it) {
      const QLineSeries* series = m_lines.value(it.key(), nullptr);
      if (series == nullptr || it->empty()) continue;
      poly.resize(static_cast<qsizetype>(it->size()));
      for (std::size_t i = 0; i < it->size(); ++i) {
        const auto& p = (*it)[i];
        poly[static_cast<qsizetype>(i)] = QPointF(plot.left() + (p.x - static_cast<double>(m_start)) * sx,
                                                  plot.bottom() - (p.y - y_lo) * sy);
      }
      // A cosmetic pen of whole-pixel width takes the raster engine's fast line path; a 1.5 px
      // pen goes through the stroker, several times slower for tens of thousands of points.
      QPen pen = series->pen();
      pen.setWidth(pen.widthF() > 2 ? 3 : 1);
      pen.setCosmetic(true);
      painter->setPen(pen);
      painter->drawPolyline(poly);
    }
    QPen pen(QColor(220, 50, 47));
    pen.setStyle(Qt::DashLine);
    pen.setWidthF(1.2);
    painter->setPen(pen);
    for (double th : m_thresholdValues) {
      if (th < y_lo || th > y_hi) continue;
      const double y = plot.bottom() - (th - y_lo) / (y_hi - y_lo) * plot.height();
      painter->drawLine(QPointF(plot.left(), y), QPointF(plot.right(), y));
    }
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

QString TimeChart::valuesAt(qint64 t_ms) const {
  QStringList rows;
  rows << QDateTime::fromMSecsSinceEpoch(t_ms).toString(QStringLiteral("HH:mm:ss"));
  for (auto it = m_lastPoints.cbegin(); it != m_lastPoints.cend(); ++it) {
    const auto& pts = it.value();
    auto p = std::upper_bound(pts.begin(), pts.end(), static_cast<double>(t_ms),
                              [](double t, const metrics::Point& q) { return t < q.x; });
    if (p == pts.begin()) continue;
    --p;
    rows << it.key() + QStringLiteral(": ") + number(p->y);
  }
  return rows.join(QLatin1Char('\n'));
}

void TimeChart::setCrosshair(qint64 t_ms) {
  if (m_crosshair == t_ms) return;
  m_crosshair = t_ms;
  viewport()->update();
}

void TimeChart::mouseMoveEvent(QMouseEvent* event) {
  const QPointF scene = mapToScene(event->position().toPoint());
  const QPointF in_chart = chart()->mapFromScene(scene);
  if (chart()->plotArea().contains(in_chart)) {
    const qint64 t = timeAtX(in_chart.x());
    setCrosshair(t);
    emit crosshairMoved(t);
    QToolTip::showText(event->globalPosition().toPoint(), valuesAt(t), this);
  }
  if (m_dragStartX >= 0) {
    m_dragX = scene.x();
    viewport()->update();
  }
  QChartView::mouseMoveEvent(event);
}

void TimeChart::mousePressEvent(QMouseEvent* event) {
  if (event->button() == Qt::LeftButton) {
    m_dragStartX = mapToScene(event->position().toPoint()).x();
    m_dragX = -1;
  }
  QChartView::mousePressEvent(event);
}

void TimeChart::mouseReleaseEvent(QMouseEvent* event) {
  if (event->button() == Qt::LeftButton && m_dragStartX >= 0 && m_dragX >= 0 &&
      std::abs(m_dragX - m_dragStartX) > 8) {
    const double offset = chart()->mapToScene(chart()->plotArea()).boundingRect().left() -
                          chart()->plotArea().left();
    const qint64 a = timeAtX(std::min(m_dragStartX, m_dragX) - offset);
    const qint64 b = timeAtX(std::max(m_dragStartX, m_dragX) - offset);
    if (b > a) emit rangeRequested(a, b);
  }
  m_dragStartX = m_dragX = -1;
  viewport()->update();
  QChartView::mouseReleaseEvent(event);
}

void TimeChart::mouseDoubleClickEvent(QMouseEvent* event) {
  emit liveRequested();
  QChartView::mouseDoubleClickEvent(event);
}

void TimeChart::wheelEvent(QWheelEvent* event) {
  const double steps = event->angleDelta().y() / 120.0;
  if (steps == 0) return;
  const qint64 span = m_end - m_start;
  if (event->modifiers() & Qt::ShiftModifier) {
    const qint64 shift = static_cast<qint64>(-steps * 0.1 * static_cast<double>(span));
    emit rangeRequested(m_start + shift, m_end + shift);
  } else {
    const QPointF in_chart = chart()->mapFromScene(mapToScene(event->position().toPoint()));
    const qint64 pivot = timeAtX(in_chart.x());
    const double factor = std::pow(0.8, steps);
    const qint64 a = pivot - static_cast<qint64>(static_cast<double>(pivot - m_start) * factor);
    const qint64 b = pivot + static_cast<qint64>(static_cast<double>(m_end - pivot) * factor);
    if (b - a >= 1000) emit rangeRequested(a, b);
  }
  event->accept();
}

void TimeChart::leaveEvent(QEvent* event) {
  setCrosshair(-1);
  emit crosshairMoved(-1);
  QChartView::leaveEvent(event);
}

}  // namespace limitscope::ui
