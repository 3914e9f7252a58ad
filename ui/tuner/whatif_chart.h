#pragma once
// The what-if chart: over the trace's time, the candidate setting against the current one —
// the mean level requests found (left axis, %) and the 429s per column (right axis). One
// point per column of core/tuner/whatif.h's series (the tab asks for about one per pixel
// column); setting one side replaces only that side's two series. The spend view shows instead
// the highest key's daily quota burn (left, %) and the dollars admitted per column (right).

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
  enum class View { levels, spend };

  explicit WhatIfChart(QWidget* parent = nullptr);

  /// Levels and 429s, or quota burn and spend (empty lines for a series without prices).
  void setView(View view);
  View view() const { return m_view; }

  /// The current setting's series (null: none, e.g. no current setting).
  void setCurrent(const tuner::WhatIfSeries* series);
  void setCandidate(const tuner::WhatIfSeries* series);
  void setDark(bool dark);

  /// Points as drawn, by series name: "current level", "candidate level", "current 429s",
  /// "candidate 429s"; in the spend view "current quota burn", "candidate quota burn",
  /// "current $", "candidate $" (for tests).
  QList<QPointF> pointsOf(const QString& name) const;

 private:
  void setSide(const tuner::WhatIfSeries* series, QLineSeries* level, QLineSeries* rejected,
               double& max_left, double& max_right);
  void nameSeries();
  void rescale();

  QLineSeries* m_currentLevel = nullptr;
  QLineSeries* m_candidateLevel = nullptr;
  QLineSeries* m_currentRejected = nullptr;
  QLineSeries* m_candidateRejected = nullptr;
  QValueAxis* m_x = nullptr;
  QValueAxis* m_level = nullptr;
  QValueAxis* m_rejected = nullptr;
  View m_view = View::levels;
  const tuner::WhatIfSeries* m_current = nullptr;  // as last set; owned by the tab
  const tuner::WhatIfSeries* m_candidate = nullptr;
  double m_maxCurrent = 0;  // right axis
  double m_maxCandidate = 0;
  double m_leftCurrent = 0;  // left axis (quota burn in the spend view)
  double m_leftCandidate = 0;
  double m_spanCurrent = 0;
  double m_spanCandidate = 0;
};

}  // namespace limitscope::ui
