#include "ui/tuner/whatif_chart.h"

#include <QChart>
#include <QLegend>
#include <QLineSeries>
#include <QPen>
#include <QValueAxis>

#include <algorithm>

namespace limitscope::ui {

namespace {

QLineSeries* make_series(QChart* chart, const QString& name, const QColor& color, Qt::PenStyle style) {
  auto* s = new QLineSeries(chart);
  s->setName(name);
  QPen pen(color);
  pen.setWidthF(style == Qt::SolidLine ? 2.0 : 1.5);
  pen.setStyle(style);
  s->setPen(pen);
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
  m_currentLevel = make_series(chart, tr("current level"), QColor(0x70, 0x80, 0x90), Qt::DashLine);
  m_candidateLevel = make_series(chart, tr("candidate level"), QColor(0x20, 0x70, 0xd0), Qt::SolidLine);
  m_currentRejected = make_series(chart, tr("current 429s"), QColor(0xe0, 0x90, 0x40), Qt::DashLine);
  m_candidateRejected = make_series(chart, tr("candidate 429s"), QColor(0xd0, 0x30, 0x30), Qt::SolidLine);
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
  setMinimumHeight(260);
}

void WhatIfChart::setSide(const tuner::WhatIfSeries* s, QLineSeries* level, QLineSeries* rejected,
                          double& max_rejected) {
  QList<QPointF> lv;
  QList<QPointF> rj;
  max_rejected = 0;
  if (s != nullptr) {
    const std::size_t n = s->rejected.size();
    lv.reserve(static_cast<qsizetype>(n));
    rj.reserve(static_cast<qsizetype>(n));
    for (std::size_t i = 0; i < n; ++i) {
      const double x = s->column_start_s(i);
      if (s->mean_level[i] >= 0) lv.append(QPointF(x, s->mean_level[i] * 100));
      rj.append(QPointF(x, s->rejected[i]));
      max_rejected = std::max(max_rejected, static_cast<double>(s->rejected[i]));
    }
  }
  // One replace() per series: QtCharts re-maps every point on each call (DESIGN.md section 8).
  level->replace(lv);
  rejected->replace(rj);
}

void WhatIfChart::setCurrent(const tuner::WhatIfSeries* series) {
  setSide(series, m_currentLevel, m_currentRejected, m_maxCurrent);
  m_spanCurrent = series == nullptr ? 0 : series->column_start_s(series->rejected.size());
  rescale();
}

void WhatIfChart::setCandidate(const tuner::WhatIfSeries* series) {
  setSide(series, m_candidateLevel, m_candidateRejected, m_maxCandidate);
  m_spanCandidate = series == nullptr ? 0 : series->column_start_s(series->rejected.size());
  rescale();
}

void WhatIfChart::rescale() {
  const double top = std::max(1.0, std::max(m_maxCurrent, m_maxCandidate));
  if (m_rejected->max() != top * 1.1) m_rejected->setRange(0, top * 1.1);
  const double span = std::max(1.0, std::max(m_spanCurrent, m_spanCandidate));
  if (m_x->max() != span) m_x->setRange(0, span);
}

void WhatIfChart::setDark(bool dark) {
  chart()->setTheme(dark ? QChart::ChartThemeDark : QChart::ChartThemeLight);
  // The theme resets pens: put the series' own back.
  const std::pair<QLineSeries*, QColor> colors[] = {
      {m_currentLevel, QColor(dark ? 0xa0b0c0 : 0x708090)}, {m_candidateLevel, QColor(dark ? 0x50a0ff : 0x2070d0)},
      {m_currentRejected, QColor(0xe0, 0x90, 0x40)}, {m_candidateRejected, QColor(dark ? 0xff5050 : 0xd03030)}};
  for (const auto& [s, c] : colors) {
    QPen pen(c);
    const bool candidate = s == m_candidateLevel || s == m_candidateRejected;
    pen.setWidthF(candidate ? 2.0 : 1.5);
    pen.setStyle(candidate ? Qt::SolidLine : Qt::DashLine);
    s->setPen(pen);
  }
}

QList<QPointF> WhatIfChart::pointsOf(const QString& name) const {
  for (const QLineSeries* s : {m_currentLevel, m_candidateLevel, m_currentRejected, m_candidateRejected}) {
    if (s->name() == name) return s->points();
  }
  return {};
}

}  // namespace limitscope::ui
