#pragma once
// A bounded HTTP GET for scraping /metrics and querying Prometheus: connect and read
// timeouts, a retry on connection failure, a cap on the body size, and basic or bearer auth.
// Errors name the URL (credentials never shown) and the reason. http:// and https:// (Debian's
// cpp-httplib is built with OpenSSL; certificates are verified against the system store).

#include <chrono>
#include <cstddef>
#include <string>
#include <string_view>

#include "core/common/expected.h"

namespace limitscope::http {

struct HttpUrl {
  bool tls = false;  ///< https
  std::string host;
  int port = 80;
  std::string path = "/";  ///< with the query, if any
  /// "http://host:port/path"
  std::string to_string() const;
  /// "http://host:port", what the HTTP client connects to.
  std::string origin() const;
};

/// Parses http[s]://host[:port][/path]; anything else is refused with the reason.
Expected<HttpUrl> parse_http_url(std::string_view text);

struct FetchOptions {
  std::chrono::milliseconds connect_timeout{2000};
  std::chrono::milliseconds read_timeout{5000};
  int retries = 1;                         ///< extra attempts after a connection failure
  std::size_t max_body_bytes = 64u << 20;  ///< larger bodies are refused, not truncated
  std::string bearer_token;                ///< Authorization: Bearer …
  std::string basic_user;                  ///< Authorization: Basic … (with basic_password)
  std::string basic_password;
  std::string accept;  ///< Accept header, when set
};

/// The credentials of FetchOptions on their own, for specs that carry them to a fetch (never
/// shown): a bearer token, or a user and password for basic auth.
struct HttpAuth {
  std::string bearer_token;
  std::string basic_user;
  std::string basic_password;

  static HttpAuth of(const FetchOptions& o) {
    return {o.bearer_token, o.basic_user, o.basic_password};
  }
  void apply_to(FetchOptions& o) const {
    o.bearer_token = bearer_token;
    o.basic_user = basic_user;
    o.basic_password = basic_password;
  }
};

struct FetchResult {
  int status = 0;
  std::string body;
  std::string content_type;
  std::string date;  ///< the Date header, empty when the server sent none
};

/// `text` with every credential of `options` (the bearer token, the basic password and the
/// base64 "user:password" of the Basic header) replaced by "***": for anything a server
/// sent back (an error body may echo the request) before it reaches a message or a log.
std::string redact_credentials(std::string text, const FetchOptions& options);

/// GETs the URL. Any HTTP status is a result (callers decide what a 500 means); only
/// transport failures, timeouts and oversized bodies are errors.
Expected<FetchResult> http_get(const HttpUrl& url, const FetchOptions& options = {});

}  // namespace limitscope::http
