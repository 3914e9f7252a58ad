#pragma once
// Local wall-clock time for text drawn on every update (the charts' time ticks, the key table's
// "last seen"). QDateTime in local time calls tzset() on each conversion, and glibc then checks
// the zone file again: 3% of a dashboard frame in perf. These read the system zone's rules once
// (QTimeZone::systemTimeZone) and convert in memory.

#include <QString>
#include <QtGlobal>

namespace limitscope::ui {

/// The system zone's offset from UTC at `ms_since_epoch`, in milliseconds.
qint64 local_utc_offset_ms(qint64 ms_since_epoch);

/// `ms_since_epoch` as local time in a QDateTime format ("HH:mm:ss").
QString local_time_text(qint64 ms_since_epoch, const QString& format);

}  // namespace limitscope::ui
