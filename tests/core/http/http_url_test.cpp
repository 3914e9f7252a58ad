// Verifies parsing of the URLs the HTTP client accepts: host, port and path read, https
// recognised, other schemes and bad hosts or ports refused, and credentials in a URL refused
// without being echoed.
#include <gtest/gtest.h>

#include "core/http/http_fetch.h"

namespace limitscope::http {
namespace {

TEST(HttpUrl, Parses) {
  auto u = parse_http_url("http://gw.internal:9100/metrics?x=1");
  ASSERT_TRUE(u.ok());
  EXPECT_EQ(u->host, "gw.internal");
  EXPECT_EQ(u->port, 9100);
  EXPECT_EQ(u->path, "/metrics?x=1");
  auto tls = parse_http_url("https://prom.example");
  ASSERT_TRUE(tls.ok());
  EXPECT_TRUE(tls->tls);
  EXPECT_EQ(tls->port, 443);
  for (const char* bad : {"ftp://x", "http://:80/", "http://h:0/", "http://u:p@h/"}) {
    EXPECT_FALSE(parse_http_url(bad).ok()) << bad;
  }
  auto creds = parse_http_url("http://user:secret@h/");
  EXPECT_EQ(creds.error().find("secret"), std::string::npos) << creds.error();
}

}  // namespace
}  // namespace limitscope::http
