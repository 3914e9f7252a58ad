#include "core/http/http_fetch.h"

#include <httplib.h>

#include <charconv>

#include "core/common/base64.h"

namespace limitscope::http {

std::string HttpUrl::origin() const {
  return std::string(tls ? "https://" : "http://") + host + ":" + std::to_string(port);
}

std::string HttpUrl::to_string() const {
  return origin() + path;
}

Expected<HttpUrl> parse_http_url(std::string_view text) {
  const std::string shown(text);
  HttpUrl url;
  std::string_view rest;
  if (text.starts_with("https://")) {
    url.tls = true;
    url.port = 443;
    rest = text.substr(8);
  } else if (text.starts_with("http://")) {
    rest = text.substr(7);
  } else {
    return make_error("URL '" + shown + "': expected http://host:port/path");
  }
  const auto slash = rest.find('/');
  std::string_view hostport = rest.substr(0, slash);
  if (slash != std::string_view::npos) url.path = std::string(rest.substr(slash));
  if (hostport.find('@') != std::string_view::npos) {
    return make_error("URL of host '" + std::string(hostport.substr(hostport.find('@') + 1)) +
                      "': put credentials in options, not in the URL");
  }
  const auto colon = hostport.rfind(':');
  url.host = std::string(hostport.substr(0, colon));
  if (colon != std::string_view::npos) {
    const std::string_view p = hostport.substr(colon + 1);
    int port = 0;
    auto [end, ec] = std::from_chars(p.data(), p.data() + p.size(), port);
    if (p.empty() || ec != std::errc{} || end != p.data() + p.size() || port < 1 || port > 65535) {
      return make_error("URL '" + shown + "': port '" + std::string(p) + "' is not in 1..65535");
    }
    url.port = port;
  }
  if (url.host.empty()) return make_error("URL '" + shown + "': no host");
  return url;
}

namespace {

void replace_all(std::string& text, const std::string& secret) {
  if (secret.empty()) return;
  for (std::size_t at = text.find(secret); at != std::string::npos;
       at = text.find(secret, at + 3)) {
    text.replace(at, secret.size(), "***");
  }
}

}  // namespace

std::string redact_credentials(std::string text, const FetchOptions& options) {
  // The longest first, so a password inside the encoded pair cannot leave part of it behind.
  if (!options.basic_user.empty())
    replace_all(text, base64_encode(options.basic_user + ":" + options.basic_password));
  replace_all(text, options.bearer_token);
  replace_all(text, options.basic_password);
  return text;
}

Expected<FetchResult> http_get(const HttpUrl& url, const FetchOptions& options) {
  const std::string where = "GET " + url.to_string();
  for (int attempt = 0;; ++attempt) {
    httplib::Client client(url.origin());
    client.set_connection_timeout(options.connect_timeout);
    client.set_read_timeout(options.read_timeout);
    client.set_write_timeout(options.read_timeout);
    if (!options.bearer_token.empty()) client.set_bearer_token_auth(options.bearer_token.c_str());
    if (!options.basic_user.empty()) {
      client.set_basic_auth(options.basic_user.c_str(), options.basic_password.c_str());
    }
    httplib::Headers headers;
    if (!options.accept.empty()) headers.emplace("Accept", options.accept);
    FetchResult out;
    bool too_big = false;
    auto res = client.Get(
        url.path.c_str(), headers,
        [&](const httplib::Response& r) {
          out.status = r.status;
          out.content_type = r.get_header_value("Content-Type");
          out.date = r.get_header_value("Date");
          return true;
        },
        [&](const char* data, std::size_t n) {
          if (out.body.size() + n > options.max_body_bytes) {
            too_big = true;
            return false;  // stop reading: refuse rather than keep a truncated body
          }
          out.body.append(data, n);
          return true;
        });
    if (too_big) {
      return make_error(where + ": body larger than " + std::to_string(options.max_body_bytes) +
                        " bytes, refused");
    }
    if (res) return out;
    const auto err = res.error();
    const bool retryable = err == httplib::Error::Connection;
    if (!retryable || attempt >= options.retries) {
      std::string why = httplib::to_string(err);
      if (err == httplib::Error::Read) why += " (timed out or the connection closed mid-body)";
      return make_error(where + ": " + why);
    }
  }
}

}  // namespace limitscope::http
