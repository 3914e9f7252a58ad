// Verifies the Redis password sources that keep it off the command line: a file readable by its
// owner only (0600/0400; group or other bits refused, naming the file), its first line without
// the line end, the environment variable's value, and a URL that carries a password as well
// refused as ambiguous.
#include "core/redis/redis_password.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include "support/process.h"

namespace limitscope::redis {
namespace {

std::string password_file(const std::string& name, const std::string& text, mode_t mode) {
  const std::string path = test::write_temp(name, text);
  chmod(path.c_str(), mode);
  return path;
}

TEST(RedisPassword, AFileOnlyItsOwnerMayRead) {
  auto ok = read_password_file(password_file("pw-600", "s3cret\nignored\n", 0600));
  ASSERT_TRUE(ok.ok()) << ok.error();
  EXPECT_EQ(*ok, "s3cret");
  EXPECT_TRUE(read_password_file(password_file("pw-400", "s3cret\r\n", 0400)).ok());
  for (const mode_t mode : {mode_t{0640}, mode_t{0604}, mode_t{0644}}) {
    const std::string path = password_file("pw-open", "s3cret\n", mode);
    auto refused = read_password_file(path);
    ASSERT_FALSE(refused.ok()) << mode;
    EXPECT_NE(refused.error().find(path), std::string::npos) << refused.error();
    EXPECT_NE(refused.error().find("chmod 600"), std::string::npos) << refused.error();
    EXPECT_EQ(refused.error().find("s3cret"), std::string::npos);
  }
  EXPECT_FALSE(read_password_file(password_file("pw-empty", "\n", 0600)).ok());
  EXPECT_FALSE(read_password_file("/nonexistent/pw").ok());
}

TEST(RedisPassword, TheFileThenTheEnvironmentAndNeverTwoPasswords) {
  RedisUrl url;
  EXPECT_EQ(apply_password_source(url, std::nullopt, nullptr), Status{});
  EXPECT_TRUE(url.password.empty());
  EXPECT_EQ(apply_password_source(url, std::nullopt, "from-env"), Status{});
  EXPECT_EQ(url.password, "from-env");
  RedisUrl file_url;
  const std::string path = password_file("pw-src", "from-file\n", 0600);
  EXPECT_EQ(apply_password_source(file_url, path, "from-env"), Status{});
  EXPECT_EQ(file_url.password, "from-file");
  RedisUrl both;
  both.password = "in-url";
  const Status why = apply_password_source(both, std::nullopt, "from-env");
  ASSERT_FALSE(why.ok());
  EXPECT_NE(why.error().find("LIMITSCOPE_REDIS_PASSWORD"), std::string::npos) << why.error();
  EXPECT_EQ(why.error().find("in-url"), std::string::npos);
}

}  // namespace
}  // namespace limitscope::redis
