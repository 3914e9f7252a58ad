#pragma once
// What the Tuner's panels share: the Qt-free session (core/tuner/tuner_session.h: the trace
// and its facts, the what-if series, the live rule's config), the worker of each thread, the
// running job's Cancel flag, the prices, the dashboard's key names, the two settings' editors
// and the connection. TunerTab makes one, lays the panels out over it and wires their signals
// to each other and to the workers; each panel binds its own fields and buttons to it.

#include <QPointer>
#include <QString>
#include <atomic>
#include <memory>

#include "core/dashboard/key_names.h"
#include "core/tuner/tuner_session.h"
#include "ui/tuner/tuner_worker.h"

namespace limitscope::ui {

class ParamEditor;

struct TunerShared {
  QString redisUrl;    ///< as given (may hold a password): only ever sent to a worker
  QString redisShown;  ///< redacted, for labels
  tuner::TunerSession session;
  /// One worker per thread: loads, trace passes and sweeps; what-ifs; Redis; scenarios.
  QPointer<TunerWorker> jobs, whatIf, redis, scenarios;
  CancelFlag cancel = std::make_shared<std::atomic<bool>>(false);  ///< the running job's
  PricingPtr pricing;  ///< the default policy's prices and quotas, and the assumed tokens
  KeyNames names;      ///< the dashboard's names of keys (hashes)
  ParamEditor* current = nullptr;
  ParamEditor* candidate = nullptr;
};

}  // namespace limitscope::ui
