#include "app/cli/audit_options.h"

#include <cstdlib>

#include "core/audit/audit_names.h"
#include "core/limiter/rate.h"

namespace limitscope::cli {

Expected<std::vector<http::HttpUrl>> metrics_urls(const Args& args) {
  std::vector<http::HttpUrl> out;
  const std::string list = args.get("metrics").value_or("");
  std::size_t start = 0;
  while (start <= list.size()) {
    const std::size_t comma = std::min(list.find(',', start), list.size());
    const std::string one = list.substr(start, comma - start);
    auto url = http::parse_http_url(one);
    if (!url) return make_error("--metrics: \"" + one + "\": " + url.error());
    out.push_back(std::move(url).value());
    start = comma + 1;
  }
  return out;
}

std::vector<OptionSpec> audit_fetch_specs() {
  return {{"timeout", "D", "read timeout of each fetch (default 5s)"},
          {"bearer-token-env", "VAR", "send the bearer token in $VAR"}};
}

Expected<std::string> bearer_token_option(const Args& args) {
  const auto var = args.get("bearer-token-env");
  if (!var) return std::string();
  const char* v = std::getenv(var->c_str());
  if (v == nullptr) return make_error("--bearer-token-env: $" + *var + " is not set");
  return std::string(v);
}

Expected<http::FetchOptions> audit_fetch_options(const Args& args) {
  http::FetchOptions fo;
  if (auto t = args.get("timeout")) {
    auto d = parse_duration(*t);
    if (!d) return make_error("--timeout: " + d.error());
    fo.read_timeout = std::chrono::duration_cast<std::chrono::milliseconds>(*d);
  }
  auto token = bearer_token_option(args);
  if (!token) return make_error(token.error());
  fo.bearer_token = std::move(*token);
  return fo;
}

Expected<Policy> audit_policy(const Args& args) {
  if (auto file = args.get("policy")) {
    auto p = load_policy_file(*file);
    if (!p) return make_error("--policy: " + p.error());
    return std::move(p).value();
  }
  return default_policy();
}

OptionSpec key_names_spec() {
  return {"key-names", "FILE",
          "names of API keys, a CSV of api_key_hash,name (limitscope-cli key-names writes one)"};
}

Expected<KeyNames> audit_key_names(const Args& args, const Policy& policy) {
  KeyNames names = audit::policy_key_names(policy);
  if (auto file = args.get("key-names")) {
    auto more = load_key_names_file(*file);
    if (!more) return make_error("--key-names: " + more.error());
    names.merge(*more);
  }
  return names;
}

}  // namespace limitscope::cli
