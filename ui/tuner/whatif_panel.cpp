#include "ui/tuner/whatif_panel.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QVBoxLayout>
#include <algorithm>

#include "ui/qt_text.h"
#include "ui/tuner/whatif_chart.h"

namespace limitscope::ui {

WhatIfPanel::WhatIfPanel(tuner::TunerSession& session, TunerWorker* whatIf, QWidget* parent)
    : QWidget(parent), m_session(session), m_whatIf(whatIf) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  m_chart = new WhatIfChart(this);
  m_summary = new QLabel(tr("Load a trace to see what the candidate would have done."), this);
  m_summary->setWordWrap(true);
  auto* viewRow = new QHBoxLayout;
  m_chartView = new QComboBox(this);
  m_chartView->addItems({tr("Levels and 429s"), tr("Spend and daily quota burn")});
  m_chartView->setToolTip(tr("Spend needs token counts (or tokens per request) and model prices"));
  connect(m_chartView, &QComboBox::currentIndexChanged, this, [this](int index) {
    m_chart->setView(index == 1 ? WhatIfChart::View::spend : WhatIfChart::View::levels);
  });
  viewRow->addWidget(new QLabel(tr("Show"), this));
  viewRow->addWidget(m_chartView);
  viewRow->addStretch(1);
  layout->addLayout(viewRow);
  layout->addWidget(m_chart, 1);
  layout->addWidget(m_summary);
}

void WhatIfPanel::setChartView(int index) {
  m_chartView->setCurrentIndex(index);
}

void WhatIfPanel::requestWhatIf(bool current) {
  const auto side = current ? tuner::TunerSession::current : tuner::TunerSession::candidate;
  const tuner::SettingForm& setting = m_session.setting(side);
  if (!m_session.trace()) return;
  if (!setting.valid()) {
    // The field says why; the chart drops that side rather than show a stale line.
    m_session.drop_whatif(side);
    current ? m_chart->setCurrent(nullptr) : m_chart->setCandidate(nullptr);
    m_summary->setText(qs(tuner::setting_problem_text(current, setting.problems())));
    return;
  }
  const std::optional<int> generation = m_session.request_whatif(side);
  if (!generation) return;  // coalesced: computed when the reply in flight comes back
  // About one column per pixel of the plot (decimation in core, not in QtCharts).
  const int columns = std::clamp(m_chart->width() - 140, 100, 1000);
  QMetaObject::invokeMethod(
      m_whatIf, [w = m_whatIf, t = m_session.trace(), p = setting.params(), columns, current,
                 g = *generation, pr = m_session.pricing()] {
        if (w) w->computeWhatIf(t, p, columns, current, g, pr);
      });
}

void WhatIfPanel::onWhatIf(const WhatIfResult& r) {
  tuner::TunerSession& session = m_session;
  const auto side = r.current ? tuner::TunerSession::current : tuner::TunerSession::candidate;
  const tuner::SharedSeries series = r.series.ok() ? *r.series : nullptr;
  const bool again = session.finish_whatif(side, r.generation, series);
  if (series && session.series(side) == series)  // taken: not stale
    r.current ? m_chart->setCurrent(series.get()) : m_chart->setCandidate(series.get());
  if (again) {
    requestWhatIf(r.current);
    return;
  }
  if (!r.series.ok()) m_summary->setText(r.series.error().message);
  const auto& cur = session.series(tuner::TunerSession::current);
  const auto& cand = session.series(tuner::TunerSession::candidate);
  if (cur && cand)
    m_summary->setText(
        qs(tuner::whatif_summary(session.trace().get(), *cur, *cand, m_session.key_names())));
  if (session.whatif_idle()) emit whatIfUpdated();
}

QString WhatIfPanel::spendText() const {
  const tuner::TunerSession& session = m_session;
  return qs(tuner::spend_text(
      session.trace().get(), session.series(tuner::TunerSession::current).get(),
      session.series(tuner::TunerSession::candidate).get(), m_session.key_names()));
}

}  // namespace limitscope::ui
