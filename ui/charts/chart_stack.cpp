#include "ui/charts/chart_stack.h"

#include <QLabel>
#include <QSplitter>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <limits>

#include "ui/charts/time_chart.h"

namespace limitscope::ui {

ChartStack::ChartStack(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  m_splitter = new QSplitter(Qt::Vertical, this);
  m_splitter->setObjectName(QStringLiteral("charts"));
  m_splitter->setChildrenCollapsible(false);
  layout->addWidget(m_splitter);
  for (int i = 0; i < kCharts; ++i) {
    auto* slot = new QWidget(m_splitter);
    auto* slotLayout = new QVBoxLayout(slot);
    slotLayout->setContentsMargins(0, 0, 0, 0);
    slotLayout->setSpacing(0);
    auto* note = new QLabel(slot);
    note->setObjectName(QStringLiteral("chartNote%1").arg(i));
    note->setContentsMargins(8, 3, 8, 3);
    note->setTextFormat(Qt::PlainText);
    note->hide();
    // Which rules a chart shades comes with its data (ChartData::rules, from the expressions).
    auto* c = new TimeChart({}, slot);
    slotLayout->addWidget(note);
    slotLayout->addWidget(c, 1);
    m_splitter->addWidget(slot);
    m_slots[static_cast<std::size_t>(i)] = slot;
    m_charts[static_cast<std::size_t>(i)] = c;
    m_notes[static_cast<std::size_t>(i)] = note;
    connect(c, &TimeChart::rangeRequested, this, &ChartStack::rangeRequested);
    connect(c, &TimeChart::liveRequested, this, &ChartStack::liveRequested);
  }
  // Synchronised crosshair: moving over one chart shows the same instant on all four.
  for (TimeChart* from : m_charts) {
    for (TimeChart* to : m_charts) {
      if (from != to) connect(from, &TimeChart::crosshairMoved, to, &TimeChart::setCrosshair);
    }
  }
  // A runaway's 1,500/s and a tier's 0.5/s threshold on one axis: the 429 and quota charts
  // offer a log scale.
  m_charts[2]->setLogScaleToggle(true);
  m_charts[3]->setLogScaleToggle(true);
}

int ChartStack::legendRows() const {
  int shown = 0, folded = 0;
  for (int k = 0; k < kCharts; ++k) {
    if (isCollapsed(k)) {
      folded += m_notes[static_cast<std::size_t>(k)]->sizeHint().height();
    } else {
      ++shown;
    }
  }
  if (shown == 0) return m_charts[0]->legendRowsAt(height() / kCharts);
  const int handles = (kCharts - 1) * m_splitter->handleWidth();
  return m_charts[0]->legendRowsAt((height() - folded - handles) / shown);
}

bool ChartStack::isCollapsed(int i) const {
  return m_notes.at(static_cast<std::size_t>(i))
      ->isVisibleTo(m_slots.at(static_cast<std::size_t>(i)));
}

void ChartStack::setCollapsed(int i, bool collapsed) {
  const auto at = static_cast<std::size_t>(i);
  if (isCollapsed(i) == collapsed) return;
  m_charts[at]->setVisible(!collapsed);
  m_notes[at]->setVisible(collapsed);
  // The splitter gives a slot no more than its maximum: a note keeps one line, and the space
  // goes to the charts that have something to show.
  const int note = m_notes[at]->sizeHint().height();
  m_slots[at]->setMaximumHeight(collapsed ? note : QWIDGETSIZE_MAX);
  // A splitter keeps a slot's last size: an unfolded chart would stay at its minimum while
  // the others keep the room. The charts shown share the height evenly again.
  QList<int> sizes = m_splitter->sizes();
  int total = 0, shown = 0;
  for (int k = 0; k < kCharts; ++k) {
    total += sizes[k];
    if (!isCollapsed(k)) ++shown;
  }
  for (int k = 0; k < kCharts; ++k) {
    if (isCollapsed(k)) total -= m_notes[static_cast<std::size_t>(k)]->sizeHint().height();
  }
  for (int k = 0; k < kCharts; ++k) {
    sizes[k] = isCollapsed(k) ? m_notes[static_cast<std::size_t>(k)]->sizeHint().height()
                              : std::max(1, total / std::max(1, shown));
  }
  m_splitter->setSizes(sizes);
  emit foldsChanged();
}

void ChartStack::setData(const std::vector<ChartData>& charts,
                         const std::vector<AlertInterval>& intervals, qint64 start_ms,
                         qint64 end_ms) {
  for (std::size_t i = 0; i < m_charts.size() && i < charts.size(); ++i) {
    const ChartData& d = charts[i];
    m_charts[i]->setData(d, intervals, start_ms, end_ms);
    const bool nothing = d.lines.empty() && !d.empty_note.empty();
    if (nothing)
      m_notes[i]->setText(QString::fromStdString(d.title) + QStringLiteral(": ") +
                          QString::fromStdString(d.empty_note));
    setCollapsed(static_cast<int>(i), nothing);
  }
  alignCharts();
  for (TimeChart* c : m_charts) c->settleLayout();
}

void ChartStack::setDark(bool dark) {
  for (TimeChart* c : m_charts) c->setDark(dark);
}

void ChartStack::alignCharts() {
  // Y-axis labels differ in width ("1" vs "2000"): pad each chart so the plot areas share the
  // widest one's left edge, and one instant sits at the same x in all of them. The legends
  // have one fixed width, so the right edges differ only while a chart has a second axis (a
  // shadow config's, on the right): the others are padded to its edge. Layouts settle in
  // posted events, so this converges on the next update at the latest.
  double left = 0;
  double right = std::numeric_limits<double>::infinity();
  for (const TimeChart* c : m_charts) {
    if (!c->isVisibleTo(this)) continue;
    left = std::max(left, c->naturalPlotLeft());
    right = std::min(right, c->naturalPlotRight());
  }
  for (TimeChart* c : m_charts) {
    c->setLeftPad(static_cast<int>(std::lround(std::max(0.0, left - c->naturalPlotLeft()))));
    const double pad = std::isfinite(right) ? c->naturalPlotRight() - right : 0.0;
    c->setRightPad(static_cast<int>(std::lround(std::max(0.0, pad))));
  }
}

}  // namespace limitscope::ui
