#pragma once
// Runs a RolloutConsole (core/probe/rollout_console.h) off the GUI thread: every Redis read
// and write of the Rollout tab, and the guard's checks when the dashboard drives the rollout,
// happen here. Each call answers with a `viewed` signal (queued to the GUI thread) carrying
// the console's view, or `failed` with the message.

#include <QObject>
#include <QString>
#include <memory>

#include "core/probe/rollout_console.h"

namespace limitscope::ui {

using RolloutViewPtr = std::shared_ptr<const probe::RolloutView>;

class RolloutWorker : public QObject {
  Q_OBJECT
 public:
  explicit RolloutWorker(QObject* parent = nullptr);
  ~RolloutWorker() override;

  // Called through QMetaObject::invokeMethod (queued) from the panel.
  /// Watches `rule` on the Redis at `redisUrl` (a password in it stays on this thread).
  Q_INVOKABLE void watch(const QString& redisUrl, const QString& rule, const QString& prefix);
  /// Reads the state; with `drive`, first runs one controller check (guard, step, trip).
  Q_INVOKABLE void refresh(bool drive, const QString& by);
  Q_INVOKABLE void start(const QString& steps, const QString& hold, const QString& guard,
                         const QString& source, const QString& by);
  Q_INVOKABLE void pause(const QString& by, const QString& reason);
  Q_INVOKABLE void resume(const QString& by);
  Q_INVOKABLE void abort(const QString& by, const QString& reason);

 signals:
  /// @param action what produced it: "read", "start", "pause", "resume", "abort"
  void viewed(const limitscope::ui::RolloutViewPtr& view, const QString& action);
  void failed(const QString& message, const QString& action);

 private:
  void answer(const redis::Result<probe::RolloutView>& r, const QString& action);
  std::unique_ptr<probe::RolloutConsole> m_console;
};

}  // namespace limitscope::ui

Q_DECLARE_METATYPE(limitscope::ui::RolloutViewPtr)
