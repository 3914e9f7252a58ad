// Verifies connections.json: a round trip keeps every field, a password never reaches the file
// (typed in a URL or not), bad files give errors naming the file, line and field and are left
// untouched, the recent list keeps the last eight, and the XDG path rules.
#include "core/connections/connections_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "sample_connections.h"

namespace limitscope::connections {
namespace {

namespace fs = std::filesystem;

class TempDir {
 public:
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "limitscope-conn-XXXXXX").string();
    path_ = ::mkdtemp(tmpl.data());
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

std::string read_all(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void write_all(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << text;
}

ConnectionsDocument sample_document() {
  ConnectionsDocument d;
  SavedConnection r = test::redis_ops_env("prod redis", "redis://10.0.0.5:6379/3");
  r.profiles = "/etc/limitscope/profiles.json";
  r.scan_match = "rl:*";
  d.connections.push_back(r);
  SavedConnection p = test::prometheus_bearer("https://prom.example:9090/prefix");
  p.secret = SecretStorage::keychain;
  p.scrape_interval = std::chrono::seconds(15);
  d.connections.push_back(p);
  d.connections.push_back(test::gateway_metrics_basic());
  d.recent = {"gw", "prod redis"};
  return d;
}

TEST(ConnectionsFile, RoundTripKeepsEveryField) {
  const ConnectionsDocument d = sample_document();
  const std::string text = connections_to_json(d);
  auto back = parse_connections(text, "mem");
  ASSERT_TRUE(back.ok()) << back.error();
  ASSERT_EQ(back->connections.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    const SavedConnection& a = d.connections[i];
    const SavedConnection& b = back->connections[i];
    SCOPED_TRACE(a.name);
    EXPECT_EQ(a.name, b.name);
    EXPECT_EQ(a.kind, b.kind);
    EXPECT_EQ(a.url, b.url);
    EXPECT_EQ(a.user, b.user);
    EXPECT_EQ(a.auth, b.auth);
    EXPECT_EQ(a.secret, b.secret);
    EXPECT_EQ(a.secret_env, b.secret_env);
    EXPECT_EQ(a.profiles, b.profiles);
    EXPECT_EQ(a.scan_match, b.scan_match);
    EXPECT_EQ(a.scrape_interval, b.scrape_interval);
  }
  EXPECT_EQ(back->recent, d.recent);
  EXPECT_EQ(connections_to_json(*back), text);  // stable output
  EXPECT_NE(text.find("\"password_env\":\"PROD_REDIS_PW\""), std::string::npos);
}

TEST(ConnectionsFile, SaveAndLoadThroughTheFileWithOwnerOnlyPermissions) {
  TempDir dir;
  const fs::path path = dir.path() / "limitscope" / "connections.json";
  auto missing = load_connections_file(path);
  ASSERT_TRUE(missing.ok()) << missing.error();
  EXPECT_TRUE(missing->connections.empty());

  ASSERT_TRUE(save_connections_file(path, sample_document()).ok());
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_FALSE(fs::exists(path.string() + ".tmp"));
  auto loaded = load_connections_file(path);
  ASSERT_TRUE(loaded.ok()) << loaded.error();
  EXPECT_EQ(loaded->connections.size(), 3u);
}

TEST(ConnectionsFile, APasswordTypedInTheUrlNeverReachesTheFile) {
  TempDir dir;
  const fs::path path = dir.path() / "connections.json";
  const std::string typed = "redis://ops:Sup3r-S3cret@10.0.0.5:6379/0";
  SavedConnection c;
  c.name = "typed";
  c.kind = ConnectionKind::redis;
  const SplitUrl split = take_url_secret(c.kind, typed);
  ASSERT_TRUE(split.secret.has_value());
  EXPECT_EQ(*split.secret, "Sup3r-S3cret");
  c.url = split.url;
  c.user = split.user.value_or("");
  c.secret = SecretStorage::env;
  c.secret_env = "TYPED_PW";
  ConnectionsDocument d;
  d.connections.push_back(c);
  ASSERT_TRUE(save_connections_file(path, d).ok());
  const std::string text = read_all(path);
  EXPECT_EQ(text.find("Sup3r-S3cret"), std::string::npos) << text;
  EXPECT_NE(text.find("redis://10.0.0.5:6379/0"), std::string::npos) << text;

  // A URL still holding the password is refused, and the file is not touched.
  c.url = typed;
  d.connections = {c};
  auto refused = save_connections_file(path, d);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().find("holds a password"), std::string::npos) << refused.error();
  EXPECT_EQ(refused.error().find("Sup3r-S3cret"), std::string::npos) << refused.error();
  EXPECT_EQ(read_all(path), text);
}

struct BadRow {
  const char* what;
  const char* text;
  const char* expected;  // substring after "<file>:"
};

TEST(ConnectionsFile, BadFilesNameTheLineAndTheField) {
  const BadRow rows[] = {
      {"syntax", "{\n  \"connections\": [\n    {\"name\": \"a\",,}\n  ]\n}\n",
       "f.json:3: not valid JSON"},
      {"not an object", "[1, 2]\n", "f.json:1: expected a JSON object"},
      {"unknown top field", "{\n  \"conections\": []\n}\n", "f.json:2: conections: unknown field"},
      {"version", "{\"version\": 2}", "f.json:1: version: this limitscope reads version 1"},
      // Found by fuzz/connections_fuzz: a number beyond double threw an uncaught
      // json::out_of_range (std::terminate) instead of a line error.
      {"number overflow", "{\n  \"version\": 1e999}", "f.json:2: a number is out of range (1e999)"},
      {"missing kind", "{\"connections\": [\n {\"name\": \"a\",\n  \"url\": \"redis://h\"}\n]}",
       "f.json:2: connections[0].kind: required"},
      {"bad kind",
       "{\"connections\": [\n {\"name\": \"a\",\n  \"kind\": \"mysql\",\n  \"url\": "
       "\"redis://h\"}]}",
       "f.json:3: connections[0].kind: 'mysql': expected redis, metrics or prometheus"},
      {"password field",
       "{\"connections\": [\n {\"name\": \"a\", \"kind\": \"redis\", \"url\": \"redis://h\",\n  "
       "\"password\": \"x\"}]}",
       "f.json:3: connections[0].password: secrets are never stored in this file"},
      {"password in url",
       "{\"connections\": [\n\n {\"name\": \"a\", \"kind\": \"redis\", \"url\": "
       "\"redis://:pw@h\"}]}",
       "f.json:3: connections[0]: connection 'a': url: holds a password"},
      {"typo",
       "{\"connections\": [{\"name\": \"a\", \"kind\": \"redis\", \"url\": \"redis://h\",\n "
       "\"pasword_env\": \"X\"}]}",
       "f.json:2: connections[0].pasword_env: unknown field"},
      {"duplicate",
       "{\"connections\": [{\"name\": \"a\", \"kind\": \"redis\", \"url\": \"redis://h\"},\n"
       " {\"name\": \"a\", \"kind\": \"redis\", \"url\": \"redis://g\"}]}",
       "f.json:2: connections[1].name: 'a' is used twice"},
      {"wrong env field",
       "{\"connections\": [{\"name\": \"p\", \"kind\": \"prometheus\", \"url\": \"http://h\",\n"
       " \"auth\": \"bearer\", \"secret\": \"env\",\n \"password_env\": \"X\"}]}",
       "f.json:3: connections[0].password_env: this connection's secret is read from token_env"},
      {"bad interval",
       "{\"connections\": [{\"name\": \"p\", \"kind\": \"metrics\", \"url\": \"http://h\",\n"
       " \"scrape_interval\": \"soon\"}]}",
       "f.json:2: connections[0].scrape_interval:"},
      {"interval out of bounds",
       "{\"connections\": [{\"name\": \"p\", \"kind\": \"metrics\", \"url\": \"http://h\",\n"
       " \"scrape_interval\": \"11m\"}]}",
       "f.json:1: connections[0]: connection 'p': scrape_interval: 11m is outside 100ms..10m"},
  };
  for (const BadRow& r : rows) {
    SCOPED_TRACE(r.what);
    auto parsed = parse_connections(r.text, "f.json");
    ASSERT_FALSE(parsed.ok());
    EXPECT_EQ(parsed.error().rfind(r.expected, 0), 0u) << parsed.error();
  }
}

TEST(ConnectionsFile, ABadFileIsReportedAndLeftAsItWas) {
  TempDir dir;
  const fs::path path = dir.path() / "connections.json";
  const std::string broken =
      "{\n  \"connections\": [\n    {\"name\": \"prod\", \"kind\": \"redis\"\n";
  write_all(path, broken);
  auto loaded = load_connections_file(path);
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.error().rfind(path.string() + ":4:", 0), 0u) << loaded.error();
  EXPECT_EQ(read_all(path), broken);

  write_all(path, "\n");
  auto empty = load_connections_file(path);
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.error().find(":1: the file is empty"), std::string::npos) << empty.error();
}

TEST(ConnectionsFile, RecentKeepsTheLastEightSavedNames) {
  ConnectionsDocument d;
  for (int i = 0; i < 10; ++i) {
    SavedConnection c;
    c.name = "c" + std::to_string(i);
    c.url = "redis://h" + std::to_string(i);
    d.connections.push_back(c);
    touch_recent(d, c.name);
  }
  touch_recent(d, "c5");
  ASSERT_EQ(d.recent.size(), kMaxRecent);
  EXPECT_EQ(d.recent.front(), "c5");
  EXPECT_EQ(d.recent[1], "c9");
  EXPECT_EQ(std::count(d.recent.begin(), d.recent.end(), "c5"), 1);

  // A recent name that is no longer saved is dropped on reading.
  auto parsed = parse_connections(
      R"({"connections": [{"name": "a", "kind": "redis", "url": "redis://h"}], "recent": ["gone", "a"]})",
      "m");
  ASSERT_TRUE(parsed.ok()) << parsed.error();
  EXPECT_EQ(parsed->recent, std::vector<std::string>{"a"});
}

TEST(ConnectionsFile, PathFollowsXdgConfigHome) {
  auto env_of = [](std::map<std::string, std::string> vars) -> EnvLookup {
    return [vars](const std::string& n) -> std::optional<std::string> {
      const auto it = vars.find(n);
      if (it == vars.end()) return std::nullopt;
      return it->second;
    };
  };
  EXPECT_EQ(connections_file_path(env_of({{"XDG_CONFIG_HOME", "/x/cfg"}, {"HOME", "/home/op"}}))
                ->string(),
            "/x/cfg/limitscope/connections.json");
  EXPECT_EQ(connections_file_path(env_of({{"XDG_CONFIG_HOME", "relative"}, {"HOME", "/home/op"}}))
                ->string(),
            "/home/op/.config/limitscope/connections.json");
  EXPECT_EQ(connections_file_path(env_of({{"HOME", "/home/op"}}))->string(),
            "/home/op/.config/limitscope/connections.json");
  EXPECT_FALSE(connections_file_path(env_of({})).ok());
}

}  // namespace
}  // namespace limitscope::connections
