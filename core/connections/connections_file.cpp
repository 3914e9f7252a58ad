#include "core/connections/connections_file.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <tuple>

#include "core/limiter/rate.h"

namespace limitscope::connections {
namespace {

using nlohmann::json;

// Where things are in the text, for errors: json's DOM has no positions, so one pass over the
// text finds the line of each connection object and of each of its keys.
struct ConnectionLines {
  int start = 1;
  std::map<std::string, int> keys;
};

struct TextLines {
  std::vector<ConnectionLines> connections;
  std::map<std::string, int> top_keys;
};

TextLines scan_lines(std::string_view text) {
  TextLines out;
  int line = 1;
  int depth = 0;
  bool in_connections = false;
  std::string last_string;
  int last_string_line = 1;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n') {
      ++line;
    } else if (c == '"') {
      std::string s;
      const int at = line;
      for (++i; i < text.size() && text[i] != '"'; ++i) {
        if (text[i] == '\\' && i + 1 < text.size()) {
          s += text[++i];
          continue;
        }
        if (text[i] == '\n') ++line;
        s += text[i];
      }
      last_string = std::move(s);
      last_string_line = at;
    } else if (c == ':') {
      if (depth == 1) out.top_keys[last_string] = last_string_line;
      if (depth == 3 && in_connections && !out.connections.empty()) {
        out.connections.back().keys.emplace(last_string, last_string_line);
      }
    } else if (c == '{' || c == '[') {
      ++depth;
      if (c == '[' && depth == 2 && last_string == "connections") in_connections = true;
      if (c == '{' && depth == 3 && in_connections) out.connections.push_back({line, {}});
      last_string.clear();
    } else if (c == '}' || c == ']') {
      if (depth == 2) in_connections = false;
      --depth;
    }
  }
  return out;
}

int line_of_byte(std::string_view text, std::size_t byte) {
  byte = std::min(byte, text.size());
  return 1 + static_cast<int>(
                 std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(byte), '\n'));
}

// Fields a secret would be written under by hand: refused with the reason, not as "unknown".
const std::set<std::string, std::less<>> kSecretFields = {
    "password", "pass", "token", "bearer_token", "basic_password", "secret_value", "auth_token"};
const std::set<std::string, std::less<>> kFields = {
    "name",         "kind",      "url",      "user",       "auth",           "secret",
    "password_env", "token_env", "profiles", "scan_match", "scrape_interval"};

class Reader {
 public:
  Reader(std::string_view text, std::string_view source) : text_(text), source_(source) {}

  Expected<ConnectionsDocument> read() {
    json root;
    try {
      root = json::parse(text_);
    } catch (const json::parse_error& e) {
      // e.byte is 1-based, just past the offending character.
      const std::size_t at = e.byte > 0 ? e.byte - 1 : 0;
      std::string what = e.what();
      const auto cut = what.find("; last read");
      const auto colon = what.find(": ", what.find("parse error"));
      const std::string reason =
          colon != std::string::npos && cut != std::string::npos && cut > colon
              ? what.substr(colon + 2, cut - colon - 2)
              : "not valid JSON";
      return fail(line_of_byte(text_, at), "", "not valid JSON (" + reason + ")");
    } catch (const json::out_of_range& e) {
      // A number beyond double (1e999) is valid JSON the parser cannot hold; its text is in
      // the message ("number overflow parsing '1e999'"), which finds its line.
      const std::string what = e.what();
      const auto open = what.find('\'');
      const auto close = open == std::string::npos ? open : what.find('\'', open + 1);
      const std::string number =
          close == std::string::npos ? "" : what.substr(open + 1, close - open - 1);
      const auto at = number.empty() ? std::string_view::npos : text_.find(number);
      return fail(at == std::string_view::npos ? 1 : line_of_byte(text_, at), "",
                  "a number is out of range" + (number.empty() ? "" : " (" + number + ")"));
    }
    lines_ = scan_lines(text_);
    if (!root.is_object()) return fail(1, "", "expected a JSON object {\"connections\": [...]}");
    for (auto it = root.begin(); it != root.end(); ++it) {
      if (it.key() != "version" && it.key() != "connections" && it.key() != "recent") {
        return fail(top_line(it.key()), it.key(),
                    "unknown field (expected version, connections, recent)");
      }
    }
    if (root.contains("version")) {
      const json& v = root["version"];
      if (!v.is_number_integer() || v.get<long long>() != 1) {
        return fail(top_line("version"), "version", "this limitscope reads version 1");
      }
    }
    ConnectionsDocument doc;
    if (root.contains("connections")) {
      const json& list = root["connections"];
      if (!list.is_array())
        return fail(top_line("connections"), "connections", "expected an array");
      std::set<std::string> names;
      for (std::size_t i = 0; i < list.size(); ++i) {
        auto c = read_connection(list[i], i);
        if (!c) return make_error(c.error());
        if (!names.insert(c->name).second) {
          return fail(conn_line(i, "name"), path(i, "name"), "'" + c->name + "' is used twice");
        }
        doc.connections.push_back(std::move(*c));
      }
    }
    if (root.contains("recent")) {
      const json& recent = root["recent"];
      if (!recent.is_array())
        return fail(top_line("recent"), "recent", "expected an array of names");
      for (const json& n : recent) {
        if (!n.is_string()) return fail(top_line("recent"), "recent", "expected an array of names");
        // A name no longer saved is dropped: the list only orders saved connections.
        const std::string name = n.get<std::string>();
        if (doc.find(name) != nullptr &&
            std::find(doc.recent.begin(), doc.recent.end(), name) == doc.recent.end() &&
            doc.recent.size() < kMaxRecent) {
          doc.recent.push_back(name);
        }
      }
    }
    return doc;
  }

 private:
  Error fail(int line, const std::string& json_path, const std::string& reason) const {
    return make_error(std::string(source_) + ":" + std::to_string(line) + ": " +
                      (json_path.empty() ? "" : json_path + ": ") + reason);
  }
  int top_line(const std::string& key) const {
    const auto it = lines_.top_keys.find(key);
    return it != lines_.top_keys.end() ? it->second : 1;
  }
  int conn_line(std::size_t i, const std::string& key) const {
    if (i >= lines_.connections.size()) return top_line("connections");
    const auto& c = lines_.connections[i];
    const auto it = c.keys.find(key);
    return it != c.keys.end() ? it->second : c.start;
  }
  static std::string path(std::size_t i, const std::string& key) {
    return "connections[" + std::to_string(i) + "]" + (key.empty() ? "" : "." + key);
  }

  Expected<std::string> text_field(const json& o, std::size_t i, const std::string& key,
                                   bool required) {
    if (!o.contains(key)) {
      if (required) return fail(conn_line(i, ""), path(i, key), "required");
      return std::string();
    }
    if (!o[key].is_string()) return fail(conn_line(i, key), path(i, key), "expected a string");
    return o[key].get<std::string>();
  }

  // What `text`, field `key` of connection i, names by `parse` (parse_http_auth, ...); an error
  // naming the field and the `expected` names when it names nothing.
  template <class T>
  Expected<T> named_field(std::size_t i, const std::string& key, const std::string& text,
                          std::optional<T> (*parse)(std::string_view), const char* expected) {
    const std::optional<T> v = parse(text);
    if (!v) return fail(conn_line(i, key), path(i, key), "'" + text + "': expected " + expected);
    return *v;
  }

  Expected<SavedConnection> read_connection(const json& o, std::size_t i) {
    if (!o.is_object()) return fail(conn_line(i, ""), path(i, ""), "expected an object");
    for (auto it = o.begin(); it != o.end(); ++it) {
      if (kSecretFields.count(it.key()) != 0) {
        return fail(conn_line(i, it.key()), path(i, it.key()),
                    "secrets are never stored in this file; use \"secret\": \"keychain\" or "
                    "\"env\" with password_env/token_env (docs/connections.md)");
      }
      if (kFields.count(it.key()) == 0)
        return fail(conn_line(i, it.key()), path(i, it.key()), "unknown field");
    }
    SavedConnection c;
    std::string kind;
    std::string auth;
    std::string secret;
    std::string interval;
    const std::tuple<const char*, std::string*, bool> fields[] = {
        {"name", &c.name, true},
        {"kind", &kind, true},
        {"url", &c.url, true},
        {"user", &c.user, false},
        {"auth", &auth, false},
        {"secret", &secret, false},
        {"profiles", &c.profiles, false},
        {"scan_match", &c.scan_match, false},
        {"scrape_interval", &interval, false}};
    for (const auto& [key, out, required] : fields) {
      auto v = text_field(o, i, key, required);
      if (!v) return make_error(v.error());
      *out = std::move(*v);
    }
    const auto k =
        named_field(i, "kind", kind, parse_connection_kind, "redis, metrics or prometheus");
    if (!k) return make_error(k.error());
    c.kind = *k;
    if (!auth.empty()) {
      const auto a = named_field(i, "auth", auth, parse_http_auth, "none, basic or bearer");
      if (!a) return make_error(a.error());
      c.auth = *a;
    }
    if (!secret.empty()) {
      const auto s =
          named_field(i, "secret", secret, parse_secret_storage, "none, keychain or env");
      if (!s) return make_error(s.error());
      c.secret = *s;
    }
    const std::string env_field(c.secret_env_field());
    const std::string other_field = env_field == "password_env" ? "token_env" : "password_env";
    if (o.contains(other_field)) {
      return fail(conn_line(i, other_field), path(i, other_field),
                  "this connection's secret is read from " + env_field);
    }
    auto env = text_field(o, i, env_field, false);
    if (!env) return make_error(env.error());
    c.secret_env = std::move(*env);
    if (!interval.empty()) {
      auto d = parse_duration(interval);
      if (!d) return fail(conn_line(i, "scrape_interval"), path(i, "scrape_interval"), d.error());
      c.scrape_interval = *d;
    }
    if (Status valid = validate(c); !valid.ok()) {
      return fail(conn_line(i, ""), path(i, ""), valid.error());
    }
    return c;
  }

  std::string_view text_;
  std::string_view source_;
  TextLines lines_;
};

}  // namespace

const SavedConnection* ConnectionsDocument::find(std::string_view name) const {
  for (const SavedConnection& c : connections) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

Expected<ConnectionsDocument> parse_connections(std::string_view text, std::string_view source) {
  return Reader(text, source).read();
}

std::string connections_to_json(const ConnectionsDocument& document) {
  // One connection per line, fields in the documented order.
  std::string out = "{\n  \"version\": 1,\n  \"connections\": [";
  for (std::size_t i = 0; i < document.connections.size(); ++i) {
    const SavedConnection& c = document.connections[i];
    nlohmann::ordered_json o;
    o["name"] = c.name;
    o["kind"] = std::string(to_string(c.kind));
    o["url"] = c.url;
    if (!c.user.empty()) o["user"] = c.user;
    if (c.kind != ConnectionKind::redis && c.auth != HttpAuth::none)
      o["auth"] = std::string(to_string(c.auth));
    if (c.secret != SecretStorage::none) o["secret"] = std::string(to_string(c.secret));
    if (c.secret == SecretStorage::env) o[std::string(c.secret_env_field())] = c.secret_env;
    if (!c.profiles.empty()) o["profiles"] = c.profiles;
    if (!c.scan_match.empty()) o["scan_match"] = c.scan_match;
    if (c.scrape_interval) o["scrape_interval"] = format_duration(*c.scrape_interval);
    out += (i == 0 ? "\n    " : ",\n    ") + o.dump();
  }
  out += document.connections.empty() ? "],\n" : "\n  ],\n";
  out += "  \"recent\": " + json(document.recent).dump() + "\n}\n";
  return out;
}

Expected<ConnectionsDocument> load_connections_file(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return ConnectionsDocument{};
  std::ifstream in(path, std::ios::binary);
  if (!in) return make_error(path.string() + ": cannot read (" + std::strerror(errno) + ")");
  std::ostringstream text;
  text << in.rdbuf();
  const std::string body = text.str();
  if (body.find_first_not_of(" \t\r\n") == std::string::npos) {
    return make_error(path.string() + ":1: the file is empty (expected {\"connections\": [...]})");
  }
  return parse_connections(body, path.string());
}

Status save_connections_file(const std::filesystem::path& path,
                             const ConnectionsDocument& document) {
  for (const SavedConnection& c : document.connections) {
    if (Status valid = validate(c); !valid.ok()) {
      return make_error(path.string() + ": not saved: " + valid.error());
    }
  }
  std::error_code ec;
  std::filesystem::create_directories(path.parent_path(), ec);
  if (ec) return make_error(path.parent_path().string() + ": cannot create (" + ec.message() + ")");
  const std::filesystem::path tmp = path.string() + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return make_error(tmp.string() + ": cannot write (" + std::strerror(errno) + ")");
    // Names, URLs and variable names only; still nobody else's business.
    ::chmod(tmp.c_str(), 0600);
    out << connections_to_json(document);
    out.flush();
    if (!out) return make_error(tmp.string() + ": write failed (" + std::strerror(errno) + ")");
  }
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::filesystem::remove(tmp, ec);
    return make_error(path.string() + ": cannot replace (" + ec.message() + ")");
  }
  return {};
}

void touch_recent(ConnectionsDocument& document, const std::string& name) {
  auto& r = document.recent;
  r.erase(std::remove(r.begin(), r.end(), name), r.end());
  r.insert(r.begin(), name);
  if (r.size() > kMaxRecent) r.resize(kMaxRecent);
}

EnvLookup process_env() {
  return [](const std::string& name) -> std::optional<std::string> {
    const char* v = std::getenv(name.c_str());
    if (v == nullptr) return std::nullopt;
    return std::string(v);
  };
}

Expected<std::filesystem::path> connections_file_path(const EnvLookup& env) {
  const auto xdg = env("XDG_CONFIG_HOME");
  if (xdg && !xdg->empty() && (*xdg)[0] == '/') {
    return std::filesystem::path(*xdg) / "limitscope" / "connections.json";
  }
  const auto home = env("HOME");
  if (home && !home->empty())
    return std::filesystem::path(*home) / ".config" / "limitscope" / "connections.json";
  return make_error("neither XDG_CONFIG_HOME nor HOME is set: no place for connections.json");
}

}  // namespace limitscope::connections
