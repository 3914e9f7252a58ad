#pragma once
// The saved-connections file, $XDG_CONFIG_HOME/limitscope/connections.json (default
// ~/.config/limitscope/connections.json), docs/connections.md:
//
//   {"version": 1,
//    "connections": [
//      {"name": "prod", "kind": "redis", "url": "redis://10.0.0.5:6379/0", "user": "ops",
//       "secret": "env", "password_env": "PROD_REDIS_PW", "profiles": "/etc/ls/profiles.json",
//       "scan_match": "rl:*"},
//      {"name": "prom", "kind": "prometheus", "url": "http://prom:9090", "auth": "bearer",
//       "secret": "keychain", "scrape_interval": "15s"}],
//    "recent": ["prod", "prom"]}
//
// Reading is strict (an unknown field is a typo until proven otherwise, and a "password"
// field is refused outright); errors name the file, the line and the JSON path. A file that
// cannot be read is never replaced: saving over it is the caller's decision, refused while
// the last load failed. Writing goes to a temporary file renamed over the old one (0600).

#include <cstddef>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/common/expected.h"
#include "core/connections/saved_connection.h"

namespace limitscope::connections {

struct ConnectionsDocument {
  std::vector<SavedConnection> connections;
  std::vector<std::string> recent;  ///< names, most recent first, at most kMaxRecent

  const SavedConnection* find(std::string_view name) const;
};

inline constexpr std::size_t kMaxRecent = 8;

/// Parses a connections document. `source` names it in errors ("…/connections.json").
/// Errors: "<source>:<line>: <json path>: <reason>".
Expected<ConnectionsDocument> parse_connections(std::string_view text, std::string_view source);

/// The document as JSON (2-space indent, a trailing newline): what parse_connections() reads.
std::string connections_to_json(const ConnectionsDocument& document);

/// Reads the file; a file that does not exist is an empty document (first run).
Expected<ConnectionsDocument> load_connections_file(const std::filesystem::path& path);

/// Writes the document (creating the directory), through a temporary file and a rename, with
/// permissions 0600. Every connection is validated first: nothing invalid is written.
/// @return ok, or why nothing was written (naming the file or the connection's field)
Status save_connections_file(const std::filesystem::path& path,
                             const ConnectionsDocument& document);

/// Moves `name` to the front of the recent list (kMaxRecent kept).
void touch_recent(ConnectionsDocument& document, const std::string& name);

/// Looks up an environment variable; nullopt when unset.
using EnvLookup = std::function<std::optional<std::string>(const std::string&)>;
/// The process environment (std::getenv).
EnvLookup process_env();

/// $XDG_CONFIG_HOME/limitscope/connections.json when XDG_CONFIG_HOME is an absolute path,
/// else $HOME/.config/limitscope/connections.json (XDG Base Directory rules). Error when
/// neither variable helps.
Expected<std::filesystem::path> connections_file_path(const EnvLookup& env);

}  // namespace limitscope::connections
