// Verifies the error convention's types: Expected<T, E> holds a value or an error, Status is ok
// or an Error, and redis::Result is the same template with a RedisError.

#include "core/common/expected.h"

#include <gtest/gtest.h>

#include <memory>
#include <sstream>
#include <string>
#include <type_traits>

#include "core/redis/redis_error.h"

namespace limitscope {
namespace {

Expected<int> parse_digit(char c) {
  if (c < '0' || c > '9') return make_error(std::string("not a digit: '") + c + "'");
  return c - '0';
}

Status check_even(int n) {
  if (n % 2 != 0) return Error{std::to_string(n) + " is odd"};
  return {};
}

TEST(Expected, HoldsTheValueOrTheErrorMessage) {
  const auto seven = parse_digit('7');
  ASSERT_TRUE(seven.ok());
  EXPECT_TRUE(static_cast<bool>(seven));
  EXPECT_EQ(*seven, 7);

  const auto bad = parse_digit('x');
  EXPECT_FALSE(bad.ok());
  EXPECT_FALSE(static_cast<bool>(bad));
  EXPECT_EQ(bad.error(), "not a digit: 'x'");
}

TEST(Expected, MovesAMoveOnlyValueOut) {
  Expected<std::unique_ptr<int>> made(std::make_unique<int>(5));
  std::unique_ptr<int> taken = std::move(made).value();
  ASSERT_NE(taken, nullptr);
  EXPECT_EQ(*taken, 5);
}

TEST(Expected, AStringValueIsNotAnError) {
  // The type an optional<string> error used to share: a string is a value here.
  Expected<std::string> text(std::string("hello"));
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(*text, "hello");
  Expected<std::string> failed(make_error("no text"));
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.error(), "no text");
}

TEST(Status, DefaultIsOkAndAnErrorIsNot) {
  EXPECT_TRUE(Status{}.ok());
  EXPECT_TRUE(check_even(4).ok());
  const Status odd = check_even(3);
  ASSERT_FALSE(odd.ok());
  EXPECT_EQ(odd.error(), "3 is odd");
}

TEST(Status, ComparesAndPrintsForTestMessages) {
  EXPECT_EQ(check_even(2), Status{});
  EXPECT_EQ(check_even(5), Status(Error{"5 is odd"}));
  EXPECT_NE(check_even(5), Status(Error{"7 is odd"}));
  std::ostringstream os;
  os << check_even(2) << " / " << check_even(1);
  EXPECT_EQ(os.str(), "ok / error: 1 is odd");
}

TEST(Status, HasNoConversionToBool) {
  // `if (status)` would read as "if failed" to callers of the optional-error functions it
  // replaced; callers must say .ok().
  EXPECT_FALSE((std::is_constructible_v<bool, Status>));
  EXPECT_TRUE((std::is_constructible_v<bool, Expected<int>>));
}

TEST(RedisResult, IsExpectedWithARedisError) {
  static_assert(std::is_same_v<redis::Result<int>, Expected<int, redis::RedisError>>);
  redis::Result<int> failed(redis::make_redis_error(redis::ErrorKind::timeout, "GET k: timed out"));
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.error().kind, redis::ErrorKind::timeout);
  EXPECT_EQ(failed.error().message, "GET k: timed out");
  EXPECT_TRUE(failed.error().breaks_connection());
  redis::Result<int> value(3);
  ASSERT_TRUE(value.ok());
  EXPECT_EQ(*value, 3);
}

}  // namespace
}  // namespace limitscope
