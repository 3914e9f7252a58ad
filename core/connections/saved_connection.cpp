#include "core/connections/saved_connection.h"

#include <array>
#include <utility>

#include "core/http/http_fetch.h"
#include "core/limiter/rate.h"
#include "core/redis/redis_url.h"
#include "core/sources/live_source_factory.h"

namespace limitscope::connections {
namespace {

constexpr std::array<std::pair<ConnectionKind, std::string_view>, 3> kKinds{{
    {ConnectionKind::redis, "redis"},
    {ConnectionKind::metrics, "metrics"},
    {ConnectionKind::prometheus, "prometheus"},
}};
constexpr std::array<std::pair<SecretStorage, std::string_view>, 3> kStorages{{
    {SecretStorage::none, "none"},
    {SecretStorage::keychain, "keychain"},
    {SecretStorage::env, "env"},
}};
constexpr std::array<std::pair<HttpAuth, std::string_view>, 3> kAuths{{
    {HttpAuth::none, "none"},
    {HttpAuth::basic, "basic"},
    {HttpAuth::bearer, "bearer"},
}};

template <class E, std::size_t N>
std::string_view name_of(const std::array<std::pair<E, std::string_view>, N>& table, E v) {
  for (const auto& [e, n] : table) {
    if (e == v) return n;
  }
  return "?";
}

template <class E, std::size_t N>
std::optional<E> value_of(const std::array<std::pair<E, std::string_view>, N>& table,
                          std::string_view text) {
  for (const auto& [e, n] : table) {
    if (n == text) return e;
  }
  return std::nullopt;
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Percent-decoding that keeps a malformed escape as typed (the URL parser reports it later).
std::string decode(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size()) {
      const int hi = hex_digit(s[i + 1]);
      const int lo = hex_digit(s[i + 2]);
      if (hi >= 0 && lo >= 0) {
        out += static_cast<char>(hi * 16 + lo);
        i += 2;
        continue;
      }
    }
    out += s[i];
  }
  return out;
}

Error field_error(const SavedConnection& c, std::string_view field, std::string_view reason) {
  const std::string who =
      c.name.empty() ? std::string("connection") : "connection '" + c.name + "'";
  return make_error(who + ": " + std::string(field) + ": " + std::string(reason));
}

bool has_control(std::string_view s) {
  for (char ch : s) {
    if (static_cast<unsigned char>(ch) < 0x20 || ch == 0x7f) return true;
  }
  return false;
}

}  // namespace

std::string_view to_string(ConnectionKind kind) {
  return name_of(kKinds, kind);
}
std::optional<ConnectionKind> parse_connection_kind(std::string_view text) {
  return value_of(kKinds, text);
}
std::string_view to_string(SecretStorage storage) {
  return name_of(kStorages, storage);
}
std::optional<SecretStorage> parse_secret_storage(std::string_view text) {
  return value_of(kStorages, text);
}
std::string_view to_string(HttpAuth auth) {
  return name_of(kAuths, auth);
}
std::optional<HttpAuth> parse_http_auth(std::string_view text) {
  return value_of(kAuths, text);
}

bool SavedConnection::needs_secret() const {
  return kind == ConnectionKind::redis ? secret != SecretStorage::none : auth != HttpAuth::none;
}

std::string_view SavedConnection::secret_env_field() const {
  return kind != ConnectionKind::redis && auth == HttpAuth::bearer ? "token_env" : "password_env";
}

bool is_env_name(std::string_view name) {
  if (name.empty()) return false;
  for (std::size_t i = 0; i < name.size(); ++i) {
    const char ch = name[i];
    const bool letter = (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || ch == '_';
    const bool digit = ch >= '0' && ch <= '9';
    if (!letter && !(digit && i > 0)) return false;
  }
  return true;
}

std::string keychain_key(const SavedConnection& connection) {
  return "connection/" + connection.name;
}

Status validate(const SavedConnection& c) {
  if (c.name.empty()) return field_error(c, "name", "is empty");
  if (c.name.size() > 80) return field_error(c, "name", "longer than 80 characters");
  if (has_control(c.name)) return field_error(c, "name", "holds a control character");
  if (c.url.empty()) return field_error(c, "url", "is empty");

  const SplitUrl split = take_url_secret(c.kind, c.url);
  if (split.secret) {
    return field_error(c, "url",
                       "holds a password; secrets go to the keychain or an "
                       "environment variable (docs/connections.md)");
  }
  if (c.kind == ConnectionKind::redis) {
    if (split.user) return field_error(c, "url", "holds a user name; give it as \"user\"");
    auto parsed = redis::parse_redis_url(c.url);
    if (!parsed) return field_error(c, "url", parsed.error());
    if (c.auth != HttpAuth::none) {
      return field_error(c, "auth", "is for metrics and prometheus connections (Redis uses AUTH)");
    }
    if (!c.user.empty() && c.secret == SecretStorage::none) {
      // redis://user@host means a password in Redis URLs: a user logs in with a password.
      return field_error(c, "user", "a Redis ACL user needs a password (secret keychain or env)");
    }
    if (c.scrape_interval)
      return field_error(c, "scrape_interval", "is for metrics and prometheus connections");
  } else {
    if (split.user) return field_error(c, "url", "holds a user name; give it as \"user\"");
    auto parsed = http::parse_http_url(c.url);
    if (!parsed) return field_error(c, "url", parsed.error());
    if (!c.profiles.empty()) return field_error(c, "profiles", "is for redis connections");
    if (!c.scan_match.empty()) return field_error(c, "scan_match", "is for redis connections");
    if (c.auth == HttpAuth::none && c.secret != SecretStorage::none) {
      return field_error(c, "secret", "set, but auth is none (choose basic or bearer)");
    }
    if (c.auth != HttpAuth::none && c.secret == SecretStorage::none) {
      return field_error(
          c, "secret",
          "auth " + std::string(to_string(c.auth)) + " needs a secret (keychain or env)");
    }
    if (c.auth == HttpAuth::basic && c.user.empty())
      return field_error(c, "user", "basic auth needs a user");
    if (c.auth != HttpAuth::basic && !c.user.empty()) {
      return field_error(c, "user", "only basic auth has a user");
    }
    // The same bounds the dashboard's sources apply, so a file that loads also opens.
    if (c.scrape_interval) {
      if (*c.scrape_interval < kMinLiveInterval || *c.scrape_interval > kMaxLiveInterval) {
        return field_error(c, "scrape_interval",
                           format_duration(*c.scrape_interval) + " is outside " +
                               format_duration(kMinLiveInterval) + ".." +
                               format_duration(kMaxLiveInterval));
      }
    }
  }
  if (has_control(c.user)) return field_error(c, "user", "holds a control character");
  if (c.secret == SecretStorage::env) {
    if (!is_env_name(c.secret_env)) {
      return field_error(c, c.secret_env_field(),
                         c.secret_env.empty() ? "is empty (secret env needs a variable name)"
                                              : "'" + c.secret_env + "' is not a variable name");
    }
  } else if (!c.secret_env.empty()) {
    return field_error(c, c.secret_env_field(), "set, but secret is not env");
  }
  return {};
}

SplitUrl take_url_secret(ConnectionKind kind, std::string_view typed) {
  SplitUrl out;
  out.url = std::string(typed);
  const auto scheme = typed.find("://");
  if (scheme == std::string_view::npos) return out;
  const std::size_t start = scheme + 3;
  std::string_view rest = typed.substr(start);
  std::size_t at = std::string_view::npos;
  if (kind == ConnectionKind::redis) {
    // As parse_redis_url: credentials end at the last '@' (a raw '@' in a password works).
    at = rest.rfind('@');
  } else {
    const std::string_view authority = rest.substr(0, rest.find_first_of("/?#"));
    at = authority.rfind('@');
  }
  if (at == std::string_view::npos) return out;
  const std::string_view cred = rest.substr(0, at);
  const auto colon = cred.find(':');
  const std::string user = decode(cred.substr(0, colon));
  if (colon != std::string_view::npos) {
    const std::string pw = decode(cred.substr(colon + 1));
    if (!pw.empty()) out.secret = pw;
    if (!user.empty()) out.user = user;
  } else if (kind == ConnectionKind::redis) {
    // redis://secret@host: the single field is the password (parse_redis_url's rule).
    if (!user.empty()) out.secret = user;
  } else if (!user.empty()) {
    out.user = user;
  }
  out.url = std::string(typed.substr(0, start)) + std::string(rest.substr(at + 1));
  return out;
}

}  // namespace limitscope::connections
