// Verifies that limitscope-cli takes the Redis password from outside the command line (issue
// #17 item 10), against a real redis-server with requirepass: from LIMITSCOPE_REDIS_PASSWORD,
// from a 0600 --redis-password-file; a 0644 file is refused (exit 2, naming the file and why);
// a wrong password is a clear error that never echoes the password.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <string>

#include "core/redis/connection.h"
#include "core/redis/key_schema.h"
#include "support/process.h"
#include "support/redis_server.h"

namespace limitscope::test {
namespace {

constexpr const char* kPassword = "s3cret-Pw_17";

// Sets LIMITSCOPE_REDIS_PASSWORD for the children run while it lives.
class PasswordEnv {
 public:
  explicit PasswordEnv(const std::string& value) {
    ::setenv("LIMITSCOPE_REDIS_PASSWORD", value.c_str(), 1);
  }
  ~PasswordEnv() { ::unsetenv("LIMITSCOPE_REDIS_PASSWORD"); }
  PasswordEnv(const PasswordEnv&) = delete;
  PasswordEnv& operator=(const PasswordEnv&) = delete;
};

std::string password_file(const std::string& name, const std::string& text, mode_t mode) {
  const auto path = write_temp(name, text);
  EXPECT_EQ(::chmod(path.c_str(), mode), 0);
  return path;
}

// A server with requirepass and rule "api" configured (capacity 5).
std::unique_ptr<RedisServer> protected_server() {
  RedisServer::Options o;
  o.requirepass = kPassword;
  auto server = RedisServer::start(o);
  auto c = redis::Connection::open(server->redis_url("", kPassword));
  EXPECT_TRUE(c.ok()) << c.error().message;
  if (c.ok()) {
    auto r = c->command({"HSET", redis::KeySchema().config_key("api"), "algorithm", "token-bucket",
                         "capacity", "5", "refill_amount", "1", "refill_period_ns", "1000000000",
                         "version", "1"});
    EXPECT_TRUE(r.ok()) << r.error().message;
  }
  return server;
}

std::string url_of(const RedisServer& server) {
  return "redis://127.0.0.1:" + std::to_string(server.port());
}

std::string config_get(const RedisServer& server) {
  return "config get --redis " + url_of(server) + " --rule api";
}

TEST(RedisPasswordCli, NoPasswordIsRefusedByTheServer) {
  ::unsetenv("LIMITSCOPE_REDIS_PASSWORD");
  auto server = protected_server();
  auto r = run_cli(config_get(*server));
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("NOAUTH"), std::string::npos) << r.err;
}

TEST(RedisPasswordCli, FromTheEnvironment) {
  auto server = protected_server();
  PasswordEnv env(kPassword);
  auto r = run_cli(config_get(*server) + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("token-bucket"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find(kPassword), std::string::npos);
  EXPECT_EQ(r.err.find(kPassword), std::string::npos);
  // decide, through the shared Redis options (decide, hammer, probe, bench-redis, ...).
  auto d = run_cli("decide --redis " + url_of(*server) +
                   " --rule api --key k --failure-mode fail-closed --json");
  ASSERT_EQ(d.exit_code, 0) << d.err << d.out;
  EXPECT_NE(d.out.find("\"allowed\":true"), std::string::npos) << d.out;
  EXPECT_EQ(d.out.find(kPassword), std::string::npos);
}

TEST(RedisPasswordCli, FromAFileOnlyItsOwnerMayRead) {
  ::unsetenv("LIMITSCOPE_REDIS_PASSWORD");
  auto server = protected_server();
  const auto file = password_file("pw600", std::string(kPassword) + "\n", 0600);
  auto r = run_cli(config_get(*server) + " --redis-password-file " + quoted(file));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("token-bucket"), std::string::npos) << r.out;
  auto d = run_cli("decide --redis " + url_of(*server) + " --rule api --key k --json" +
                   " --failure-mode fail-closed --redis-password-file " + quoted(file));
  ASSERT_EQ(d.exit_code, 0) << d.err << d.out;

  // The file wins over the environment.
  PasswordEnv env("not-the-password");
  auto both = run_cli(config_get(*server) + " --redis-password-file " + quoted(file));
  EXPECT_EQ(both.exit_code, 0) << both.err;
}

TEST(RedisPasswordCli, AFileOthersMayReadIsRefused) {
  ::unsetenv("LIMITSCOPE_REDIS_PASSWORD");
  auto server = protected_server();
  const auto file = password_file("pw644", std::string(kPassword) + "\n", 0644);
  auto r = run_cli(config_get(*server) + " --redis-password-file " + quoted(file));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find(file), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("readable by others"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find(kPassword), std::string::npos) << r.err;

  auto d = run_cli("decide --redis " + url_of(*server) +
                   " --rule api --key k --redis-password-file " + quoted(file));
  EXPECT_EQ(d.exit_code, 2) << d.err;
  EXPECT_NE(d.err.find(file), std::string::npos) << d.err;
}

TEST(RedisPasswordCli, AWrongPasswordIsAClearErrorThatDoesNotEchoIt) {
  auto server = protected_server();
  const std::string wrong = "wrong-Pw_xyz";
  PasswordEnv env(wrong);
  auto r = run_cli(config_get(*server) + " --json");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("authentication refused"), std::string::npos) << r.err;
  EXPECT_EQ((r.out + r.err).find(wrong), std::string::npos) << r.out << r.err;
  // decide refuses (a misconfiguration, even fail-open) and its JSON holds no password either.
  auto d = run_cli("decide --redis " + url_of(*server) + " --rule api --key k --json");
  EXPECT_EQ(d.exit_code, 2) << d.err;
  EXPECT_NE(d.out.find("WRONGPASS"), std::string::npos) << d.out;
  EXPECT_EQ((d.out + d.err).find(wrong), std::string::npos) << d.out << d.err;
}

TEST(RedisPasswordCli, AUrlPasswordAndAnotherSourceAreAmbiguous) {
  auto server = protected_server();
  PasswordEnv env(kPassword);
  auto r = run_cli("config get --redis redis://:" + std::string(kPassword) +
                   "@127.0.0.1:" + std::to_string(server->port()) + " --rule api");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("LIMITSCOPE_REDIS_PASSWORD"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find(kPassword), std::string::npos) << r.err;
}

}  // namespace
}  // namespace limitscope::test
