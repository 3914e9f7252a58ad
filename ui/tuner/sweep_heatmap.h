#pragma once
// A sweep as a heatmap: one cell per setting (x = capacity or window, y = refill per second or
// limit), coloured by the 429 ratio of the well-behaved keys (core/tuner/well_behaved.h; the
// runaway keys' 429s are the limiter working) on a logarithmic scale (0 green, 0.1% yellow-green,
// 1% yellow, 10% orange, 100% red). Cells on the Pareto frontier are outlined, the recommended cell
// carries a star, the candidate's cell a dashed frame. A click on a cell emits its index.

#include <QWidget>
#include <memory>

#include "core/tuner/well_behaved.h"

namespace limitscope::ui {

class SweepHeatmap : public QWidget {
  Q_OBJECT
 public:
  explicit SweepHeatmap(QWidget* parent = nullptr);

  void setSweep(std::shared_ptr<const tuner::GuidedSweep> result, const tuner::SweepSpec& spec,
                const tuner::Recommendation& recommendation);
  void clear();
  /// Frames the cell of this index as the candidate (-1: none).
  void setSelected(int index);
  bool hasSweep() const { return m_result != nullptr; }
  /// All keys' cells (null before a sweep).
  const tuner::SweepResult* result() const { return m_result ? &m_result->all : nullptr; }
  /// The grid the shown sweep ran on.
  const tuner::SweepSpec& spec() const { return m_spec; }
  const tuner::Recommendation& recommendation() const { return m_recommendation; }

  /// Where cell `index` is drawn (for tests: click its centre).
  QRect cellRect(int index) const;
  int cellAt(const QPoint& pos) const;
  /// The colour of a 429 ratio.
  static QColor ratioColor(double ratio);

  QSize sizeHint() const override { return {520, 360}; }

 signals:
  void cellClicked(int index);

 protected:
  void paintEvent(QPaintEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  bool event(QEvent* event) override;

 private:
  QRect plotRect() const;

  std::shared_ptr<const tuner::GuidedSweep> m_result;
  tuner::SweepSpec m_spec;
  tuner::Recommendation m_recommendation;
  std::vector<bool> m_onFrontier;
  int m_selected = -1;
};

}  // namespace limitscope::ui
