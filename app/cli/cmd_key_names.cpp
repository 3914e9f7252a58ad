// limitscope-cli key-names --policy FILE [--out FILE]: writes the key-names CSV the dashboard
// reads (`limitscope --key-names FILE`): one line "api_key_hash,name" per key the policy names,
// so a dashboard watching a gateway that exports no limitscope_key_info still shows names.
// A raw key is never printed: not in the file, and not in an error (a policy error naming a
// key names it by its hash).

#include <algorithm>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "app/cli/commands.h"
#include "app/options/args.h"
#include "core/common/sha256.h"
#include "core/dashboard/chart_export.h"
#include "core/limiter/policy.h"

namespace limitscope::cli {
namespace {

constexpr std::string_view kName = "key-names";

void replace_all(std::string& text, const std::string& what, const std::string& with) {
  if (what.empty()) return;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + with.size())) {
    text.replace(at, what.size(), with);
  }
}

// The policy's error with every key it lists replaced by "<key sha256:…>": the parser names
// the JSON path, which holds the key.
std::string without_keys(std::string error, const std::string& text) {
  const auto doc = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object() || !doc.contains("keys") || !doc["keys"].is_object()) return error;
  std::vector<std::string> keys;
  for (const auto& [key, v] : doc["keys"].items()) keys.push_back(key);
  // Longest first, so a key that contains another is replaced whole.
  std::sort(keys.begin(), keys.end(),
            [](const auto& a, const auto& b) { return a.size() > b.size(); });
  for (const std::string& key : keys) {
    std::string pointer;  // as the error's JSON pointer spells it
    for (char c : key)
      pointer += c == '~' ? std::string("~0") : c == '/' ? std::string("~1") : std::string(1, c);
    const std::string hashed = "<key sha256:" + api_key_hash(key) + ">";
    replace_all(error, pointer, hashed);
    replace_all(error, key, hashed);
  }
  return error;
}

}  // namespace

int run_key_names(const CommandArgs& argv) {
  const std::vector<OptionSpec> specs = {
      {"policy", "FILE", "the gateway's policy (docs/policy.md); keys with a \"name\" are written"},
      {"out", "FILE", "write the CSV here (default: standard output)"},
  };
  const Expected<Args> command_line = Args::parse(
      kName, "the key-names CSV (api_key_hash,name) of a policy's named keys, without the keys",
      specs, argv);
  if (const auto exit = early_exit(command_line, kName)) return *exit;
  const Args& args = *command_line;
  const auto path = args.get("policy");
  if (!path) return usage_error(kName, "--policy FILE is required");
  std::ifstream in(*path, std::ios::binary);
  if (!in) return usage_error(kName, *path + ": cannot open the policy file");
  std::ostringstream text;
  text << in.rdbuf();
  auto policy = parse_policy(text.str(), *path);
  if (!policy) return usage_error(kName, without_keys(policy.error(), text.str()));

  std::map<std::string, std::string> rows;  // hash → name, sorted for a stable file
  for (const auto& [key, name] : policy->key_names) rows[api_key_hash(key)] = name;
  std::ostringstream csv;
  csv << "api_key_hash,name\n";
  for (const auto& [hash, name] : rows) csv << hash << ',' << csv_field(name) << '\n';
  if (const auto out = args.get("out")) {
    std::ofstream file(*out, std::ios::binary | std::ios::trunc);
    if (!(file << csv.str()) || !file.flush()) return usage_error(kName, *out + ": cannot write");
    std::cerr << kName << ": " << rows.size() << " named key(s) of " << policy->keys.size()
              << " written to " << *out << "\n";
    return 0;
  }
  std::cout << csv.str();
  return 0;
}

}  // namespace limitscope::cli
