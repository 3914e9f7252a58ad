#include "ui/connections/background_check.h"

#include <QPointer>
#include <QThreadPool>

namespace limitscope::ui {

void checkInBackground(const connections::ResolvedConnection& target, QObject* receiver,
                       std::function<void(const connections::CheckResult&)> done) {
  // The relay lives on the GUI thread until the answer arrives, so the pool thread always posts
  // to a live object; the receiver may be gone by then (the dialog closed), hence the guard.
  auto* relay = new QObject;
  QPointer<QObject> guard(receiver);
  QThreadPool::globalInstance()->start([relay, guard, target, done = std::move(done)] {
    const connections::CheckResult result = connections::check_connection(
        target, connections::check_options(target.saved.kind), SteadyClock::instance());
    QMetaObject::invokeMethod(
        relay,
        [relay, guard, done, result] {
          if (guard) done(result);
          relay->deleteLater();
        },
        Qt::QueuedConnection);
  });
}

}  // namespace limitscope::ui
