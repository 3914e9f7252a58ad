#pragma once
// What the audit subcommands share: a comma-separated list of /metrics URLs, the fetch
// options of --timeout and --bearer-token-env (probe's --metrics and --prometheus read them
// too), --policy (default: the embedded policy) and the key names audits show (the policy's
// and --key-names).

#include <string>
#include <vector>

#include "app/options/args.h"
#include "core/common/expected.h"
#include "core/dashboard/key_names.h"
#include "core/http/http_fetch.h"
#include "core/limiter/policy.h"

namespace limitscope::cli {

/// --metrics URL[,URL...]: every URL parsed, or an error naming the one refused.
Expected<std::vector<http::HttpUrl>> metrics_urls(const Args& args);
/// --timeout D and --bearer-token-env VAR: the options audit_fetch_options reads.
std::vector<OptionSpec> audit_fetch_specs();
/// --bearer-token-env VAR: the token $VAR holds, "" without the option, or an error when $VAR
/// is not set.
Expected<std::string> bearer_token_option(const Args& args);
/// --timeout D and --bearer-token-env VAR into fetch options.
Expected<http::FetchOptions> audit_fetch_options(const Args& args);
/// --policy FILE, else the embedded default policy.
Expected<Policy> audit_policy(const Args& args);
/// --key-names FILE: a CSV of api_key_hash,name (core/dashboard/key_names.h).
OptionSpec key_names_spec();
/// The names of `policy`'s keys, with those of --key-names FILE over them.
Expected<KeyNames> audit_key_names(const Args& args, const Policy& policy);

}  // namespace limitscope::cli
