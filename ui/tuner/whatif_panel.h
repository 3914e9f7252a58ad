#pragma once
// The Tuner's what-if panel: the chart of the current and the candidate setting on the loaded
// trace (levels and 429s, or spend and daily quota burn), and the summary under it. It binds
// the two settings to the session's what-if series: a changed setting is computed on the
// what-if worker (one computation per side at a time, newer settings coalesced and late
// replies dropped by the session), an invalid one drops its side with the field's reason.

#include <QPointer>
#include <QWidget>

#include "core/tuner/tuner_session.h"
#include "ui/tuner/tuner_worker.h"

QT_BEGIN_NAMESPACE
class QComboBox;
class QLabel;
QT_END_NAMESPACE

namespace limitscope::ui {

class WhatIfChart;

class WhatIfPanel : public QWidget {
  Q_OBJECT
 public:
  /// @param session the two settings, the trace, the what-if series and their requests in
  ///        flight, the prices
  /// @param whatIf the worker the what-ifs run on
  WhatIfPanel(tuner::TunerSession& session, TunerWorker* whatIf, QWidget* parent = nullptr);

  /// The current (true) or the candidate setting changed: its series is computed again.
  void requestWhatIf(bool current);
  /// A what-if reply (wired by the tab).
  void onWhatIf(const WhatIfResult& result);
  /// Levels and 429s (0) or spend and quota burn (1).
  void setChartView(int index);
  /// The spend line under the chart ("" until both settings are computed).
  QString spendText() const;
  WhatIfChart* chart() const { return m_chart; }

 signals:
  /// The chart shows the latest settings.
  void whatIfUpdated();

 private:
  tuner::TunerSession& m_session;
  QPointer<TunerWorker> m_whatIf;
  WhatIfChart* m_chart = nullptr;
  QLabel* m_summary = nullptr;
  QComboBox* m_chartView = nullptr;
};

}  // namespace limitscope::ui
