#pragma once
// Status (core/common/expected.h) in Qt code. It is a Qt meta-type, so signals carry it: a
// signal says ok or why not with a Status, not with a QString that is empty when it worked
// (QSignalSpy and queued connections need the declaration below).

#include <QMetaType>
#include <QString>

#include "core/common/expected.h"

Q_DECLARE_METATYPE(limitscope::Status)

namespace limitscope::ui {

/// A failure whose reason is Qt text (a tr() message).
inline Status failure(const QString& why) {
  return make_error(why.toStdString());
}

}  // namespace limitscope::ui
