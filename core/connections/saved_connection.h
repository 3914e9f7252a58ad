#pragma once
// A connection the operator saved: a name, what it connects to (a Redis holding limiter
// state, a gateway's /metrics, a Prometheus server), its URL without any secret, and where
// the secret lives (the system keychain, or an environment variable named here). The secret
// itself is never a member: nothing that writes a SavedConnection can write a password.
//
// A URL typed with credentials in it is split by take_url_secret(): the URL keeps the host,
// the user goes to its own field and the password comes back separately for the keychain.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/common/clock.h"
#include "core/common/expected.h"

namespace limitscope::connections {

enum class ConnectionKind { redis, metrics, prometheus };
std::string_view to_string(ConnectionKind kind);
std::optional<ConnectionKind> parse_connection_kind(std::string_view text);

/// Where the secret (Redis password, basic-auth password or bearer token) lives.
enum class SecretStorage {
  none,      ///< no secret: the server needs none
  keychain,  ///< the system keychain (Secret Service, KWallet, macOS Keychain, ...)
  env,       ///< an environment variable named by `secret_env`
};
std::string_view to_string(SecretStorage storage);
std::optional<SecretStorage> parse_secret_storage(std::string_view text);

/// HTTP authentication for the metrics and Prometheus kinds (Redis always uses AUTH).
enum class HttpAuth { none, basic, bearer };
std::string_view to_string(HttpAuth auth);
std::optional<HttpAuth> parse_http_auth(std::string_view text);

struct SavedConnection {
  std::string name;
  ConnectionKind kind = ConnectionKind::redis;
  std::string url;                 ///< no credentials: redis://host:port/db, http://host:port/path
  std::string user;                ///< Redis ACL user, or the basic-auth user
  HttpAuth auth = HttpAuth::none;  ///< metrics and prometheus only
  SecretStorage secret = SecretStorage::none;
  std::string secret_env;  ///< the variable's name, with SecretStorage::env
  // Options:
  std::string profiles;    ///< redis: a schema profiles file (core/probe/limiter_profile.h)
  std::string scan_match;  ///< redis: SCAN MATCH pattern for discovery and the key browser
  std::optional<Nanos> scrape_interval;  ///< metrics and prometheus: how often to read (100ms..10m)

  /// True when the connection needs a secret to log in.
  bool needs_secret() const;
  /// "PROD_REDIS_PW" style: what the file calls secret_env for this connection
  /// ("password_env" for passwords, "token_env" for a bearer token).
  std::string_view secret_env_field() const;
};

/// Checks everything a connection must satisfy to be saved or opened: a name, a URL of the
/// kind's scheme holding no credentials, an environment variable name with storage env, and
/// options that belong to the kind. @return ok, or the first problem, naming the field
Status validate(const SavedConnection& connection);

/// A valid environment variable name: [A-Za-z_][A-Za-z0-9_]*.
bool is_env_name(std::string_view name);

/// The keychain entry of a connection's secret (service "limitscope").
std::string keychain_key(const SavedConnection& connection);

/// A URL as typed, split into what may be saved and the secret.
struct SplitUrl {
  std::string url;                    ///< the URL without user and password
  std::optional<std::string> user;    ///< the user it named, if any
  std::optional<std::string> secret;  ///< the password it held, if any (percent-decoded)
};

/// Takes the credentials out of a typed URL: "redis://ops:pw@h:6379/0" gives
/// {"redis://h:6379/0", "ops", "pw"}; "redis://pw@h" gives the password only (Redis's older
/// form); "http://u:p@h:9090" gives {"http://h:9090", "u", "p"}. A URL without credentials
/// comes back unchanged.
SplitUrl take_url_secret(ConnectionKind kind, std::string_view typed);

}  // namespace limitscope::connections
