#pragma once
// From a saved connection to something that can connect: the secret is looked up where the
// connection says it lives (an environment variable, or what the keychain returned) and put
// where the client needs it (the Redis URL's password, HTTP basic or bearer auth). The result
// lives in memory only; it is never written anywhere.

#include <optional>
#include <string>

#include "core/common/expected.h"
#include "core/connections/connections_file.h"
#include "core/connections/saved_connection.h"
#include "core/http/http_fetch.h"
#include "core/redis/redis_password.h"
#include "core/redis/redis_url.h"

namespace limitscope::connections {

struct ResolvedConnection {
  SavedConnection saved;
  // kind redis:
  redis::RedisUrl redis_url;   ///< with user and password
  std::string redis_url_text;  ///< the same as text (password percent-encoded), for openRedis
  // kinds metrics and prometheus:
  http::HttpUrl http_url;
  http::FetchOptions fetch;  ///< basic or bearer auth filled in
};

/// Resolves `connection`'s secret and target.
/// @param env looks up environment variables (process_env() outside tests)
/// @param keychain_secret what the keychain holds for keychain_key(connection), read by the
///        caller (the keychain is asynchronous and lives in the UI); nullopt when not found
/// @return the target, or an error naming the connection and what is missing
Expected<ResolvedConnection> resolve_connection(const SavedConnection& connection,
                                                const EnvLookup& env,
                                                const std::optional<std::string>& keychain_secret);

/// Where a connection's secret comes from, as the GUI decides it when testing or opening one.
struct SecretPlan {
  SavedConnection connection;  ///< what to resolve: with a session secret, kept in the keychain
  /// The session secret, passed to resolve_connection() as the keychain's.
  std::optional<std::string> secret;
  /// The caller reads the keychain (asynchronously) and passes what it holds.
  bool read_keychain = false;
};

/// The precedence of a connection's secret sources: a secret typed for this session (in the
/// connection form, or given when opening) wins over what the connection says, for any Redis
/// connection and any connection with auth; then the keychain, when the connection keeps its
/// secret there; else the environment variable it names (or none), read by
/// resolve_connection(). The typed secret is never written anywhere.
/// @param session_secret "" when none was typed
SecretPlan plan_secret(const SavedConnection& connection, const std::string& session_secret);

/// `url` (no credentials) with user and password put back in, percent-encoded:
/// ("redis://h:6379/0", "ops", "p@ss") gives "redis://ops:p%40ss@h:6379/0".
std::string redis_url_with_credentials(const std::string& url, const std::string& user,
                                       const std::string& password);

/// The text of a --redis URL given on a command line, with the password from `password_file`
/// (a path, when given) or else `env_value` (LIMITSCOPE_REDIS_PASSWORD's value) put in, by the
/// same rules as the CLI and the gateway (redis::apply_password_source: the file must be 0600
/// or 0400; a URL carrying a password as well is refused). For the GUI, which passes URLs as
/// text. Unchanged when neither source gives a password.
/// @return the URL text (password percent-encoded), or an error that never holds the password
Expected<std::string> redis_url_text_with_password_source(
    const std::string& url_text, const std::optional<std::string>& password_file,
    const char* env_value);

}  // namespace limitscope::connections
