#include "core/redis/redis_url.h"

#include <charconv>
#include <optional>

namespace limitscope::redis {

namespace {

std::optional<int> parse_int(std::string_view s, int lo, int hi) {
  int v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc{} || p != s.data() + s.size() || v < lo || v > hi) {
    return std::nullopt;
  }
  return v;
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::optional<std::string> percent_decode(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '%') {
      out += s[i];
      continue;
    }
    if (i + 2 >= s.size()) return std::nullopt;  // '%' needs two hex digits after it
    const int hi = hex_digit(s[i + 1]);
    const int lo = hex_digit(s[i + 2]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out += static_cast<char>(hi * 16 + lo);
    i += 2;
  }
  return out;
}

// A copy of the URL with the password hidden, for error messages: "user:***@", and "***@" for
// the older form redis://PASSWORD@host, whose single field is the password (it used to be
// echoed in clear), with or without a scheme.
std::string redact_text(std::string_view text) {
  const auto at = text.rfind('@');
  if (at == std::string_view::npos) return std::string(text);
  const auto scheme = text.find("://");
  const std::size_t start = scheme != std::string_view::npos && scheme < at ? scheme + 3 : 0;
  const auto colon = text.find(':', start);
  const std::size_t keep = colon != std::string_view::npos && colon < at ? colon + 1 : start;
  return std::string(text.substr(0, keep)) + "***" + std::string(text.substr(at));
}

Error url_error(std::string_view text, std::string_view reason) {
  return make_error("redis URL '" + redact_text(text) + "': " + std::string(reason));
}

struct HostPort {
  std::string host;
  std::optional<int> port;  // absent: the URL's default stays
};

// "host[:port]" or "[v6][:port]".
// @return the host and port, or the reason it is malformed
Expected<HostPort> parse_host_port(std::string_view hostport) {
  HostPort out;
  std::string_view port_text;
  if (hostport.starts_with("[")) {
    const auto close = hostport.find(']');
    if (close == std::string_view::npos) return make_error("unterminated [IPv6] host");
    out.host = std::string(hostport.substr(1, close - 1));
    const std::string_view after = hostport.substr(close + 1);
    if (!after.empty()) {
      if (after[0] != ':') return make_error("expected ':port' after the [IPv6] host");
      port_text = after.substr(1);
    }
  } else {
    const auto colon = hostport.rfind(':');
    out.host = std::string(hostport.substr(0, colon));
    if (colon != std::string_view::npos) port_text = hostport.substr(colon + 1);
  }
  if (out.host.empty()) return make_error("no host");
  if (!port_text.empty() || hostport.ends_with(":")) {
    out.port = parse_int(port_text, 1, 65535);
    if (!out.port) return make_error("port '" + std::string(port_text) + "' is not in 1..65535");
  }
  return out;
}

std::string host_port_text(const std::string& host, int port) {
  const bool v6 = host.find(':') != std::string::npos;
  return (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

}  // namespace

RedisUrl RedisUrl::node(const std::string& node_host, int node_port) const {
  RedisUrl n = *this;
  n.cluster_seeds.clear();
  n.unix_path.clear();
  n.host = node_host;
  n.port = node_port;
  n.db = 0;
  return n;
}

std::string RedisUrl::redacted() const {
  std::string auth;
  if (!user.empty() || !password.empty()) {
    auth = user + (password.empty() ? "" : ":***") + "@";
  }
  if (cluster()) {
    std::string nodes;
    for (const ClusterSeed& seed : cluster_seeds) {
      nodes += (nodes.empty() ? "" : ",") + host_port_text(seed.host, seed.port);
    }
    return "redis+cluster://" + auth + nodes;
  }
  if (!unix_path.empty()) {
    return "unix://" + auth + unix_path + (db != 0 ? "?db=" + std::to_string(db) : "");
  }
  return "redis://" + auth + host_port_text(host, port) + (db != 0 ? "/" + std::to_string(db) : "");
}

Expected<RedisUrl> parse_redis_url(std::string_view text) {
  RedisUrl url;
  std::string_view rest;
  bool is_unix = false;
  bool is_cluster = false;
  if (text.starts_with("redis+cluster://")) {
    rest = text.substr(16);
    is_cluster = true;
  } else if (text.starts_with("redis://")) {
    rest = text.substr(8);
  } else if (text.starts_with("unix://")) {
    rest = text.substr(7);
    is_unix = true;
  } else if (text.starts_with("rediss://")) {
    return url_error(text,
                     "TLS (rediss://) is not supported by Debian's hiredis 0.14; "
                     "use a local stunnel or ssh tunnel and a redis:// URL");
  } else {
    return url_error(text,
                     "expected redis://[user:password@]host:port/db, unix:///path or "
                     "redis+cluster://[user:password@]host:port,host:port");
  }

  // Credentials: everything before the last '@' (a password may itself contain '@' only
  // percent-encoded, but the last '@' rule also accepts it raw).
  const auto at = rest.rfind('@');
  if (at != std::string_view::npos) {
    const std::string_view cred = rest.substr(0, at);
    rest = rest.substr(at + 1);
    const auto colon = cred.find(':');
    const auto user = percent_decode(cred.substr(0, colon));
    if (!user) return url_error(text, "bad percent-encoding in the user name");
    url.user = *user;
    if (colon != std::string_view::npos) {
      const auto pw = percent_decode(cred.substr(colon + 1));
      if (!pw) return url_error(text, "bad percent-encoding in the password");
      url.password = *pw;
    }
    if (colon == std::string_view::npos && !url.user.empty()) {
      // redis://secret@host is the older form: the single field is the password. (With a
      // colon, redis://user:@host names a user whose password comes from elsewhere: a
      // password file or the environment.)
      url.password = url.user;
      url.user.clear();
    }
  }

  if (is_unix) {
    const auto q = rest.find('?');
    url.unix_path = std::string(rest.substr(0, q));
    if (url.unix_path.empty() || url.unix_path[0] != '/') {
      return url_error(text, "a unix socket URL needs an absolute path (unix:///path)");
    }
    if (q != std::string_view::npos) {
      const std::string_view query = rest.substr(q + 1);
      if (!query.starts_with("db=")) return url_error(text, "the only query parameter is db=N");
      const auto db = parse_int(query.substr(3), 0, 1 << 20);
      if (!db) return url_error(text, "db must be a non-negative integer");
      url.db = *db;
    }
    return url;
  }

  if (is_cluster) {
    // Seed nodes "h:p,h:p"; a trailing "/" or "/0" is accepted (a cluster has only db 0).
    std::string_view nodes = rest;
    if (const auto slash = rest.find('/'); slash != std::string_view::npos) {
      nodes = rest.substr(0, slash);
      const std::string_view db_text = rest.substr(slash + 1);
      if (!db_text.empty() && db_text != "0") {
        return url_error(text,
                         "Redis Cluster has only database 0, got '" + std::string(db_text) + "'");
      }
    }
    while (true) {
      const auto comma = nodes.find(',');
      auto parsed = parse_host_port(nodes.substr(0, comma));
      if (!parsed) {
        return url_error(text, "seed node " + std::to_string(url.cluster_seeds.size() + 1) + ": " +
                                   parsed.error());
      }
      ClusterSeed seed;
      seed.host = std::move(parsed->host);
      if (parsed->port) seed.port = *parsed->port;
      url.cluster_seeds.push_back(std::move(seed));
      if (comma == std::string_view::npos) break;
      nodes = nodes.substr(comma + 1);
    }
    url.host = url.cluster_seeds.front().host;
    url.port = url.cluster_seeds.front().port;
    return url;
  }

  std::string_view hostport = rest;
  const auto slash = rest.find('/');
  if (slash != std::string_view::npos) {
    hostport = rest.substr(0, slash);
    const std::string_view db_text = rest.substr(slash + 1);
    if (!db_text.empty()) {
      const auto db = parse_int(db_text, 0, 1 << 20);
      if (!db)
        return url_error(text,
                         "database '" + std::string(db_text) + "' is not a non-negative integer");
      url.db = *db;
    }
  }
  auto parsed = parse_host_port(hostport);
  if (!parsed) return url_error(text, parsed.error());
  url.host = std::move(parsed->host);
  if (parsed->port) url.port = *parsed->port;
  return url;
}

}  // namespace limitscope::redis
