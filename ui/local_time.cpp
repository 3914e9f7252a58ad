#include "ui/local_time.h"

#include <QDateTime>
#include <QTimeZone>

namespace limitscope::ui {
namespace {

const QTimeZone& system_zone() {
  static const QTimeZone zone = QTimeZone::systemTimeZone();
  return zone;
}

}  // namespace

qint64 local_utc_offset_ms(qint64 ms_since_epoch) {
  return static_cast<qint64>(
             system_zone().offsetFromUtc(QDateTime::fromMSecsSinceEpoch(ms_since_epoch, Qt::UTC))) *
         1000;
}

QString local_time_text(qint64 ms_since_epoch, const QString& format) {
  return QDateTime::fromMSecsSinceEpoch(ms_since_epoch, system_zone()).toString(format);
}

}  // namespace limitscope::ui
