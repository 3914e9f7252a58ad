#include "core/connections/secret_resolution.h"

#include "core/probe/prometheus_client.h"

namespace limitscope::connections {
namespace {

Error resolve_error(const SavedConnection& c, const std::string& reason) {
  return make_error("connection '" + c.name + "': " + reason);
}

std::string secret_noun(const SavedConnection& c) {
  return c.kind != ConnectionKind::redis && c.auth == HttpAuth::bearer ? "bearer token"
                                                                       : "password";
}

}  // namespace

std::string redis_url_with_credentials(const std::string& url, const std::string& user,
                                       const std::string& password) {
  if (user.empty() && password.empty()) return url;
  const auto scheme = url.find("://");
  if (scheme == std::string::npos) return url;
  // A password alone is written ":password@" (an empty user), never "password@", so a
  // password that looks like a user name is not misread.
  const std::string cred = probe::url_encode(user) + ":" + probe::url_encode(password) + "@";
  return url.substr(0, scheme + 3) + cred + url.substr(scheme + 3);
}

Expected<std::string> redis_url_text_with_password_source(
    const std::string& url_text, const std::optional<std::string>& password_file,
    const char* env_value) {
  auto url = redis::parse_redis_url(url_text);
  if (!url) return make_error(url.error());
  const bool had_password = !url->password.empty();
  if (Status why = redis::apply_password_source(*url, password_file, env_value); !why.ok()) {
    return make_error(why.error());
  }
  if (had_password || url->password.empty()) return url_text;
  // The URL names no password here (else apply_password_source refused): drop its user part
  // (everything before the last '@', as parse_redis_url reads it) and write both back.
  const auto scheme = url_text.find("://");
  std::string rest = url_text.substr(scheme + 3);
  if (const auto at = rest.rfind('@'); at != std::string::npos) rest = rest.substr(at + 1);
  const std::string bare = url_text.substr(0, scheme + 3) + rest;
  return redis_url_with_credentials(bare, url->user, url->password);
}

Expected<ResolvedConnection> resolve_connection(const SavedConnection& connection,
                                                const EnvLookup& env,
                                                const std::optional<std::string>& keychain_secret) {
  if (Status valid = validate(connection); !valid.ok()) return make_error(valid.error());
  ResolvedConnection r;
  r.saved = connection;
  std::string secret;
  switch (connection.secret) {
    case SecretStorage::none:
      break;
    case SecretStorage::env: {
      const auto v = env(connection.secret_env);
      if (!v) {
        return resolve_error(connection, "environment variable " + connection.secret_env +
                                             " is not set (it holds the " +
                                             secret_noun(connection) + ")");
      }
      if (v->empty())
        return resolve_error(connection,
                             "environment variable " + connection.secret_env + " is empty");
      secret = *v;
      break;
    }
    case SecretStorage::keychain:
      if (!keychain_secret || keychain_secret->empty()) {
        return resolve_error(connection, "the keychain holds no " + secret_noun(connection) +
                                             " for it (entry " + keychain_key(connection) + ")");
      }
      secret = *keychain_secret;
      break;
  }

  if (connection.kind == ConnectionKind::redis) {
    r.redis_url_text = redis_url_with_credentials(connection.url, connection.user, secret);
    auto parsed = redis::parse_redis_url(r.redis_url_text);
    if (!parsed) return resolve_error(connection, parsed.error());
    r.redis_url = std::move(*parsed);
    return r;
  }
  auto http = http::parse_http_url(connection.url);
  if (!http) return resolve_error(connection, http.error());
  r.http_url = std::move(*http);
  if (connection.auth == HttpAuth::basic) {
    r.fetch.basic_user = connection.user;
    r.fetch.basic_password = secret;
  } else if (connection.auth == HttpAuth::bearer) {
    r.fetch.bearer_token = secret;
  }
  return r;
}

SecretPlan plan_secret(const SavedConnection& connection, const std::string& session_secret) {
  SecretPlan plan;
  plan.connection = connection;
  if (!session_secret.empty() &&
      (connection.needs_secret() || connection.kind == ConnectionKind::redis)) {
    plan.connection.secret = SecretStorage::keychain;
    plan.connection.secret_env.clear();
    plan.secret = session_secret;
    return plan;
  }
  plan.read_keychain = connection.secret == SecretStorage::keychain;
  return plan;
}

}  // namespace limitscope::connections
