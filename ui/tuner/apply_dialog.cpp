#include "ui/tuner/apply_dialog.h"

#include <QDialogButtonBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QVBoxLayout>

#include "ui/qt_text.h"

namespace limitscope::ui {

namespace {

QString html(const std::string& s) {
  return qs(s).toHtmlEscaped();
}

}  // namespace

ApplyDialog::ApplyDialog(const tuner::ChangePreview& p, const QString& target, const QString& who,
                         const QString& key_shown, QWidget* parent)
    : QDialog(parent), m_refused(!p.check.ok()) {
  setWindowTitle(tr("Apply to the live rule"));
  auto* layout = new QVBoxLayout(this);
  QString text = tr("<b>%1</b><br>").arg(target.toHtmlEscaped());
  text += tr("<table cellspacing=4>"
             "<tr><td>old</td><td><tt>%1</tt></td></tr>"
             "<tr><td>new</td><td><tt>%2</tt></td></tr>"
             "<tr><td>scope</td><td>%3</td></tr>"
             "<tr><td>write</td><td>compare-and-set on version %4; audited as %5</td></tr>")
              .arg(html(p.old_text), html(p.new_text), html(p.scope))
              .arg(p.expect_version)
              .arg(who.toHtmlEscaped());
  if (p.current && p.candidate) {
    const QString whose =
        p.key.empty() ? tr("429s on the loaded trace")
                      : tr("429s of key %1 on the loaded trace")
                            .arg((key_shown.isEmpty() ? qs(p.key) : key_shown).toHtmlEscaped());
    text += tr("<tr><td>predicted</td><td>%3: current %1 → candidate %2</td></tr>")
                .arg(html(tuner::describe_429s(*p.current)),
                     html(tuner::describe_429s(*p.candidate)), whose);
  } else if (!p.key.empty()) {
    text +=
        tr("<tr><td>predicted</td><td>the key has no requests in the loaded trace (or no "
           "trace is loaded): no prediction</td></tr>");
  } else {
    text += tr("<tr><td>predicted</td><td>no trace loaded: no prediction</td></tr>");
  }
  text += QStringLiteral("</table>");
  for (const auto& note : p.notes) text += tr("<p>Note: %1</p>").arg(html(note));
  if (!p.check.ok())
    text += tr("<p><font color=#d03030>Refused: %1</font></p>").arg(html(p.check.error()));
  m_diff = new QLabel(text, this);
  m_diff->setWordWrap(true);
  m_diff->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(m_diff);
  layout->addWidget(new QLabel(tr("Reason (recorded in the audit stream):"), this));
  m_reason = new QLineEdit(this);
  m_reason->setPlaceholderText(tr("e.g. replayed last hour: 429s of pro keys 3% -> 0.05%"));
  layout->addWidget(m_reason);
  m_buttons = new QDialogButtonBox(QDialogButtonBox::Cancel, this);
  m_buttons->addButton(tr("Apply"), QDialogButtonBox::AcceptRole);
  layout->addWidget(m_buttons);
  connect(m_buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  connect(m_reason, &QLineEdit::textChanged, this, &ApplyDialog::updateButtons);
  updateButtons();
  setMinimumWidth(560);
}

QString ApplyDialog::reason() const {
  return m_reason->text().trimmed();
}
void ApplyDialog::setReason(const QString& reason) {
  m_reason->setText(reason);
}
QString ApplyDialog::diffText() const {
  return m_diff->text();
}
bool ApplyDialog::canApply() const {
  return !m_refused && !reason().isEmpty();
}

void ApplyDialog::updateButtons() {
  for (QAbstractButton* b : m_buttons->buttons()) {
    if (m_buttons->buttonRole(b) == QDialogButtonBox::AcceptRole) b->setEnabled(canApply());
  }
}

}  // namespace limitscope::ui
