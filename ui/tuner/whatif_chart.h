#pragma once
// The what-if chart: over the trace's time, the candidate setting against the current one —
// the mean level requests found (left axis, %) and the 429s per column (right axis). One
// point per column of core/tuner/whatif.h's series (the tab asks for about one per pixel
// column); setting one side replaces only that side's two series.

#include <QChartView>
#include <QList>
#include <QPointF>

#include "core/tuner/whatif.h"

QT_BEGIN_NAMESPACE
class QLineSeries;
class QValueAxis;
QT_END_NAMESPACE

namespace limitscope::ui {

class WhatIfChart : public QChartView {
  Q_OBJECT
 public:
  explicit WhatIfChart(QWidget* parent = nullptr);

  /// The current setting's series (null: none, e.g. no current setting).
  void setCurrent(const tuner::WhatIfSeries* series);
  void setCandidate(const tuner::WhatIfSeries* series);
  void setDark(bool dark);

  /// Points as drawn, by series name: "current level", "candidate level", "current 429s",
  /// "candidate 429s" (for tests).
  QList<QPointF> pointsOf(const QString& name) const;

 private:
  void setSide(const tuner::WhatIfSeries* series, QLineSeries* level, QLineSeries* rejected,
               double& max_rejected);
  void rescale();

  QLineSeries* m_currentLevel = nullptr;
  QLineSeries* m_candidateLevel = nullptr;
  QLineSeries* m_currentRejected = nullptr;
  QLineSeries* m_candidateRejected = nullptr;
  QValueAxis* m_x = nullptr;
  QValueAxis* m_level = nullptr;
  QValueAxis* m_rejected = nullptr;
  double m_maxCurrent = 0;
  double m_maxCandidate = 0;
  double m_spanCurrent = 0;
  double m_spanCandidate = 0;
};

}  // namespace limitscope::ui
