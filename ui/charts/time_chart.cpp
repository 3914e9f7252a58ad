#include "ui/charts/time_chart.h"

#include <QDateTime>
#include <QFontMetrics>
#include <QFontMetricsF>
#include <QGraphicsLayout>
#include <QGraphicsScene>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QMouseEvent>
#include <QPaintEvent>
#include <QPainter>
#include <QPolygonF>
#include <QSet>
#include <QTime>
#include <QToolButton>
#include <QToolTip>
#include <QValueAxis>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>
#include <limits>

#include "core/dashboard/shadow_axis.h"
#include "ui/charts/axis_range.h"
#include "ui/charts/pixel_polyline.h"

namespace limitscope::ui {
namespace {

QString number(double v) {
  return QString::number(v, 'g', 4);
}

// Ten line colours per theme, none of them red (red is for thresholds and firing bands).
// QtCharts' themes have five, so eight lines repeat colours and the legend becomes ambiguous.
constexpr QRgb kLightLines[] = {0x1f77b4, 0xff7f0e, 0x2ca02c, 0x9467bd, 0x8c564b,
                                0xe377c2, 0x17becf, 0x7f7f7f, 0xbcbd22, 0x393b79};
constexpr QRgb kDarkLines[] = {0x5aa9f0, 0xffa04d, 0x5cc85c, 0xb894e6, 0xd0a48f,
                               0xf39ad6, 0x40d4e4, 0xb8b8b8, 0xd8d94a, 0x9aa6f5};

}  // namespace

TimeChart::TimeChart(QStringList shaded_rules, QWidget* parent)
    : QChartView(parent), m_shadedRules(std::move(shaded_rules)) {
  auto* c = new QChart();
  c->setMargins(QMargins(4, 4, 4, 4));  // left grows by setLeftPad(), right by setRightPad()
  c->legend()->setAlignment(Qt::AlignRight);
  c->legend()->setShowToolTips(true);
  c->setAnimationOptions(QChart::NoAnimation);
  // x in ms since the epoch. drawTimeTicks() draws the time labels and grid at round times;
  // this axis only keeps a label row's room (blank labels, two ticks: QDateTimeAxis spent a
  // sixth of each update formatting dates nobody saw).
  // Its range stays 0..1: the lines, ticks and bands are mapped by m_start and m_end, and a
  // range change per update would re-lay out the whole chart.
  m_axisX = new QValueAxis(c);
  m_axisX->setTickCount(2);
  m_axisX->setLabelFormat(QStringLiteral(" "));
  m_axisX->setRange(0, 1);
  m_axisY = new QValueAxis(c);
  m_axisY->setLabelFormat(QStringLiteral("%.4g"));
  // Kept out of the chart until the operator asks for a log scale (setLogScale).
  m_logAxisY = new QLogValueAxis(this);
  m_logAxisY->setBase(10);
  m_logAxisY->setLabelFormat(QStringLiteral("%.4g"));
  m_logAxisY->setMinorTickCount(-1);
  // Kept out of the chart until a shadow config's lines need their own scale (setShadowAxis):
  // no grid of its own, the live axis's grid stays the one read across the plot.
  m_shadowAxisY = new QValueAxis(this);
  m_shadowAxisY->setLabelFormat(QStringLiteral("%.4g"));
  m_shadowAxisY->setGridLineVisible(false);
  m_shadowAnchor = new QLineSeries(this);
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
  // Any change of QtCharts' items (a layout, a label, the legend) reaches the scene's changed()
  // before the repaint it causes (posted at normal priority; the repaint request at low).
  connect(scene(), &QGraphicsScene::changed, this, [this] { m_sceneDirty = true; });
  setRenderHint(QPainter::Antialiasing, false);  // ~20% cheaper; lines stay readable
  setMouseTracking(true);
  setMinimumHeight(110);  // three charts and the docks fit a 1280×720 window
}

double TimeChart::naturalPlotLeft() const {
  return chart()->plotArea().left() - m_leftPad;
}

void TimeChart::setLeftPad(int px) {
  if (px == m_leftPad) return;
  m_leftPad = px;
  chart()->setMargins(QMargins(4 + m_leftPad, 4, 4 + m_rightPad, 4));
}

double TimeChart::naturalPlotRight() const {
  return chart()->plotArea().right() + m_rightPad;
}

void TimeChart::setRightPad(int px) {
  if (px == m_rightPad) return;
  m_rightPad = px;
  chart()->setMargins(QMargins(4 + m_leftPad, 4, 4 + m_rightPad, 4));
}

void TimeChart::setDark(bool dark) {
  m_dark = dark;
  chart()->setTheme(dark ? QChart::ChartThemeDark : QChart::ChartThemeLight);
  chart()->setMargins(QMargins(4 + m_leftPad, 4, 4 + m_rightPad, 4));
  chart()->setBackgroundRoundness(0);
  QFont small = chart()->legend()->font();
  small.setPointSizeF(8);
  chart()->legend()->setFont(small);
  chart()->legend()->setVisible(true);
  chart()->legend()->setAlignment(Qt::AlignRight);
  // A fixed legend width keeps the four plot areas (nearly) the same width, so one instant
  // sits at the same x in every chart.
  chart()->legend()->setMinimumWidth(260);
  chart()->legend()->setMaximumWidth(260);
  m_anchor->setPen(QPen(Qt::transparent));  // the theme gave it a colour
  m_shadowAnchor->setPen(QPen(Qt::transparent));
  // The axis keeps its labels' room, but drawTimeTicks() draws labels and grid at round times.
  // (QChart::setTheme() with the current theme changes nothing, so keep the last real colour.)
  if (m_axisX->labelsBrush().color().alpha() != 0) m_tickColor = m_axisX->labelsBrush().color();
  m_axisX->setLabelsBrush(QBrush(Qt::transparent));
  m_axisX->setGridLineVisible(false);
  m_lastPoints.clear();  // the theme reset pens; redraw everything on the next update
}

void TimeChart::settleLayout() {
  // The chart's layout places the legend, whose own layout places its markers; a legend that
  // changed size asks the chart's again.
  for (QGraphicsLayout* l : {chart()->layout(), chart()->legend()->layout(), chart()->layout()}) {
    if (l != nullptr && !l->isActivated()) l->activate();
  }
}

void TimeChart::setData(const ChartData& chartData, const std::vector<AlertInterval>& intervals,
                        qint64 start_ms, qint64 end_ms) {
  if (&chartData != &m_data) m_data = chartData;
  if (&intervals != &m_intervals) m_intervals = intervals;
  QChart* c = chart();
  // Only what changed is handed to QtCharts: each change of a title or a range re-lays out the
  // chart and its rich-text labels (most of an update's cost when done on every tick).
  const QString title = QString::fromStdString(chartData.title);
  if (c->title() != title) c->setTitle(title);
  m_start = start_ms;
  m_end = std::max(end_ms, start_ms + 1);
  QAbstractAxis* axisY = m_log ? static_cast<QAbstractAxis*>(m_logAxisY) : m_axisY;
  const QString unit = QString::fromStdString(chartData.unit) + (m_log ? tr(" (log)") : QString());
  if (axisY->titleText() != unit) axisY->setTitleText(unit);

  m_shadows.clear();
  for (const ChartLine& l : chartData.lines) {
    if (l.shadow_of) m_shadows.insert(QString::fromStdString(l.name));
  }
  setShadowAxis(choose_shadow_axis(chartData, m_log, m_shadowOwnAxis).own_axis);
  const AxisRange y = y_range(chartData, m_log, m_axisY->tickCount(),
                              m_shadowOwnAxis ? AxisLines::live : AxisLines::all);
  if (m_log) {
    if (m_logAxisY->min() != y.lo || m_logAxisY->max() != y.hi) m_logAxisY->setRange(y.lo, y.hi);
  } else {
    if (m_axisY->min() != y.lo || m_axisY->max() != y.hi) m_axisY->setRange(y.lo, y.hi);
    if (m_axisY->tickCount() != y.ticks) m_axisY->setTickCount(y.ticks);
  }
  m_yScale = YScale(y.lo, y.hi, m_log);
  if (m_anchorY != y.lo) {  // the anchor spans the x axis at the bottom of the y range
    m_anchorY = y.lo;
    m_anchor->replace(QList<QPointF>{{0.0, y.lo}, {1.0, y.lo}});
  }
  for (QLegendMarker* m : c->legend()->markers(m_anchor)) m->setVisible(false);
  if (m_shadowOwnAxis) {
    const AxisRange r = y_range(chartData, false, m_shadowAxisY->tickCount(), AxisLines::shadow);
    if (m_shadowAxisY->min() != r.lo || m_shadowAxisY->max() != r.hi)
      m_shadowAxisY->setRange(r.lo, r.hi);
    if (m_shadowAxisY->tickCount() != r.ticks) m_shadowAxisY->setTickCount(r.ticks);
    m_shadowScale = YScale(r.lo, r.hi, false);
    if (m_shadowAnchor->count() != 2 || m_shadowAnchor->at(0).y() != r.lo)
      m_shadowAnchor->replace(QList<QPointF>{{0.0, r.lo}, {1.0, r.lo}});
    for (QLegendMarker* m : c->legend()->markers(m_shadowAnchor)) m->setVisible(false);
  }

  // Lines: one QLineSeries per name gives the legend entry and the theme's colour; the points
  // themselves are drawn in drawForeground with QPainter::drawPolyline. QtCharts re-maps and
  // re-paths every point on replace() (~1 us per point: 60 ms per tick for 500 keys x 1 h),
  // a polyline costs a small fraction of that.
  QHash<QString, bool> wanted;
  for (const ChartLine& l : chartData.lines) wanted.insert(QString::fromStdString(l.name), true);
  // A line that left the chart lends its series to one that joined: renamed, not removed and
  // added again (QtCharts re-lays out the legend and re-attaches the axes for each series).
  std::vector<QLineSeries*> spare;
  for (auto it = m_lines.begin(); it != m_lines.end();) {
    if (wanted.contains(it.key())) {
      ++it;
      continue;
    }
    spare.push_back(it.value());
    m_lastPoints.remove(it.key());
    m_colors.remove(it.key());
    m_rightLabelled.remove(it.key());
    it = m_lines.erase(it);
  }
  for (const ChartLine& l : chartData.lines) {
    const QString name = QString::fromStdString(l.name);
    QLineSeries* s = m_lines.value(name, nullptr);
    const bool named = s != nullptr;
    if (s == nullptr) {
      if (!spare.empty()) {
        s = spare.back();
        spare.pop_back();
      } else {
        s = new QLineSeries(c);
        c->addSeries(s);
        s->attachAxis(m_axisX);
      }
      m_lines.insert(name, s);
      // The first colour no current line uses, kept for the line's life; a shadow config's
      // line takes the colour of the line it is beside.
      QSet<int> used;
      for (auto u = m_colors.cbegin(); u != m_colors.cend(); ++u) used.insert(u.value());
      int color = 0;
      while (used.contains(color) && color < static_cast<int>(std::size(kLightLines)) - 1) ++color;
      if (l.shadow_of) color = m_colors.value(QString::fromStdString(*l.shadow_of), color);
      m_colors.insert(name, color);
    }
    // On the live axis, or a shadow line on its own (a series lent by another line may be on
    // either).
    QAbstractAxis* wantY = axisFor(l.shadow_of.has_value());
    const QList<QAbstractAxis*> attached = s->attachedAxes();
    if (!attached.contains(wantY)) {
      for (QAbstractAxis* a : attached) {
        if (a->orientation() == Qt::Vertical) s->detachAxis(a);
      }
      s->attachAxis(wantY);
    }
    // Named when it joins, and again when it moves to or from the right-hand axis: a shadow
    // line there says so in the legend (its scale is not the one on the left).
    const bool right = wantY == m_shadowAxisY;
    if (!named || right != m_rightLabelled.contains(name)) {
      s->setName(legendLabel(name, c->legend()->font(), right));
      if (right) {
        m_rightLabelled.insert(name);
      } else {
        m_rightLabelled.remove(name);
      }
    }
    QPen pen = s->pen();
    pen.setColor(lineColor(name));
    pen.setWidthF(l.selected ? 3.0 : 1.5);
    pen.setStyle(l.shadow_of ? Qt::DashLine : Qt::SolidLine);
    if (pen != s->pen()) s->setPen(pen);
    m_lastPoints[name] = l.points;
  }
  for (QLineSeries* s : spare) {
    c->removeSeries(s);
    delete s;
  }
  if (m_shadowOwnAxis) {
    // What the axis measures, said in full where the plot is tall enough for it (a chart in a
    // 1280×720 window is not), and in the colour of the line it measures (the first).
    const QString full = tr("would refuse/s (shadow)");
    const QString axisTitle =
        QFontMetrics(m_shadowAxisY->titleFont()).horizontalAdvance(full) <= c->plotArea().height()
            ? full
            : tr("shadow/s");
    if (m_shadowAxisY->titleText() != axisTitle) m_shadowAxisY->setTitleText(axisTitle);
    for (const ChartLine& l : chartData.lines) {
      if (!l.shadow_of) continue;
      const QBrush brush(lineColor(QString::fromStdString(l.name)));
      if (m_shadowAxisY->titleBrush() != brush) m_shadowAxisY->setTitleBrush(brush);
      break;
    }
  }

  // Threshold lines are drawn in drawForeground (no series: they stay out of the legend).
  m_thresholdValues = chartData.thresholds;
  m_thresholdLabels.clear();
  for (std::size_t i = 0; i < chartData.thresholds.size(); ++i) {
    m_thresholdLabels << (i < chartData.threshold_labels.size()
                              ? QString::fromStdString(chartData.threshold_labels[i])
                              : number(chartData.thresholds[i]));
  }

  m_noData.clear();
  for (const NoDataBand& b : chartData.no_data) {
    if (b.end_ms >= m_start && b.start_ms <= m_end) m_noData.push_back(b);
  }
  m_bands.clear();
  for (const AlertBand& b : chartData.bands) {
    if ((b.open || b.end_ms >= m_start) && b.start_ms <= m_end) m_bands.push_back(b);
  }
  // Over the whole plot: the rules this chart was made for, and bound rules that have no
  // bands of their own (a recording keeps each rule's intervals, not its alerts' labels).
  m_shaded.clear();
  for (const AlertInterval& iv : intervals) {
    const bool bound =
        std::find(chartData.rules.begin(), chartData.rules.end(), iv.rule) != chartData.rules.end();
    const bool banded = std::any_of(chartData.bands.begin(), chartData.bands.end(),
                                    [&](const AlertBand& b) { return b.rule == iv.rule; });
    if (((bound && !banded) || m_shadedRules.contains(QString::fromStdString(iv.rule))) &&
        iv.end_ms >= m_start && iv.start_ms <= m_end) {
      m_shaded.push_back(iv);
    }
  }
  viewport()->update();
}

QColor TimeChart::lineColor(const QString& name) const {
  const auto it = m_colors.constFind(name);
  if (it == m_colors.cend()) return {};
  return QColor::fromRgb(m_dark ? kDarkLines[it.value()] : kLightLines[it.value()]);
}

Qt::PenStyle TimeChart::lineStyle(const QString& name) const {
  const QLineSeries* s = m_lines.value(name, nullptr);
  return s == nullptr ? Qt::NoPen : s->pen().style();
}

double TimeChart::yFraction(double value) const {
  return m_yScale.fraction(value);
}

const YScale& TimeChart::scaleOf(const QString& name) const {
  return m_shadowOwnAxis && m_shadows.contains(name) ? m_shadowScale : m_yScale;
}

double TimeChart::yPixel(double value) const {
  const QRectF plot = chart()->mapToScene(chart()->plotArea()).boundingRect();
  return mapFromScene(QPointF(plot.left(), plot.bottom() - yFraction(value) * plot.height())).y();
}

double TimeChart::yPixel(double value, const QString& line) const {
  const QRectF plot = chart()->mapToScene(chart()->plotArea()).boundingRect();
  const double f = scaleOf(line).fraction(value);
  return mapFromScene(QPointF(plot.left(), plot.bottom() - f * plot.height())).y();
}

QAbstractAxis* TimeChart::lineAxisY(const QString& name) const {
  QLineSeries* s = m_lines.value(name, nullptr);
  if (s == nullptr) return nullptr;
  for (QAbstractAxis* a : s->attachedAxes()) {
    if (a->orientation() == Qt::Vertical) return a;
  }
  return nullptr;
}

QAbstractAxis* TimeChart::axisFor(bool shadow) const {
  if (shadow && m_shadowOwnAxis) return m_shadowAxisY;
  return m_log ? static_cast<QAbstractAxis*>(m_logAxisY) : m_axisY;
}

void TimeChart::setShadowAxis(bool own) {
  if (own == m_shadowOwnAxis) return;
  QChart* c = chart();
  QAbstractAxis* live = axisFor(false);
  if (own) {
    c->addAxis(m_shadowAxisY, Qt::AlignRight);
    // Styled as the live axis the theme styled (the title's colour is its line's: setData).
    m_shadowAxisY->setLabelsBrush(live->labelsBrush());
    m_shadowAxisY->setLabelsFont(live->labelsFont());
    m_shadowAxisY->setTitleFont(live->titleFont());
    m_shadowAxisY->setLinePen(live->linePen());
    m_shadowAxisY->setGridLineVisible(false);
    c->addSeries(m_shadowAnchor);
    m_shadowAnchor->attachAxis(m_axisX);
    m_shadowAnchor->attachAxis(m_shadowAxisY);
    m_shadowAnchor->setPen(QPen(Qt::transparent));
  } else {
    // Every series on the shadow axis goes back to the live one (setData re-attaches each
    // line it keeps; these may also be lent to other lines or removed).
    for (QLineSeries* s : std::as_const(m_lines)) {
      if (!s->attachedAxes().contains(m_shadowAxisY)) continue;
      s->detachAxis(m_shadowAxisY);
      s->attachAxis(live);
    }
    c->removeSeries(m_shadowAnchor);
    m_shadowAnchor->setParent(this);  // removeSeries gives it back: it stays ours
    c->removeAxis(m_shadowAxisY);
    m_shadowAxisY->setParent(this);
  }
  m_shadowOwnAxis = own;
}

QStringList TimeChart::thresholdLabels() const {
  return m_thresholdLabels;
}

void TimeChart::setLogScaleToggle(bool offered) {
  if (offered && m_logButton == nullptr) {
    m_logButton = new QToolButton(this);
    m_logButton->setObjectName(QStringLiteral("logScale"));
    m_logButton->setText(tr("log"));
    m_logButton->setCheckable(true);
    m_logButton->setAutoRaise(true);
    m_logButton->setToolTip(tr(
        "Logarithmic y axis: small tiers and the alert threshold stay readable beside a runaway"));
    m_logButton->move(2, 2);
    connect(m_logButton, &QToolButton::toggled, this, &TimeChart::setLogScale);
  }
  if (m_logButton != nullptr) m_logButton->setVisible(offered);
}

void TimeChart::setLogScale(bool on) {
  if (on == m_log) return;
  setShadowAxis(false);  // a log axis shows both scales: every line moves with the live axis
  m_log = on;
  if (m_logButton != nullptr) {
    const QSignalBlocker block(m_logButton);
    m_logButton->setChecked(on);
  }
  QAbstractAxis* from = on ? static_cast<QAbstractAxis*>(m_axisY) : m_logAxisY;
  QAbstractAxis* to = on ? static_cast<QAbstractAxis*>(m_logAxisY) : m_axisY;
  // A log axis refuses zero: the anchor sits on a positive value until setData places it.
  if (on) {
    m_anchor->replace(QList<QPointF>{{0.0, 1.0}, {1.0, 1.0}});
    m_anchorY = 1.0;
  }
  m_anchor->detachAxis(from);
  for (QLineSeries* s : std::as_const(m_lines)) s->detachAxis(from);
  chart()->removeAxis(from);
  from->setParent(this);  // removeAxis gives it back: it stays ours for the next switch
  chart()->addAxis(to, Qt::AlignLeft);
  // The theme styled the axis it was given; the other one takes the same look.
  to->setLabelsBrush(from->labelsBrush());
  to->setLabelsFont(from->labelsFont());
  to->setTitleBrush(from->titleBrush());
  to->setTitleFont(from->titleFont());
  to->setGridLinePen(from->gridLinePen());
  to->setLinePen(from->linePen());
  m_anchor->attachAxis(to);
  for (QLineSeries* s : std::as_const(m_lines)) s->attachAxis(to);
  const ChartData shown = m_data;
  const std::vector<AlertInterval> intervals = m_intervals;
  setData(shown, intervals, m_start, m_end);
}

QString TimeChart::noDataText(const NoDataBand& band) {
  const QString since =
      QDateTime::fromMSecsSinceEpoch(band.start_ms).toString(QStringLiteral("HH:mm:ss"));
  const QString source = QString::fromStdString(band.source);
  if (band.open) return tr("no data from %1 since %2").arg(source, since);
  return tr("no data from %1 %2–%3")
      .arg(source, since,
           QDateTime::fromMSecsSinceEpoch(band.end_ms).toString(QStringLiteral("HH:mm:ss")));
}

QString TimeChart::legendLabel(const QString& name, const QFont& font, bool right_axis) const {
  // The legend is 260 px wide; the marker takes about 40. A key line is "key / model[ / limit]":
  // the model is what tells two lines of one key apart, so it stays whole; the key's name
  // gives way first (elided in its middle, down to a few letters each side), then the limit
  // (down to its first letters: "req…", "llm…").
  const QFontMetrics fm(font);
  constexpr int kWidth = 210;
  // A line on the right-hand axis says so, whole: "free: would refuse (shadow, right axis)", or
  // where that is too wide "free: would refuse (right axis)" (the dashed line and the axis's
  // title in its colour say shadow), the name giving way before "(right axis)" does.
  QString stem = name, tail;
  if (right_axis) {
    const QString shadow = QStringLiteral(" (shadow)");
    if (name.endsWith(shadow)) stem.chop(shadow.size());
    tail = tr(" (shadow, right axis)");
    if (stem == name || fm.horizontalAdvance(stem + tail) > kWidth) tail = tr(" (right axis)");
  }
  const int room = kWidth - fm.horizontalAdvance(tail);
  constexpr int kKeyAtLeast = 48;
  const auto elide = [&](int width) -> QString {
    if (fm.horizontalAdvance(stem) <= width) return stem;
    const QStringList parts = stem.split(QStringLiteral(" / "));
    if (parts.size() < 2) return fm.elidedText(stem, Qt::ElideMiddle, width);
    const QString model = QStringLiteral(" / ") + parts[1];
    const QString limit = parts.size() > 2
                              ? QStringLiteral(" / ") + parts.mid(2).join(QStringLiteral(" / "))
                              : QString();
    const int model_w = fm.horizontalAdvance(model);
    if (model_w > width - kKeyAtLeast)
      return fm.elidedText(stem, Qt::ElideMiddle, width);  // a very long model
    // The key keeps all it can while the limit keeps its first letters ("requ…", "llm_…").
    const int limit_least =
        limit.isEmpty() ? 0 : fm.horizontalAdvance(limit.left(7) + QChar(0x2026));
    const int key_room = std::max(kKeyAtLeast, width - model_w - limit_least);
    const QString key = fm.elidedText(parts[0], Qt::ElideMiddle, key_room);
    const int limit_room = std::max(width - fm.horizontalAdvance(key) - model_w, limit_least);
    return key + model +
           (limit.isEmpty() ? QString() : fm.elidedText(limit, Qt::ElideRight, limit_room));
  };
  const QString elided = elide(room) + tail;
  QSet<QString> taken;
  for (const QLineSeries* other : m_lines) taken.insert(other->name());
  if (!taken.contains(elided)) return elided;
  for (int n = 2;; ++n) {  // two names that elide alike: numbered, never two identical labels
    const QString numbered = elide(room - 20) + QStringLiteral(" #%1").arg(n) + tail;
    if (!taken.contains(numbered)) return numbered;
  }
}

int TimeChart::legendRowsAt(int height) const {
  // A legend entry is a text line plus the marker's padding (QtCharts: 4 px above and below);
  // the legend spans the chart's height under its title. From the widget's height, not the
  // plot area's: that is laid out later, and a resize must give the answer at once.
  const QFontMetricsF fm(chart()->legend()->font());
  const double row = fm.height() + 8;
  const double room = height - 2 * QFontMetricsF(chart()->titleFont()).height() - 16;
  return std::max(1, static_cast<int>(room / row));
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
    const double offset =
        chart()->mapToScene(chart()->plotArea()).boundingRect().left() - chart()->plotArea().left();
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
