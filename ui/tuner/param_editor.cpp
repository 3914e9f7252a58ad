#include "ui/tuner/param_editor.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QGridLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QSlider>
#include <cmath>
#include <cstdint>
#include <iterator>

#include "ui/qt_text.h"
#include "ui/tuner/value_spin_box.h"

namespace limitscope::ui {

namespace {

constexpr int kSliderSteps = 1000;
// Slider ranges (the spin box takes any value): decades an operator tunes over.
constexpr double kLow = 0.01;
constexpr double kHigh = 1e6;

struct RateUnit {
  const char* label;
  std::int64_t ns;
};
constexpr RateUnit kRateUnits[] = {{"/ s", 1'000'000'000LL},
                                   {"/ min", 60'000'000'000LL},
                                   {"/ h", 3'600'000'000'000LL},
                                   {"/ day", 86'400'000'000'000LL}};

// The unit a rate reads best in: its own period when it is one of them, else the shortest in
// which at least one cost unit arrives.
int unit_for(const Rate& r) {
  constexpr int n = static_cast<int>(std::size(kRateUnits));
  for (int u = 0; u < n; ++u) {
    if (r.period.count() == kRateUnits[u].ns) return u;
  }
  for (int u = 0; u < n; ++u) {
    if (r.per_second() * static_cast<double>(kRateUnits[u].ns) / 1e9 >= 1) return u;
  }
  return n - 1;
}

const Algorithm kAlgorithms[] = {Algorithm::token_bucket,    Algorithm::gcra,
                                 Algorithm::leaky_bucket,    Algorithm::sliding_log,
                                 Algorithm::sliding_counter, Algorithm::fixed_window};

int to_slider(double v) {
  if (!(v > kLow)) return 0;
  const double f = std::log(v / kLow) / std::log(kHigh / kLow);
  return static_cast<int>(std::lround(std::clamp(f, 0.0, 1.0) * kSliderSteps));
}

double from_slider(int pos) {
  const double v = kLow * std::pow(kHigh / kLow, static_cast<double>(pos) / kSliderSteps);
  // Three significant digits: a slider is for coarse moves.
  const double scale = std::pow(10.0, std::floor(std::log10(v)) - 2);
  return std::round(v / scale) * scale;
}

}  // namespace

ParamEditor::ParamEditor(const QString& title, QWidget* parent) : QGroupBox(title, parent) {
  auto* grid = new QGridLayout(this);
  m_algorithm = new QComboBox(this);
  for (const Algorithm a : kAlgorithms) {
    m_algorithm->addItem(
        QString::fromUtf8(to_string(a).data(), static_cast<int>(to_string(a).size())),
        static_cast<int>(a));
  }
  grid->addWidget(new QLabel(tr("Algorithm"), this), 0, 0);
  grid->addWidget(m_algorithm, 0, 1, 1, 2);
  for (int f = 0; f < 2; ++f) {
    m_name[f] = new QLabel(this);
    m_slider[f] = new QSlider(Qt::Horizontal, this);
    m_slider[f]->setRange(0, kSliderSteps);
    // Six decimals kept, as many shown as the value has: a refill of 0.0005/s stays itself.
    m_spin[f] = new ValueSpinBox(6, this);
    // Wide open on purpose: zero and negative values are shown as problems, not clamped away.
    m_spin[f]->setRange(-1e12, 1e12);
    m_spin[f]->setMinimumWidth(110);
    m_spin[f]->setKeyboardTracking(false);
    m_problem[f] = new QLabel(this);
    m_problem[f]->setWordWrap(true);
    m_problem[f]->setStyleSheet(QStringLiteral("color: #d03030;"));
    m_problem[f]->hide();
    grid->addWidget(m_name[f], 1 + 2 * f, 0);
    grid->addWidget(m_slider[f], 1 + 2 * f, 1);
    grid->addWidget(m_spin[f], 1 + 2 * f, 2);
    grid->addWidget(m_problem[f], 2 + 2 * f, 0, 1, 3);
    connect(m_spin[f], &QDoubleSpinBox::valueChanged, this, [this, f] { onSpin(f); });
    connect(m_slider[f], &QSlider::valueChanged, this, [this, f] { onSlider(f); });
  }
  m_rateUnit = new QComboBox(this);
  for (const RateUnit& u : kRateUnits) m_rateUnit->addItem(QString::fromUtf8(u.label));
  grid->addWidget(m_rateUnit, 3, 3);
  // The unit is part of the value ("100 per minute" → "100 per hour"): the number stays, so
  // nothing is rounded by a conversion to the spin box's decimals.
  m_rateUnit->setToolTip(
      tr("Per second, minute, hour or day: the number stays when the unit changes"));
  connect(m_rateUnit, &QComboBox::currentIndexChanged, this, [this](int u) {
    if (u < 0 || u == m_unitShown) return;
    m_unitShown = u;
    showProblems();
    if (!m_quiet) emit changed();
  });
  m_note = new QLabel(this);
  m_note->setWordWrap(true);
  grid->addWidget(m_note, 5, 0, 1, 3);
  grid->setColumnStretch(1, 1);
  connect(m_algorithm, &QComboBox::currentIndexChanged, this, [this] {
    relabel();
    showProblems();
    if (!m_quiet) emit changed();
  });
  LimitParams initial;
  initial.capacity = 100;
  initial.refill = Rate::per_sec(10);
  setParams(initial);
}

Algorithm ParamEditor::algorithm() const {
  return static_cast<Algorithm>(m_algorithm->currentData().toInt());
}

void ParamEditor::relabel() {
  const Algorithm a = algorithm();
  if (is_window_algorithm(a)) {
    m_name[0]->setText(tr("Window (s)"));
    m_name[1]->setText(tr("Limit (cost / window)"));
  } else if (a == Algorithm::leaky_bucket) {
    m_name[0]->setText(tr("Queue depth"));
    m_name[1]->setText(tr("Drain (cost)"));
  } else {
    m_name[0]->setText(tr("Capacity (cost)"));
    m_name[1]->setText(tr("Refill (cost)"));
  }
  m_rateUnit->setVisible(!is_window_algorithm(a));
  m_note->setText(a == Algorithm::fixed_window
                      ? tr("A fixed window admits up to twice the limit across a window boundary.")
                      : QString());
  m_note->setVisible(!m_note->text().isEmpty());
}

LimitParams ParamEditor::params() const {
  LimitParams p;
  p.algorithm = algorithm();
  if (is_window_algorithm(p.algorithm)) {
    const double w = m_spin[0]->value();
    p.window = Nanos{std::isfinite(w) ? static_cast<std::int64_t>(std::llround(w * 1e9)) : 0};
    p.limit = m_spin[1]->value();
  } else {
    p.capacity = m_spin[0]->value();
    p.refill = Rate{m_spin[1]->value(), Nanos{kRateUnits[m_unitShown].ns}};
  }
  return p;
}

void ParamEditor::setParams(const LimitParams& p) {
  m_quiet = true;
  const int index = m_algorithm->findData(static_cast<int>(p.algorithm));
  m_algorithm->setCurrentIndex(std::max(0, index));
  const bool window = is_window_algorithm(p.algorithm);
  if (!window) {
    m_unitShown = unit_for(p.refill);
    const QSignalBlocker b(m_rateUnit);
    m_rateUnit->setCurrentIndex(m_unitShown);
  }
  const RateUnit& unit = kRateUnits[m_unitShown];
  const double rate = p.refill.period.count() == unit.ns
                          ? p.refill.amount  // as written: no conversion, no rounding
                          : p.refill.per_second() * static_cast<double>(unit.ns) / 1e9;
  const double values[2] = {window ? static_cast<double>(p.window.count()) / 1e9 : p.capacity,
                            window ? p.limit : rate};
  for (int f = 0; f < 2; ++f) {
    const QSignalBlocker b1(m_spin[f]);
    const QSignalBlocker b2(m_slider[f]);
    m_spin[f]->setValue(values[f]);
    m_slider[f]->setValue(to_slider(values[f]));
  }
  relabel();
  showProblems();
  m_quiet = false;
}

void ParamEditor::setLargestCost(double cost) {
  m_largestCost = cost;
  showProblems();
}

void ParamEditor::setEditable(bool editable) {
  m_algorithm->setEnabled(editable);
  m_rateUnit->setEnabled(editable);
  for (int f = 0; f < 2; ++f) {
    m_slider[f]->setEnabled(editable);
    m_spin[f]->setReadOnly(!editable);
  }
}

std::vector<tuner::FieldProblem> ParamEditor::problems() const {
  return tuner::check_candidate(params(), m_largestCost);
}

QString ParamEditor::problemText(int field) const {
  return m_problem[field]->isVisibleTo(this) ? m_problem[field]->text() : QString();
}

void ParamEditor::showProblems() {
  const bool window = is_window_algorithm(algorithm());
  const char* fields[2] = {window ? "window" : "capacity", window ? "limit" : "refill"};
  QString text[2];
  for (const auto& p : problems()) {
    const int f = p.field == fields[0] ? 0 : 1;
    if (text[f].isEmpty()) text[f] = qs(p.message);
  }
  for (int f = 0; f < 2; ++f) {
    m_problem[f]->setText(text[f]);
    m_problem[f]->setVisible(!text[f].isEmpty());
  }
}

void ParamEditor::onSpin(int field) {
  {
    const QSignalBlocker b(m_slider[field]);
    m_slider[field]->setValue(to_slider(m_spin[field]->value()));
  }
  showProblems();
  if (!m_quiet) emit changed();
}

void ParamEditor::onSlider(int field) {
  {
    const QSignalBlocker b(m_spin[field]);
    m_spin[field]->setValue(from_slider(m_slider[field]->value()));
  }
  showProblems();
  if (!m_quiet) emit changed();
}

}  // namespace limitscope::ui
