#pragma once
// Runs the blocking test-connection check (core/connections/connection_check.h) on the global
// thread pool, waiting as opening the connection would (connections::check_options), and hands
// the result back on the GUI thread, to `receiver` if it still exists.

#include <QObject>
#include <functional>

#include "core/connections/connection_check.h"

namespace limitscope::ui {

void checkInBackground(const connections::ResolvedConnection& target, QObject* receiver,
                       std::function<void(const connections::CheckResult&)> done);

}  // namespace limitscope::ui
