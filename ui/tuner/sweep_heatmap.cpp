#include "ui/tuner/sweep_heatmap.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <cmath>

#include "core/tuner/number_text.h"
#include "ui/qt_text.h"

namespace limitscope::ui {

namespace {

constexpr int kLeft = 64;    // room for the y labels
constexpr int kBottom = 40;  // x labels and title
constexpr int kTop = 24;     // legend line
constexpr int kRight = 12;

// As the advice prints numbers: "11,200", "51.3" (never "1.12e+04").
QString axis_value(double v) {
  return qs(tuner::number_text(v));
}

}  // namespace

SweepHeatmap::SweepHeatmap(QWidget* parent) : QWidget(parent) {
  setMinimumSize(280, 150);  // the Tuner tab fits 1280×720 with the advice beside it
  setMouseTracking(false);
}

void SweepHeatmap::setSweep(std::shared_ptr<const tuner::GuidedSweep> result,
                            const tuner::SweepSpec& spec,
                            const tuner::Recommendation& recommendation) {
  m_result = std::move(result);
  m_spec = spec;
  m_recommendation = recommendation;
  m_onFrontier.assign(m_result ? m_result->all.cells.size() : 0, false);
  for (const std::size_t i : m_recommendation.frontier) m_onFrontier[i] = true;
  update();
}

void SweepHeatmap::clear() {
  m_result.reset();
  m_onFrontier.clear();
  m_selected = -1;
  update();
}

void SweepHeatmap::setSelected(int index) {
  m_selected = index;
  update();
}

QColor SweepHeatmap::ratioColor(double ratio) {
  // 0 -> 0, 0.1% -> 0.26, 1% -> 0.5, 10% -> 0.75, 100% -> 1: the decades operators argue about.
  const double t = std::clamp(std::log10(1 + std::max(0.0, ratio) * 1e4) / 4, 0.0, 1.0);
  return QColor::fromHsvF(static_cast<float>((1 - t) * 120.0 / 360.0), 0.75f, 0.85f);
}

QRect SweepHeatmap::plotRect() const {
  return QRect(kLeft, kTop, std::max(10, width() - kLeft - kRight),
               std::max(10, height() - kTop - kBottom));
}

QRect SweepHeatmap::cellRect(int index) const {
  if (!m_result || index < 0 || index >= static_cast<int>(m_result->all.cells.size())) return {};
  const int nx = m_spec.x.steps;
  const int ny = m_spec.y.steps;
  const int i = index / ny;  // x-major
  const int j = index % ny;
  const QRect p = plotRect();
  const int x0 = p.left() + p.width() * i / nx;
  const int x1 = p.left() + p.width() * (i + 1) / nx;
  // y grows upwards
  const int y1 = p.bottom() + 1 - p.height() * j / ny;
  const int y0 = p.bottom() + 1 - p.height() * (j + 1) / ny;
  return QRect(QPoint(x0, y0), QPoint(x1 - 1, y1 - 1));
}

int SweepHeatmap::cellAt(const QPoint& pos) const {
  if (!m_result) return -1;
  const QRect p = plotRect();
  if (!p.contains(pos)) return -1;
  const int i = std::min(m_spec.x.steps - 1, (pos.x() - p.left()) * m_spec.x.steps / p.width());
  const int j = std::min(m_spec.y.steps - 1, (p.bottom() - pos.y()) * m_spec.y.steps / p.height());
  return i * m_spec.y.steps + j;
}

void SweepHeatmap::paintEvent(QPaintEvent*) {
  QPainter painter(this);
  const QPalette pal = palette();
  painter.fillRect(rect(), pal.base());
  painter.setPen(pal.color(QPalette::Text));
  if (!m_result) {
    painter.drawText(rect(), Qt::AlignCenter | Qt::TextWordWrap,
                     tr("Run a sweep to see every setting's 429 ratio on the trace."));
    return;
  }
  const bool window = is_window_algorithm(m_spec.base.algorithm);
  const QString xName = window ? tr("window (s)") : tr("capacity");
  const QString yName = window ? tr("limit") : tr("refill (/s)");
  // The legend in full where it fits, else a short form (beside the advice the map is narrow).
  QString legend =
      tr("colour: 429 ratio of well-behaved keys (green 0, yellow 1%, red 100%)   "
         "outline: Pareto frontier   ★ recommended");
  if (painter.fontMetrics().horizontalAdvance(legend) > width())
    legend = tr("well-behaved 429s: green 0, yellow 1%, red 100%  □ frontier  ★ best");
  painter.drawText(QRect(0, 2, width(), kTop - 4), Qt::AlignCenter,
                   painter.fontMetrics().elidedText(legend, Qt::ElideRight, width()));
  const auto& cells = m_result->all.cells;
  const auto& good = m_result->well_behaved.cells;
  for (int c = 0; c < static_cast<int>(cells.size()); ++c) {
    const QRect r = cellRect(c);
    painter.fillRect(r, ratioColor(good[static_cast<std::size_t>(c)].total.ratio_429()));
  }
  // Frontier outlines on top of every fill, so neighbours do not paint over them.
  painter.setPen(QPen(pal.color(QPalette::Text), 2));
  painter.setBrush(Qt::NoBrush);
  for (int c = 0; c < static_cast<int>(cells.size()); ++c) {
    if (m_onFrontier[static_cast<std::size_t>(c)])
      painter.drawRect(cellRect(c).adjusted(1, 1, -1, -1));
  }
  if (m_selected >= 0) {
    painter.setPen(QPen(pal.color(QPalette::Highlight), 3, Qt::DashLine));
    painter.drawRect(cellRect(m_selected).adjusted(1, 1, -1, -1));
  }
  if (m_recommendation.best) {
    const QRect r = cellRect(static_cast<int>(*m_recommendation.best));
    QFont f = painter.font();
    f.setPixelSize(std::clamp(std::min(r.width(), r.height()) - 2, 8, 28));
    painter.setFont(f);
    painter.setPen(Qt::black);
    painter.drawText(r, Qt::AlignCenter, QStringLiteral("★"));
    painter.setFont(font());
  }
  // Axis labels: first, middle and last value of each axis.
  painter.setPen(pal.color(QPalette::Text));
  const auto xs = m_spec.x.values();
  const auto ys = m_spec.y.values();
  const QRect p = plotRect();
  for (const std::size_t i : {std::size_t{0}, xs.size() / 2, xs.size() - 1}) {
    const QRect r = cellRect(static_cast<int>(i * ys.size()));
    painter.drawText(QRect(r.center().x() - 40, p.bottom() + 2, 80, 16), Qt::AlignCenter,
                     axis_value(xs[i]));
  }
  for (const std::size_t j : {std::size_t{0}, ys.size() / 2, ys.size() - 1}) {
    const QRect r = cellRect(static_cast<int>(j));
    painter.drawText(QRect(0, r.center().y() - 8, kLeft - 4, 16), Qt::AlignRight | Qt::AlignVCenter,
                     axis_value(ys[j]));
  }
  painter.drawText(QRect(p.left(), p.bottom() + 18, p.width(), 18), Qt::AlignCenter, xName);
  painter.save();
  painter.translate(12, p.center().y());
  painter.rotate(-90);
  painter.drawText(QRect(-p.height() / 2, -10, p.height(), 20), Qt::AlignCenter, yName);
  painter.restore();
}

void SweepHeatmap::mousePressEvent(QMouseEvent* event) {
  const int c = cellAt(event->position().toPoint());
  if (c >= 0 && event->button() == Qt::LeftButton) emit cellClicked(c);
}

bool SweepHeatmap::event(QEvent* e) {
  if (e->type() == QEvent::ToolTip && m_result) {
    auto* help = static_cast<QHelpEvent*>(e);
    const int c = cellAt(help->pos());
    if (c >= 0) {
      const auto& cell = m_result->all.cells[static_cast<std::size_t>(c)];
      const auto& good = m_result->well_behaved.cells[static_cast<std::size_t>(c)];
      QString text = tr("%1\n429s: %2 of %3 (%4%)\nwell-behaved keys: %7% 429s\nworst key: %5% "
                        "429s\nadmitted cost: %6")
                         .arg(qs(cell.params.describe()))
                         .arg(cell.total.rejected)
                         .arg(cell.total.admitted + cell.total.rejected)
                         .arg(cell.total.ratio_429() * 100, 0, 'f', 3)
                         .arg(cell.worst_key_429 * 100, 0, 'f', 2)
                         .arg(cell.total.admitted_cost, 0, 'f', 0)
                         .arg(good.total.ratio_429() * 100, 0, 'f', 3);
      if (m_result->all.priced) {
        text += tr("\nspend: $%L1 admitted; worst key $%L2 in one minute")
                    .arg(cell.total.admitted_spend, 0, 'f', 2)
                    .arg(cell.worst_key_spend_per_min, 0, 'f', 2);
      }
      QToolTip::showText(help->globalPos(), text, this);
    } else {
      QToolTip::hideText();
    }
    return true;
  }
  return QWidget::event(e);
}

}  // namespace limitscope::ui
