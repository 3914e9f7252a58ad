#include "ui/tuner/whatif_chart.h"

#include <QChart>
#include <QLegend>
#include <QLineSeries>
#include <QPen>
#include <QValueAxis>
#include <algorithm>

namespace limitscope::ui {

namespace {

// Solid one-pixel cosmetic pens: dashed or wider lines go through Qt's dash stroker and cost
// about twice the whole redraw budget on 4 × 1,000 points (measured with limitscope-bench-tuner).
// Current and candidate differ by colour: muted for the current setting, strong for the candidate.
QPen line_pen(const QColor& color) {
  QPen pen(color);
  pen.setWidth(1);
  pen.setCosmetic(true);
  return pen;
}

QLineSeries* make_series(QChart* chart, const QString& name) {
  auto* s = new QLineSeries(chart);
  s->setName(name);
  chart->addSeries(s);
  return s;
}

}  // namespace

WhatIfChart::WhatIfChart(QWidget* parent) : QChartView(parent) {
  auto* chart = new QChart;
  chart->setTitle(tr("What if: candidate against current"));
  chart->legend()->setAlignment(Qt::AlignBottom);
  // Antialiasing costs ~20% per redraw (DESIGN.md section 8); lines at one point per pixel
  // column read fine without it.
  setRenderHint(QPainter::Antialiasing, false);
  m_currentLevel = make_series(chart, tr("current level"));
  m_candidateLevel = make_series(chart, tr("candidate level"));
  m_currentRejected = make_series(chart, tr("current 429s"));
  m_candidateRejected = make_series(chart, tr("candidate 429s"));
  m_x = new QValueAxis(chart);
  m_x->setTitleText(tr("seconds since the trace's first request"));
  m_x->setLabelFormat(QStringLiteral("%.0f"));
  m_level = new QValueAxis(chart);
  m_level->setRange(0, 100);
  m_level->setTitleText(tr("mean level (%)"));
  m_level->setLabelFormat(QStringLiteral("%.0f"));
  m_rejected = new QValueAxis(chart);
  m_rejected->setTitleText(tr("429s per column"));
  m_rejected->setLabelFormat(QStringLiteral("%.0f"));
  chart->addAxis(m_x, Qt::AlignBottom);
  chart->addAxis(m_level, Qt::AlignLeft);
  chart->addAxis(m_rejected, Qt::AlignRight);
  for (QLineSeries* s : {m_currentLevel, m_candidateLevel}) {
    s->attachAxis(m_x);
    s->attachAxis(m_level);
  }
  for (QLineSeries* s : {m_currentRejected, m_candidateRejected}) {
    s->attachAxis(m_x);
    s->attachAxis(m_rejected);
  }
  setChart(chart);
  // The Tuner tab fits 1280×720 with the heatmap and its advice (tuner_advice_test); a set
  // minimum width keeps the legend and axis labels from widening the tab (they elide instead).
  setMinimumSize(320, 220);
  setDark(false);
}

void WhatIfChart::setSide(const tuner::WhatIfSeries* s, QLineSeries* level, QLineSeries* rejected,
                          double& max_left, double& max_right) {
  QList<QPointF> lv;
  QList<QPointF> rj;
  max_left = 0;
  max_right = 0;
  const bool spend = m_view == View::spend;
  if (s != nullptr && (!spend || !s->spend.empty())) {
    const std::size_t n = s->rejected.size();
    lv.reserve(static_cast<qsizetype>(n));
    rj.reserve(static_cast<qsizetype>(n));
    for (std::size_t i = 0; i < n; ++i) {
      const double x = s->column_start_s(i);
      const double left = spend ? s->max_quota_burn[i] : s->mean_level[i];
      if (left >= 0) lv.append(QPointF(x, left * 100));  // < 0: a column without requests
      max_left = std::max(max_left, left * 100);
      const double right = spend ? s->spend[i] : static_cast<double>(s->rejected[i]);
      rj.append(QPointF(x, right));
      max_right = std::max(max_right, right);
    }
  }
  // One replace() per series: QtCharts re-maps every point on each call (DESIGN.md section 8).
  level->replace(lv);
  rejected->replace(rj);
}

void WhatIfChart::setView(View view) {
  if (view == m_view) return;
  m_view = view;
  nameSeries();
  setCurrent(m_current);
  setCandidate(m_candidate);
}

void WhatIfChart::nameSeries() {
  const bool spend = m_view == View::spend;
  m_currentLevel->setName(spend ? tr("current quota burn") : tr("current level"));
  m_candidateLevel->setName(spend ? tr("candidate quota burn") : tr("candidate level"));
  m_currentRejected->setName(spend ? tr("current $") : tr("current 429s"));
  m_candidateRejected->setName(spend ? tr("candidate $") : tr("candidate 429s"));
  m_level->setTitleText(spend ? tr("highest daily quota burn (%)") : tr("mean level (%)"));
  m_rejected->setTitleText(spend ? tr("dollars per column") : tr("429s per column"));
  m_rejected->setLabelFormat(spend ? QStringLiteral("%.2f") : QStringLiteral("%.0f"));
}

void WhatIfChart::setCurrent(const tuner::WhatIfSeries* series) {
  m_current = series;
  setSide(series, m_currentLevel, m_currentRejected, m_leftCurrent, m_maxCurrent);
  m_spanCurrent = series == nullptr ? 0 : series->column_start_s(series->rejected.size());
  rescale();
}

void WhatIfChart::setCandidate(const tuner::WhatIfSeries* series) {
  m_candidate = series;
  setSide(series, m_candidateLevel, m_candidateRejected, m_leftCandidate, m_maxCandidate);
  m_spanCandidate = series == nullptr ? 0 : series->column_start_s(series->rejected.size());
  rescale();
}

void WhatIfChart::rescale() {
  const double floor = m_view == View::spend ? 0.01 : 1.0;  // dollars can be fractions
  const double top = std::max(floor, std::max(m_maxCurrent, m_maxCandidate));
  if (m_rejected->max() != top * 1.1) m_rejected->setRange(0, top * 1.1);
  // Levels are 0..100%; a quota burn can pass 100% (over quota), so its axis grows.
  const double left = m_view == View::spend
                          ? std::max(100.0, std::max(m_leftCurrent, m_leftCandidate) * 1.1)
                          : 100.0;
  if (m_level->max() != left) m_level->setRange(0, left);
  const double span = std::max(1.0, std::max(m_spanCurrent, m_spanCandidate));
  if (m_x->max() != span) m_x->setRange(0, span);
}

void WhatIfChart::setDark(bool dark) {
  chart()->setTheme(dark ? QChart::ChartThemeDark : QChart::ChartThemeLight);
  // The theme resets pens: put the series' own back.
  const std::pair<QLineSeries*, QColor> colors[] = {
      {m_currentLevel, QColor(dark ? 0x8090a0 : 0xa0aab4)},
      {m_candidateLevel, QColor(dark ? 0x50a0ff : 0x1060d0)},
      {m_currentRejected, QColor(dark ? 0xc08850 : 0xf0b070)},
      {m_candidateRejected, QColor(dark ? 0xff5050 : 0xd02020)}};
  for (const auto& [s, c] : colors) s->setPen(line_pen(c));
}

QList<QPointF> WhatIfChart::pointsOf(const QString& name) const {
  for (const QLineSeries* s :
       {m_currentLevel, m_candidateLevel, m_currentRejected, m_candidateRejected}) {
    if (s->name() == name) return s->points();
  }
  return {};
}

}  // namespace limitscope::ui
