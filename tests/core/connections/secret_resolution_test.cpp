// Verifies secret resolution: the password comes from the environment variable the connection
// names or from what the keychain returned, lands where the client needs it (the Redis URL,
// basic or bearer auth), and a missing secret is an error naming the variable or entry.
#include "core/connections/secret_resolution.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <map>

#include "sample_connections.h"

namespace limitscope::connections {
namespace {

EnvLookup env_of(std::map<std::string, std::string> vars) {
  return [vars](const std::string& n) -> std::optional<std::string> {
    const auto it = vars.find(n);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

SavedConnection redis_env() {
  return test::redis_ops_env("prod", "redis://10.0.0.5:6380/2");
}

TEST(SecretResolution, RedisPasswordFromTheEnvironment) {
  auto r = resolve_connection(redis_env(), env_of({{"PROD_REDIS_PW", "p@ss:w/rd"}}), std::nullopt);
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r->redis_url.host, "10.0.0.5");
  EXPECT_EQ(r->redis_url.port, 6380);
  EXPECT_EQ(r->redis_url.db, 2);
  EXPECT_EQ(r->redis_url.user, "ops");
  EXPECT_EQ(r->redis_url.password, "p@ss:w/rd");
  // The text form parses back to the same credentials (what MainWindow::openRedis receives).
  auto again = redis::parse_redis_url(r->redis_url_text);
  ASSERT_TRUE(again.ok()) << again.error();
  EXPECT_EQ(again->password, "p@ss:w/rd");
  EXPECT_EQ(again->user, "ops");
}

TEST(SecretResolution, PasswordOnlyIsNotMistakenForAUser) {
  auto c = redis_env();
  c.user.clear();
  auto r = resolve_connection(c, env_of({{"PROD_REDIS_PW", "justpw"}}), std::nullopt);
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r->redis_url.user, "");
  EXPECT_EQ(r->redis_url.password, "justpw");
}

TEST(SecretResolution, MissingSecretsNameWhereTheyShouldBe) {
  auto unset = resolve_connection(redis_env(), env_of({}), std::nullopt);
  ASSERT_FALSE(unset.ok());
  EXPECT_EQ(
      unset.error(),
      "connection 'prod': environment variable PROD_REDIS_PW is not set (it holds the password)");
  auto empty = resolve_connection(redis_env(), env_of({{"PROD_REDIS_PW", ""}}), std::nullopt);
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.error().find("PROD_REDIS_PW is empty"), std::string::npos);

  auto k = redis_env();
  k.secret = SecretStorage::keychain;
  k.secret_env.clear();
  auto none = resolve_connection(k, env_of({}), std::nullopt);
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.error().find("the keychain holds no password for it (entry connection/prod)"),
            std::string::npos);
  auto from_keychain = resolve_connection(k, env_of({}), std::string("kc-pw"));
  ASSERT_TRUE(from_keychain.ok()) << from_keychain.error();
  EXPECT_EQ(from_keychain->redis_url.password, "kc-pw");
}

TEST(SecretResolution, HttpBasicAndBearer) {
  const SavedConnection m = test::gateway_metrics_basic();
  auto basic = resolve_connection(m, env_of({{"GW_PW", "b4sic"}}), std::nullopt);
  ASSERT_TRUE(basic.ok()) << basic.error();
  EXPECT_EQ(basic->http_url.host, "gw");
  EXPECT_EQ(basic->http_url.path, "/metrics");
  EXPECT_EQ(basic->fetch.basic_user, "scraper");
  EXPECT_EQ(basic->fetch.basic_password, "b4sic");
  EXPECT_TRUE(basic->fetch.bearer_token.empty());

  SavedConnection p = test::prometheus_bearer("http://prom:9090");
  p.secret = SecretStorage::env;
  p.secret_env = "PROM_TOKEN";
  auto missing = resolve_connection(p, env_of({}), std::nullopt);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().find("PROM_TOKEN is not set (it holds the bearer token)"),
            std::string::npos);
  auto bearer = resolve_connection(p, env_of({{"PROM_TOKEN", "t0k"}}), std::nullopt);
  ASSERT_TRUE(bearer.ok()) << bearer.error();
  EXPECT_EQ(bearer->fetch.bearer_token, "t0k");
}

TEST(SecretResolution, AnInvalidConnectionIsRefusedBeforeAnyLookup) {
  auto c = redis_env();
  c.url = "redis://:inline@h";
  auto r = resolve_connection(c, env_of({{"PROD_REDIS_PW", "x"}}), std::nullopt);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("holds a password"), std::string::npos);
}

// A password typed for the session wins over the environment and the keychain, and ends in the
// URL; without one, a keychain connection is read from the keychain and any other from where it
// says; an HTTP connection without auth takes no typed secret.
TEST(SecretPlan, ATypedSecretWinsThenTheKeychainThenTheEnvironment) {
  const auto typed = plan_secret(redis_env(), "typed-pw");
  EXPECT_FALSE(typed.read_keychain);
  EXPECT_EQ(typed.connection.secret, SecretStorage::keychain);
  EXPECT_EQ(typed.connection.secret_env, "");
  auto r =
      resolve_connection(typed.connection, env_of({{"PROD_REDIS_PW", "env-pw"}}), typed.secret);
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r->redis_url.password, "typed-pw");

  const auto from_env = plan_secret(redis_env(), "");
  EXPECT_FALSE(from_env.read_keychain);
  EXPECT_FALSE(from_env.secret.has_value());
  r = resolve_connection(from_env.connection, env_of({{"PROD_REDIS_PW", "env-pw"}}),
                         from_env.secret);
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r->redis_url.password, "env-pw");

  auto kept = redis_env();
  kept.secret = SecretStorage::keychain;
  kept.secret_env.clear();
  EXPECT_TRUE(plan_secret(kept, "").read_keychain);
  EXPECT_FALSE(plan_secret(kept, "typed").read_keychain);

  // A Redis connection without a stored password still takes one typed for the session.
  auto open = redis_env();
  open.secret = SecretStorage::none;
  open.secret_env.clear();
  EXPECT_EQ(plan_secret(open, "typed").secret, "typed");
  EXPECT_FALSE(plan_secret(open, "").read_keychain);

  SavedConnection http;
  http.name = "gw";
  http.kind = ConnectionKind::metrics;
  http.url = "http://gw:8080/metrics";
  const auto none = plan_secret(http, "typed");
  EXPECT_FALSE(none.secret.has_value());
  EXPECT_EQ(none.connection.secret, SecretStorage::none);
}

}  // namespace
}  // namespace limitscope::connections

// The GUI's `limitscope --redis URL` takes its password as the CLI and the gateway do: from
// --redis-password-file (0600) or else LIMITSCOPE_REDIS_PASSWORD, never both with a URL password.
namespace limitscope::connections {
namespace {

std::string owner_only_file(const std::string& name, const std::string& text, int mode) {
  const std::string path = ::testing::TempDir() + "secret_resolution_" + name;
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
  ::chmod(path.c_str(), static_cast<mode_t>(mode));
  return path;
}

TEST(RedisUrlTextWithPasswordSource, NoSourceLeavesTheUrlAlone) {
  auto r = redis_url_text_with_password_source("redis://ops:pw@h:6380/2", std::nullopt, nullptr);
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(*r, "redis://ops:pw@h:6380/2");
  auto empty_env = redis_url_text_with_password_source("redis://h:6380", std::nullopt, "");
  ASSERT_TRUE(empty_env.ok()) << empty_env.error();
  EXPECT_EQ(*empty_env, "redis://h:6380");
}

TEST(RedisUrlTextWithPasswordSource, TheEnvironmentsPasswordGoesIn) {
  auto r = redis_url_text_with_password_source("redis://h:6380/2", std::nullopt, "p@ss:w/rd");
  ASSERT_TRUE(r.ok()) << r.error();
  auto back = redis::parse_redis_url(*r);
  ASSERT_TRUE(back.ok()) << back.error();
  EXPECT_EQ(back->host, "h");
  EXPECT_EQ(back->port, 6380);
  EXPECT_EQ(back->db, 2);
  EXPECT_EQ(back->user, "");
  EXPECT_EQ(back->password, "p@ss:w/rd");
  // A user named in the URL (redis://user:@host) keeps its name.
  auto user =
      redis_url_text_with_password_source("redis+cluster://ops:@a:1,b:2", std::nullopt, "x@y");
  ASSERT_TRUE(user.ok()) << user.error();
  auto u = redis::parse_redis_url(*user);
  ASSERT_TRUE(u.ok()) << u.error();
  EXPECT_EQ(u->user, "ops");
  EXPECT_EQ(u->password, "x@y");
  EXPECT_EQ(u->cluster_seeds.size(), 2U);
}

TEST(RedisUrlTextWithPasswordSource, TheFileWinsOverTheEnvironment) {
  const auto file = owner_only_file("pw600", "from-file\n", 0600);
  auto r = redis_url_text_with_password_source("unix:///run/redis.sock?db=3", file, "from-env");
  ASSERT_TRUE(r.ok()) << r.error();
  auto back = redis::parse_redis_url(*r);
  ASSERT_TRUE(back.ok()) << back.error();
  EXPECT_EQ(back->unix_path, "/run/redis.sock");
  EXPECT_EQ(back->db, 3);
  EXPECT_EQ(back->password, "from-file");
}

TEST(RedisUrlTextWithPasswordSource, AFileOthersMayReadIsRefusedByName) {
  const auto file = owner_only_file("pw644", "secret-in-file\n", 0644);
  auto r = redis_url_text_with_password_source("redis://h:6379", file, nullptr);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find(file), std::string::npos) << r.error();
  EXPECT_NE(r.error().find("readable by others"), std::string::npos) << r.error();
  EXPECT_EQ(r.error().find("secret-in-file"), std::string::npos) << r.error();
}

TEST(RedisUrlTextWithPasswordSource, AUrlPasswordAndAnotherSourceAreAmbiguous) {
  auto r = redis_url_text_with_password_source("redis://:in-url@h:6379", std::nullopt, "in-env");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("LIMITSCOPE_REDIS_PASSWORD"), std::string::npos) << r.error();
  EXPECT_EQ(r.error().find("in-url"), std::string::npos) << r.error();
  EXPECT_EQ(r.error().find("in-env"), std::string::npos) << r.error();
}

}  // namespace
}  // namespace limitscope::connections
