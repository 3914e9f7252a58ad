// Verifies the HTTP Date header: IMF-fixdate written truncated to the second, read back, and
// anything else refused with the text named.

#include "core/common/http_date.h"

#include <gtest/gtest.h>

namespace limitscope {
namespace {

TEST(HttpDate, WritesAndReadsImfFixdate) {
  const Nanos t{1'796'120'229'900'000'000};  // 2026-12-01 10:17:09.9 UTC
  EXPECT_EQ(format_http_date(t), "Tue, 01 Dec 2026 10:17:09 GMT");
  auto back = parse_http_date("Tue, 01 Dec 2026 10:17:09 GMT");
  ASSERT_TRUE(back.ok()) << back.error();
  EXPECT_EQ(back->count(), 1'796'120'229'000'000'000);
}

TEST(HttpDate, RefusesOtherShapes) {
  for (const char* bad : {"", "yesterday", "Tue, 01 Dec 2026 10:17:09 UTC",
                          "Tuesday, 01-Dec-26 10:17:09 GMT", "Tue, 01 Foo 2026 10:17:09 GMT",
                          "Tue, 01 Dec 2026 25:17:09 GMT", "Tue Dec  1 10:17:09 2026"}) {
    auto r = parse_http_date(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.error().find("not an HTTP date"), std::string::npos) << r.error();
  }
}

}  // namespace
}  // namespace limitscope
