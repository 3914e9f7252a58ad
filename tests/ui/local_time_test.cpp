// Verifies that the dashboard's local times (time ticks, "last seen") read as QDateTime's own
// local time does, across a year in the machine's zone (both sides of a daylight-saving change
// where it has one; run with TZ=Europe/Berlin to see one).

#include "ui/local_time.h"

#include <gtest/gtest.h>

#include <QDateTime>

namespace limitscope::ui {
namespace {

TEST(LocalTime, AgreesWithQDateTimesLocalTime) {
  const qint64 start = 1'700'000'000'000;  // 2023-11-14
  for (qint64 ms = start; ms < start + 366LL * 86'400'000; ms += 7LL * 86'400'000 + 3'601'234) {
    const QDateTime local = QDateTime::fromMSecsSinceEpoch(ms);
    EXPECT_EQ(local_utc_offset_ms(ms), static_cast<qint64>(local.offsetFromUtc()) * 1000) << ms;
    EXPECT_EQ(local_time_text(ms, QStringLiteral("HH:mm:ss")),
              local.toString(QStringLiteral("HH:mm:ss")))
        << ms;
  }
}

}  // namespace
}  // namespace limitscope::ui
