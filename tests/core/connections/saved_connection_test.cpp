// Verifies saved connections: credentials typed into a URL are split out (user to its field,
// password handed back for the keychain), and validation names the field that is wrong.
#include "core/connections/saved_connection.h"

#include <gtest/gtest.h>

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

SavedConnection redis_conn() {
  SavedConnection c;
  c.name = "prod";
  c.kind = ConnectionKind::redis;
  c.url = "redis://10.0.0.5:6379/0";
  return c;
}

SavedConnection prom_conn() {
  SavedConnection c;
  c.name = "prom";
  c.kind = ConnectionKind::prometheus;
  c.url = "http://prom:9090";
  return c;
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
  std::vector<Row> rows;
  auto add = [&](const char* what, SavedConnection c, const char* expected) {
    rows.push_back({what, std::move(c), expected});
  };
  {
    auto c = redis_conn();
    c.name.clear();
    add("no name", c, "name: is empty");
  }
  {
    auto c = redis_conn();
    c.url = "redis://:pw@h";
    add("password in url", c, "url: holds a password");
  }
  {
    auto c = redis_conn();
    c.url = "http://h";
    add("wrong scheme", c, "expected redis://");
  }
  {
    auto c = redis_conn();
    c.secret = SecretStorage::env;
    c.secret_env = "1BAD";
    add("bad env name", c, "password_env: '1BAD' is not a variable name");
  }
  {
    auto c = redis_conn();
    c.secret = SecretStorage::env;
    add("empty env name", c, "password_env: is empty");
  }
  {
    auto c = redis_conn();
    c.user = "ops";
    add("user without password", c, "user: a Redis ACL user needs a password");
  }
  {
    auto c = prom_conn();
    c.auth = HttpAuth::bearer;
    add("bearer without secret", c, "secret: auth bearer needs a secret");
  }
  {
    auto c = prom_conn();
    c.auth = HttpAuth::basic;
    c.secret = SecretStorage::keychain;
    add("basic without user", c, "user: basic auth needs a user");
  }
  {
    auto c = prom_conn();
    c.profiles = "p.json";
    add("profiles on prometheus", c, "profiles: is for redis connections");
  }
  {
    auto c = prom_conn();
    c.url = "http://u:p@prom:9090";
    add("password in http url", c, "url: holds a password");
  }
  {
    auto c = prom_conn();
    c.scrape_interval = std::chrono::milliseconds(50);
    add("scrape interval too short", c, "scrape_interval: 50ms is outside 100ms..10m");
  }
  {
    auto c = prom_conn();
    c.scrape_interval = std::chrono::minutes(15);
    add("scrape interval too long", c, "scrape_interval: 15m is outside 100ms..10m");
  }
  for (const Row& r : rows) {
    SCOPED_TRACE(r.what);
    auto v = validate(r.c);
    ASSERT_FALSE(v.ok());
    EXPECT_NE(v.error().find(r.expected), std::string::npos) << v.error();
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
