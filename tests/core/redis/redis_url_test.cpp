// Verifies parse_redis_url: the accepted forms, the refused ones with their reasons, and that
// no message or redacted() rendering ever shows the password.
#include "core/redis/redis_url.h"

#include <gtest/gtest.h>

#include "support/refusals.h"

namespace limitscope::redis {
namespace {

struct GoodRow {
  const char* text;
  const char* host;
  int port;
  const char* unix_path;
  const char* user;
  const char* password;
  int db;
};

TEST(RedisUrl, AcceptedForms) {
  const GoodRow rows[] = {
      {"redis://localhost", "localhost", 6379, "", "", "", 0},
      {"redis://127.0.0.1:7001", "127.0.0.1", 7001, "", "", "", 0},
      {"redis://127.0.0.1:7001/3", "127.0.0.1", 7001, "", "", "", 3},
      {"redis://:secret@host:6380", "host", 6380, "", "", "secret", 0},
      {"redis://secret@host", "host", 6379, "", "", "secret", 0},
      {"redis://alice:p%40ss%3Aw@host:1/2", "host", 1, "", "alice", "p@ss:w", 2},
      {"redis://alice:p@ss@host", "host", 6379, "", "alice", "p@ss", 0},
      {"redis://[::1]:6390/1", "::1", 6390, "", "", "", 1},
      {"redis://host/", "host", 6379, "", "", "", 0},
      {"unix:///run/redis.sock", "127.0.0.1", 6379, "/run/redis.sock", "", "", 0},
      {"unix:///run/redis.sock?db=5", "127.0.0.1", 6379, "/run/redis.sock", "", "", 5},
      {"unix://bob:pw@/tmp/r.sock", "127.0.0.1", 6379, "/tmp/r.sock", "bob", "pw", 0},
  };
  for (const auto& row : rows) {
    SCOPED_TRACE(row.text);
    auto url = parse_redis_url(row.text);
    ASSERT_TRUE(url.ok()) << url.error();
    EXPECT_EQ(url->host, row.host);
    EXPECT_EQ(url->port, row.port);
    EXPECT_EQ(url->unix_path, row.unix_path);
    EXPECT_EQ(url->user, row.user);
    EXPECT_EQ(url->password, row.password);
    EXPECT_EQ(url->db, row.db);
  }
}

TEST(RedisUrl, RefusedFormsNameTheReasonAndHideThePassword) {
  const std::vector<test::Refusal> rows = {
      {"localhost:6379", "expected redis://"},
      {"http://host", "expected redis://"},
      {"rediss://host", "TLS"},
      {"redis://:hunter2@host:0", "not in 1..65535"},
      {"redis://:hunter2@host:99999", "not in 1..65535"},
      {"redis://:hunter2@host:abc", "port 'abc'"},
      {"redis://:hunter2@host:", "not in 1..65535"},
      {"redis://:hunter2@host/x", "database 'x'"},
      {"redis://:hunter2@host/-1", "database '-1'"},
      {"redis://:hunter2@:6379", "no host"},
      {"redis://[::1:6379", "unterminated"},
      {"redis://a:b%zz@host", "percent-encoding"},
      {"unix://relative.sock", "absolute path"},
      {"unix:///tmp/r.sock?dbx=1", "db=N"},
      // The documented older form, the password as the single field: echoed in clear before.
      {"redis://hunter2@host:abc", "port 'abc'"},
      {"redis://hunter2@host/x", "database 'x'"},
      {"redis+cluster://hunter2@a:1,b:x", "seed node 2"},
      {"hunter2@host:6379", "expected redis://"},
      {"rediss://hunter2@host", "TLS"},
  };
  test::expect_refusals(rows, [](const std::string& text) {
    auto url = parse_redis_url(text);
    if (!url.ok()) {
      EXPECT_EQ(url.error().find("hunter2"), std::string::npos) << url.error();
    }
    return url;
  });
}

TEST(RedisUrl, AUserWithAnEmptyPasswordTakesItFromElsewhere) {
  auto named = parse_redis_url("redis://alice:@host:6379");
  ASSERT_TRUE(named.ok()) << named.error();
  EXPECT_EQ(named->user, "alice");
  EXPECT_EQ(named->password, "");
  auto older = parse_redis_url("redis://secret@host:6379");
  ASSERT_TRUE(older.ok()) << older.error();
  EXPECT_EQ(older->user, "");
  EXPECT_EQ(older->password, "secret");
}

TEST(RedisUrl, RedactedHidesThePassword) {
  auto url = parse_redis_url("redis://alice:topsecret@db.internal:6380/2");
  ASSERT_TRUE(url.ok());
  EXPECT_EQ(url->redacted(), "redis://alice:***@db.internal:6380/2");
  auto v6 = parse_redis_url("redis://[::1]:7000");
  ASSERT_TRUE(v6.ok());
  EXPECT_EQ(v6->redacted(), "redis://[::1]:7000");
}

}  // namespace
}  // namespace limitscope::redis
