// Verifies saved connections: credentials typed into a URL are split out (user to its field,
// password handed back for the keychain), and validation names the field that is wrong.
#include "core/connections/saved_connection.h"

#include <gtest/gtest.h>

#include "support/refusals.h"

namespace limitscope::connections {
namespace {

struct SplitRow {
  ConnectionKind kind;
  const char* typed;
  const char* url;
  const char* user;    // nullptr: none
  const char* secret;  // nullptr: none
};

TEST(SavedConnection, TakesCredentialsOutOfTypedUrls) {
  const SplitRow rows[] = {
      {ConnectionKind::redis, "redis://ops:s3cret@10.0.0.5:6379/2", "redis://10.0.0.5:6379/2",
       "ops", "s3cret"},
      {ConnectionKind::redis, "redis://:s3cret@h:6379", "redis://h:6379", nullptr, "s3cret"},
      {ConnectionKind::redis, "redis://s3cret@h", "redis://h", nullptr,
       "s3cret"},  // older form: a password
      {ConnectionKind::redis, "redis://ops:p%40ss@h", "redis://h", "ops", "p@ss"},
      {ConnectionKind::redis, "redis://ops:p@ss@h", "redis://h", "ops",
       "p@ss"},  // raw '@': the last one splits
      {ConnectionKind::redis, "redis://h:6379/0", "redis://h:6379/0", nullptr, nullptr},
      {ConnectionKind::redis, "unix://:pw@/run/redis.sock?db=1", "unix:///run/redis.sock?db=1",
       nullptr, "pw"},
      {ConnectionKind::prometheus, "http://u:pw@prom:9090/x?q=a@b", "http://prom:9090/x?q=a@b", "u",
       "pw"},
      {ConnectionKind::metrics, "https://scraper@gw:8443/metrics", "https://gw:8443/metrics",
       "scraper", nullptr},
      {ConnectionKind::metrics, "http://gw:8080/metrics", "http://gw:8080/metrics", nullptr,
       nullptr},
  };
  for (const SplitRow& r : rows) {
    SCOPED_TRACE(r.typed);
    const SplitUrl s = take_url_secret(r.kind, r.typed);
    EXPECT_EQ(s.url, r.url);
    EXPECT_EQ(s.user.value_or("<none>"), r.user != nullptr ? r.user : "<none>");
    EXPECT_EQ(s.secret.value_or("<none>"), r.secret != nullptr ? r.secret : "<none>");
  }
}

SavedConnection conn(const char* name, ConnectionKind kind, const char* url) {
  SavedConnection c;
  c.name = name;
  c.kind = kind;
  c.url = url;
  return c;
}

SavedConnection redis_conn() {
  return conn("prod", ConnectionKind::redis, "redis://10.0.0.5:6379/0");
}

SavedConnection prom_conn() {
  return conn("prom", ConnectionKind::prometheus, "http://prom:9090");
}

TEST(SavedConnection, ValidatesAndNamesTheField) {
  EXPECT_TRUE(validate(redis_conn()).ok());
  EXPECT_TRUE(validate(prom_conn()).ok());
  for (const Nanos edge :
       {Nanos(std::chrono::milliseconds(100)), Nanos(std::chrono::minutes(10))}) {
    auto c = prom_conn();
    c.scrape_interval = edge;
    EXPECT_TRUE(validate(c).ok()) << "the bounds themselves are allowed";
  }
  struct Row {
    const char* what;
    SavedConnection c;
    const char* expected;
  };
  // A valid connection with one change that must be refused.
  const auto with = [](SavedConnection c, const auto& change) {
    change(c);
    return c;
  };
  const Row rows[] = {
      {"no name", with(redis_conn(), [](SavedConnection& c) { c.name.clear(); }), "name: is empty"},
      {"password in url", with(redis_conn(), [](SavedConnection& c) { c.url = "redis://:pw@h"; }),
       "url: holds a password"},
      {"wrong scheme", with(redis_conn(), [](SavedConnection& c) { c.url = "http://h"; }),
       "expected redis://"},
      {"bad env name",
       with(redis_conn(),
            [](SavedConnection& c) {
              c.secret = SecretStorage::env;
              c.secret_env = "1BAD";
            }),
       "password_env: '1BAD' is not a variable name"},
      {"empty env name",
       with(redis_conn(), [](SavedConnection& c) { c.secret = SecretStorage::env; }),
       "password_env: is empty"},
      {"user without password", with(redis_conn(), [](SavedConnection& c) { c.user = "ops"; }),
       "user: a Redis ACL user needs a password"},
      {"bearer without secret",
       with(prom_conn(), [](SavedConnection& c) { c.auth = HttpAuth::bearer; }),
       "secret: auth bearer needs a secret"},
      {"basic without user",
       with(prom_conn(),
            [](SavedConnection& c) {
              c.auth = HttpAuth::basic;
              c.secret = SecretStorage::keychain;
            }),
       "user: basic auth needs a user"},
      {"profiles on prometheus",
       with(prom_conn(), [](SavedConnection& c) { c.profiles = "p.json"; }),
       "profiles: is for redis connections"},
      {"password in http url",
       with(prom_conn(), [](SavedConnection& c) { c.url = "http://u:p@prom:9090"; }),
       "url: holds a password"},
      {"scrape interval too short",
       with(prom_conn(),
            [](SavedConnection& c) { c.scrape_interval = std::chrono::milliseconds(50); }),
       "scrape_interval: 50ms is outside 100ms..10m"},
      {"scrape interval too long",
       with(prom_conn(), [](SavedConnection& c) { c.scrape_interval = std::chrono::minutes(15); }),
       "scrape_interval: 15m is outside 100ms..10m"},
  };
  for (const Row& r : rows) {
    SCOPED_TRACE(r.what);
    test::expect_refused(validate(r.c), r.expected);
  }
}

TEST(SavedConnection, EnvNamesAndSecretFieldNames) {
  EXPECT_TRUE(is_env_name("PROD_REDIS_PW"));
  EXPECT_TRUE(is_env_name("_x1"));
  EXPECT_FALSE(is_env_name(""));
  EXPECT_FALSE(is_env_name("9A"));
  EXPECT_FALSE(is_env_name("A-B"));
  auto p = prom_conn();
  p.auth = HttpAuth::bearer;
  EXPECT_EQ(p.secret_env_field(), "token_env");
  p.auth = HttpAuth::basic;
  EXPECT_EQ(p.secret_env_field(), "password_env");
  EXPECT_EQ(keychain_key(redis_conn()), "connection/prod");
}

}  // namespace
}  // namespace limitscope::connections
