// Verifies decimal_seconds_to_ns and json_member_text: seconds written in decimal become exact
// nanoseconds (epoch times a double cannot hold, exponents, rounding past the nanosecond),
// text that is not a number or overflows is refused, and a member's text is found at the top
// level of an object only.
#include "core/common/decimal_time.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "core/common/json_member_text.h"

namespace limitscope {
namespace {

struct SecondsRow {
  const char* text;
  std::optional<std::int64_t> ns;
};

TEST(DecimalSeconds, ConvertsTheTextExactly) {
  const SecondsRow rows[] = {
      {"0", 0},
      {"1", 1'000'000'000},
      {"1700049900.003861123", 1'700'049'900'003'861'123},  // a double would give ...861120
      {"1700049900.003861", 1'700'049'900'003'861'000},     // six decimals, as recordings had
      {"0.001953125", 1'953'125},                           // 2^-9 s: exact in binary, not in µs
      {"1.7e9", 1'700'000'000'000'000'000},
      {"17E+8", 1'700'000'000'000'000'000},
      {"1953125e-9", 1'953'125},
      {".5", 500'000'000},
      {"5.", 5'000'000'000},
      {"+2", 2'000'000'000},
      {"-0.25", -250'000'000},
      {"0.0000000014", 1},  // rounds to the nearest ns
      {"0.0000000015", 2},  // halves away from zero
      {"-0.0000000015", -2},
      {"0.00000000149999999999", 1},
      {"0.000000000999999999999999999999", 1},
      {"1e-1000000000", 0},
      {"0000000000000000000000001", 1'000'000'000},
      {"9223372036.854775807", 9'223'372'036'854'775'807},
      {"9223372036.854775808", std::nullopt},  // one past int64
      {"1e19", std::nullopt},
      {"1e999999999999", std::nullopt},
      {"", std::nullopt},
      {".", std::nullopt},
      {"-", std::nullopt},
      {"1e", std::nullopt},
      {"1e+", std::nullopt},
      {"1.2.3", std::nullopt},
      {"1 ", std::nullopt},
      {"inf", std::nullopt},
      {"nan", std::nullopt},
      {"0x10", std::nullopt},
  };
  for (const auto& row : rows) {
    EXPECT_EQ(decimal_seconds_to_ns(row.text), row.ns) << row.text;
  }
}

TEST(JsonMemberText, FindsTheTopLevelMembersText) {
  const std::string line =
      R"({"type":"request","x":{"t":1},"s":"a \"t\":2","list":[{"t":3}], "t" : 1700049900.123456789 ,"k":1})";
  EXPECT_EQ(json_member_text(line, "t"), "1700049900.123456789");
  EXPECT_EQ(json_member_text(line, "type"), "\"request\"");
  EXPECT_EQ(json_member_text(line, "x"), "{\"t\":1}");
  EXPECT_EQ(json_member_text(line, "k"), "1");
  EXPECT_EQ(json_member_text(line, "missing"), std::nullopt);
  EXPECT_EQ(json_member_text(R"({"t":1,"t":2})", "t"), "2");  // the last, as nlohmann keeps
  EXPECT_EQ(json_member_text(R"([{"t":1}])", "t"), std::nullopt);
  EXPECT_EQ(json_member_text("", "t"), std::nullopt);
  EXPECT_EQ(json_member_text(R"({"t)", "t"), std::nullopt);
  EXPECT_EQ(json_member_text(R"({"t":)", "t"), "");
}

}  // namespace
}  // namespace limitscope
