// limitscope-cli probe --redis: finds the limiter keys in a Redis (ours and other gateways'
// schemas, by profile) with a full SCAN pass and prints each key's level or window occupancy
// at the server's time. Exit 0 when the probe ran (per-key problems are in the output), 2 on
// bad usage, unreadable profiles or an unreachable server.

#include <iostream>
#include <nlohmann/json.hpp>

#include "app/cli/commands.h"
#include "app/cli/redis_options.h"
#include "core/probe/redis_probe.h"

namespace limitscope::cli {

namespace {

constexpr const char* kName = "probe";

template <class T>
nlohmann::json opt(const std::optional<T>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

nlohmann::json key_json(const probe::KeyReading& k) {
  nlohmann::json j{{"key", k.key}, {"profile", k.profile}, {"kind", std::string(probe::to_string(k.kind))}};
  j["level"] = opt(k.level);
  j["capacity"] = opt(k.capacity);
  j["fill"] = opt(k.fill);
  j["count"] = opt(k.count);
  j["limit"] = opt(k.limit);
  j["occupancy"] = opt(k.occupancy);
  j["ttl_ms"] = opt(k.ttl_ms);
  j["error"] = k.error.empty() ? nlohmann::json(nullptr) : nlohmann::json(k.error);
  return j;
}

}  // namespace

int run_probe(const CommandArgs& argv) {
  std::vector<OptionSpec> specs{
      {"redis", "URL", "redis://[user:password@]host:port/db or unix:///path"},
      {"profiles", "FILE", "schema profiles (JSON), tried before the built-in ones"},
      {"match", "PATTERN", "SCAN MATCH pattern (default *)"},
      {"max-keys", "N", "keep at most N keys, the ones under the most pressure (default 10000)"},
      {"timeout", "D", "connect and command timeout (default 5s)"},
      {"json", "", "print the result as JSON"},
  };
  Args args(kName, "read limiter keys (any known schema) at the server's time", specs, argv);
  if (args.help_requested()) {
    std::cout << args.usage();
    return 0;
  }
  if (!args.ok()) return usage_error(kName, args.error());
  if (!args.get("redis")) return usage_error(kName, "--redis URL is required");
  auto options = parse_redis_options(args);
  if (!options) return usage_error(kName, options.error());
  if (!args.get("timeout")) {
    options->connect.connect_timeout = std::chrono::seconds(5);
    options->connect.command_timeout = std::chrono::seconds(5);
  }
  std::vector<probe::LimiterProfile> profiles;
  if (auto file = args.get("profiles")) {
    auto loaded = probe::load_profiles_file(*file);
    if (!loaded) return usage_error(kName, loaded.error());
    profiles = std::move(loaded).value();
  }
  for (auto& p : probe::builtin_profiles()) profiles.push_back(std::move(p));
  probe::ProbeOptions po;
  if (auto m = args.get("match")) po.match = *m;
  auto max_keys = integer_option(args, "max-keys", 10000, 1, 10'000'000);
  if (!max_keys) return usage_error(kName, max_keys.error());
  po.max_tracked = static_cast<std::size_t>(*max_keys);

  auto conn = redis::Connection::open(options->url, options->connect);
  if (!conn) return usage_error(kName, conn.error().message);
  probe::RedisProbe probe(std::move(profiles), po);
  auto snap = probe.probe_all(*conn);
  if (!snap) return usage_error(kName, snap.error().message);

  if (args.has("json")) {
    nlohmann::json j;
    j["server_time"] = static_cast<double>(snap->server_time_us) / 1e6;
    j["keys"] = nlohmann::json::array();
    for (const auto& k : snap->keys) j["keys"].push_back(key_json(k));
    j["unmatched"] = snap->unmatched;
    j["dropped"] = snap->dropped;
    j["errors"] = snap->errors;
    std::cout << j.dump() << "\n";
    return 0;
  }
  std::cout << snap->keys.size() << " limiter keys (" << snap->unmatched
            << " other keys), most pressure first:\n";
  for (const auto& k : snap->keys) {
    std::cout << "  " << k.key << "  [" << k.profile << "]  ";
    if (!k.error.empty()) {
      std::cout << "error: " << k.error;
    } else if (k.fill) {
      std::cout << "level " << *k.level << " / " << *k.capacity << " (" << (*k.fill * 100) << "% full)";
    } else if (k.occupancy) {
      std::cout << "window " << *k.count << " / " << *k.limit << " (" << (*k.occupancy * 100) << "% used)";
    } else if (k.level) {
      std::cout << "stored level " << *k.level << " (no capacity in the profile)";
    }
    if (k.ttl_ms) std::cout << "  ttl " << *k.ttl_ms << " ms";
    std::cout << "\n";
  }
  for (const auto& e : snap->errors) std::cout << "error: " << e << "\n";
  return 0;
}

}  // namespace limitscope::cli
