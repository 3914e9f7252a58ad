#include "ui/tuner/live_writer.h"

#include <QHBoxLayout>
#include <QPushButton>

#include "ui/qt_text.h"

namespace limitscope::ui {

LiveWriter::LiveWriter(const Parts& parts, QWidget* parent)
    : QWidget(parent), m_session(parts.session), m_redis(parts.redis), m_rule(parts.rule) {
  new QHBoxLayout(this);
  layout()->setContentsMargins(0, 0, 0, 0);
}

QPushButton* LiveWriter::addButton(const QString& text, bool tuner::LiveButtons::*enabled_by,
                                   std::function<void()> action) {
  auto* button = new QPushButton(text, this);
  layout()->addWidget(button);
  connect(button, &QPushButton::clicked, this, [action = std::move(action)] { action(); });
  m_buttons.emplace_back(button, enabled_by);
  return button;
}

void LiveWriter::setButtons(const tuner::LiveButtons& buttons) {
  for (const auto& [button, enabled_by] : m_buttons) button->setEnabled(buttons.*enabled_by);
}

QString LiveWriter::showFailure(tuner::LiveWrite write, const JobError& error) {
  const bool conflict = error.conflict();
  const QString text = qs(tuner::write_failed_text(write, conflict, error.message.toStdString()));
  if (conflict) emit rereadRequested(text);
  emit statusChanged(text, true);
  return text;
}

redis::ChangeInfo LiveWriter::change(std::string reason,
                                     std::optional<std::int64_t> expect_version) {
  redis::ChangeInfo c;
  c.by = changeAuthor().toStdString();
  c.reason = std::move(reason);
  c.expect_version = expect_version;
  return c;
}

}  // namespace limitscope::ui
