// Verifies plain figures: fixed decimals round and never group; grouping puts ',' between each
// three digits of the integer part only, after a sign, and leaves short numbers alone.
#include "core/common/number_format.h"

#include <gtest/gtest.h>

namespace limitscope {
namespace {

TEST(NumberFormat, FixedAndGrouped) {
  EXPECT_EQ(fixed_text(12.345, 1), "12.3");
  EXPECT_EQ(fixed_text(0.5, 0), "0");
  EXPECT_EQ(fixed_text(1234567.891, 2), "1234567.89");
  EXPECT_EQ(fixed_text(-3, 2), "-3.00");
  EXPECT_EQ(grouped_digits("1234567.891"), "1,234,567.891");
  EXPECT_EQ(grouped_digits("-12345.6"), "-12,345.6");
  EXPECT_EQ(grouped_digits("999"), "999");
  EXPECT_EQ(grouped_digits("-100"), "-100");
  EXPECT_EQ(grouped_digits(""), "");
}

}  // namespace
}  // namespace limitscope
