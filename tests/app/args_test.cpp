// The command-line layer shared by limitscope-cli and limitscope-gateway (app/options/args.h,
// on CLI11): the forms it reads, the usage errors it reports (each naming the flag), --help,
// and the shared Redis options' specs and aliases (app/options/redis_flags.h).

#include "app/options/args.h"

#include <gtest/gtest.h>

#include "app/options/redis_flags.h"
#include "support/refusals.h"

namespace limitscope::cli {
namespace {

const std::vector<OptionSpec> kSpecs = {
    {"rule", "NAME", "the rule"},
    {"tag", "T", "a tag", true},
    {"json", "", "print JSON"},
    {"seed", "N", "a seed"},
};

Expected<Args> parse(const std::vector<std::string>& argv, bool positional = false) {
  return Args::parse("decide", "One decision.", kSpecs, argv, positional);
}

TEST(Args, ReadsSpaceAndEqualsFormsFlagsRepeatsAndPositionals) {
  const Expected<Args> parsed =
      parse({"--rule", "pro", "--tag=a", "--json", "--tag", "b", "file1", "file2"}, true);
  ASSERT_TRUE(parsed.ok()) << parsed.error();
  const Args& a = *parsed;
  EXPECT_EQ(a.get("rule"), "pro");
  EXPECT_EQ(a.all("tag"), (std::vector<std::string>{"a", "b"}));
  EXPECT_TRUE(a.has("json"));
  EXPECT_FALSE(a.has("seed"));
  EXPECT_EQ(a.get("seed"), std::nullopt);
  EXPECT_EQ(a.positional(), (std::vector<std::string>{"file1", "file2"}));
  EXPECT_FALSE(a.help_requested());
}

TEST(Args, AValueMayStartWithADashOrBeEmpty) {
  const Expected<Args> parsed = parse({"--seed", "-1", "--rule", ""});
  ASSERT_TRUE(parsed.ok()) << parsed.error();
  const Args& a = *parsed;
  EXPECT_EQ(a.get("seed"), "-1");  // the command refuses it, naming --seed, not the parser
  EXPECT_EQ(a.get("rule"), "");
}

TEST(Args, EveryUsageErrorNamesTheFlag) {
  const struct {
    std::vector<std::string> argv;
    std::string names;
  } rows[] = {
      {{"--rule", "a", "--no-such-flag"}, "--no-such-flag"},
      {{"--rule"}, "--rule"},                      // a value is missing
      {{"--json=false"}, "--json"},                // a flag takes no value
      {{"--rule", "a", "--rule", "b"}, "--rule"},  // given twice
      {{"--json", "--json"}, "--json"},
      {{"stray"}, "stray"},  // no positionals here
      {{"-x"}, "-x"},
  };
  for (const auto& row : rows) {
    // A refused command line gives its error and no options at all.
    const Expected<Args> a = parse(row.argv);
    test::expect_refused(a, row.names);
    if (a.ok()) continue;
    EXPECT_EQ(a.error().find('\n'), std::string::npos) << a.error();
    EXPECT_EQ(early_exit(a, "decide"), 2) << "a usage error exits 2";
  }
}

TEST(Args, HelpListsTheOptionsUsageFirst) {
  for (const char* flag : {"--help", "-h"}) {
    const Expected<Args> a = parse({"--rule", "a", flag});
    ASSERT_TRUE(a.ok()) << a.error();
    EXPECT_TRUE(a->help_requested()) << flag;
  }
  EXPECT_EQ(early_exit(parse({}), "decide"), std::nullopt) << "no --help: the command runs";
  const Expected<Args> none = parse({});
  ASSERT_TRUE(none.ok()) << none.error();
  const std::string u = none->usage();
  EXPECT_EQ(u.rfind("usage: limitscope-cli decide [options]\nOne decision.\n", 0), 0u) << u;
  for (const char* line :
       {"--rule NAME", "the rule", "--json", "print JSON", "--help", "show this help"}) {
    EXPECT_NE(u.find(line), std::string::npos) << line << " in\n" << u;
  }
  const Expected<Args> gateway =
      Args::parse("", "A gateway.", kSpecs, {}, false, "limitscope-gateway");
  ASSERT_TRUE(gateway.ok()) << gateway.error();
  EXPECT_EQ(gateway->usage().rfind("usage: limitscope-gateway [options]\nA gateway.\n", 0), 0u)
      << gateway->usage();
}

TEST(RedisFlags, OneSetWithOneDefaultAndTheCliAliases) {
  const auto cli_specs = redis_flag_specs({});
  const auto gateway_specs = redis_flag_specs({.older_spellings = false});
  const auto config_specs = redis_flag_specs({.failure_mode = false});
  auto names = [](const std::vector<OptionSpec>& specs) {
    std::vector<std::string> n;
    for (const auto& s : specs) n.push_back(s.name);
    return n;
  };
  EXPECT_EQ(names(gateway_specs),
            (std::vector<std::string>{"redis", "redis-password-file", "redis-prefix",
                                      "redis-timeout", "redis-failure-mode"}));
  EXPECT_EQ(names(cli_specs), (std::vector<std::string>{
                                  "redis", "redis-password-file", "redis-prefix", "redis-timeout",
                                  "redis-failure-mode", "prefix", "timeout", "failure-mode"}));
  EXPECT_EQ(names(config_specs),
            (std::vector<std::string>{"redis", "redis-password-file", "redis-prefix",
                                      "redis-timeout", "prefix", "timeout"}));
  // The same help text (and so the same default) in every program.
  EXPECT_EQ(cli_specs[3].help, gateway_specs[3].help);
  EXPECT_NE(cli_specs[3].help.find("default 500ms"), std::string::npos) << cli_specs[3].help;

  const Expected<Args> old =
      Args::parse("config get", "", config_specs, {"--timeout", "2s", "--prefix", "p:"});
  ASSERT_TRUE(old.ok()) << old.error();
  auto text = redis_option_text(*old, true);
  ASSERT_TRUE(text);
  ASSERT_TRUE(text->timeout);
  EXPECT_EQ(text->timeout->flag, "--timeout");  // errors name the flag as typed
  EXPECT_EQ(text->timeout->text, "2s");
  EXPECT_EQ(text->prefix->flag, "--prefix");
  EXPECT_FALSE(text->failure_mode);

  const Expected<Args> both =
      Args::parse("decide", "", cli_specs, {"--timeout", "2s", "--redis-timeout", "1s"});
  ASSERT_TRUE(both.ok()) << both.error();
  auto refused = redis_option_text(*both, true);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error(), "give one of --redis-timeout and --timeout");

  const Expected<Args> gateway =
      Args::parse("", "", gateway_specs, {"--timeout", "2s"}, false, "limitscope-gateway");
  ASSERT_FALSE(gateway.ok());
  EXPECT_NE(gateway.error().find("--timeout"), std::string::npos) << gateway.error();
}

}  // namespace
}  // namespace limitscope::cli
