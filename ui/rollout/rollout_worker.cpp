#include "ui/rollout/rollout_worker.h"

#include "core/common/clock.h"

namespace limitscope::ui {

RolloutWorker::RolloutWorker(QObject* parent) : QObject(parent) {
  qRegisterMetaType<RolloutViewPtr>();
}

RolloutWorker::~RolloutWorker() = default;

void RolloutWorker::watch(const QString& redisUrl, const QString& rule, const QString& prefix) {
  m_console.reset();
  auto c = probe::RolloutConsole::make(redisUrl.toStdString(), rule.toStdString(),
                                       prefix.toStdString(), SteadyClock::instance());
  if (!c) {
    emit failed(QString::fromStdString(c.error()), QStringLiteral("read"));
    return;
  }
  m_console = std::move(c).value();
  answer(m_console->read(), QStringLiteral("read"));
}

void RolloutWorker::refresh(bool drive, const QString& by) {
  if (!m_console) return;
  answer(drive ? m_console->drive(by.toStdString()) : m_console->read(), QStringLiteral("read"));
}

void RolloutWorker::start(const QString& steps, const QString& hold, const QString& guard,
                          const QString& source, const QString& by) {
  if (!m_console) return;
  probe::RolloutPlan plan{steps.toStdString(), hold.toStdString(), guard.toStdString(),
                          source.toStdString()};
  answer(m_console->start(plan, by.toStdString()), QStringLiteral("start"));
}

void RolloutWorker::pause(const QString& by, const QString& reason) {
  if (!m_console) return;
  answer(m_console->pause(by.toStdString(), reason.toStdString()), QStringLiteral("pause"));
}

void RolloutWorker::resume(const QString& by) {
  if (!m_console) return;
  answer(m_console->resume(by.toStdString()), QStringLiteral("resume"));
}

void RolloutWorker::abort(const QString& by, const QString& reason) {
  if (!m_console) return;
  answer(m_console->abort(by.toStdString(), reason.toStdString()), QStringLiteral("abort"));
}

void RolloutWorker::answer(const redis::Result<probe::RolloutView>& r, const QString& action) {
  if (!r) {
    emit failed(QString::fromStdString(r.error().message), action);
    return;
  }
  emit viewed(std::make_shared<const probe::RolloutView>(*r), action);
}

}  // namespace limitscope::ui
