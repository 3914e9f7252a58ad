#include "app/options/args.h"

#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>
#include <sstream>

namespace limitscope::cli {

namespace {

/// CLI11's help with the usage line first, as limitscope's programs have always printed it:
/// "usage: PROGRAM [COMMAND] [options]", the summary, then the options.
class UsageFirst : public CLI::Formatter {
 public:
  UsageFirst() {
    label("Usage", "usage");
    label("OPTIONS", "options");
    column_width(30);
  }
  std::string make_help(const CLI::App* app, std::string name,
                        CLI::AppFormatMode mode) const override {
    std::ostringstream out;
    out << make_usage(app, name) << app->get_description() << "\n"
        << make_positionals(app) << make_groups(app, mode) << make_footer(app);
    return out.str();
  }
};

}  // namespace

Expected<Args> Args::parse(std::string_view command, std::string_view summary,
                           std::vector<OptionSpec> specs, const std::vector<std::string>& argv,
                           bool allow_positional, std::string_view program) {
  Args args;
  const std::string name =
      command.empty() ? std::string(program) : std::string(program) + " " + std::string(command);
  CLI::App app(std::string(summary), name);
  app.formatter(std::make_shared<UsageFirst>());
  app.option_defaults()->group("options");
  app.set_help_flag("-h,--help", "show this help");
  std::vector<std::pair<std::string, CLI::Option*>> options;
  for (const auto& s : specs) {
    CLI::Option* o = nullptr;
    if (s.value_name.empty()) {
      // `--json=false` is refused rather than read as "not given".
      o = app.add_flag("--" + s.name, s.help)->disable_flag_override();
    } else {
      o = app.add_option("--" + s.name, s.help)->type_name(s.value_name)->allow_extra_args(false);
    }
    o->multi_option_policy(s.repeatable ? CLI::MultiOptionPolicy::TakeAll
                                        : CLI::MultiOptionPolicy::Throw);
    options.emplace_back(s.name, o);
  }
  if (allow_positional) app.add_option("ARGS", args.positional_, "arguments")->group("");
  args.usage_ = app.help();
  std::vector<std::string> reversed(argv.rbegin(), argv.rend());  // CLI11 reads from the back
  try {
    app.parse(reversed);
  } catch (const CLI::CallForHelp&) {
    args.help_ = true;
    return args;
  } catch (const CLI::ParseError& e) {
    std::string error = e.what();
    // CLI11 names a flag given a value without its dashes ("json was given a disallowed flag
    // override"); say it as the user typed it.
    const std::string_view override_tail = " was given a disallowed flag override";
    if (error.size() > override_tail.size() && error.ends_with(override_tail)) {
      error = "--" + error.substr(0, error.size() - override_tail.size()) + " takes no value";
    }
    return make_error(std::move(error));
  }
  for (const auto& [spec_name, o] : options) {
    if (o->get_type_size() == 0) {
      for (std::size_t i = 0; i < o->count(); ++i) args.values_.emplace(spec_name, "");
    } else {
      for (const auto& v : o->results()) args.values_.emplace(spec_name, v);
    }
  }
  return args;
}

bool Args::has(std::string_view name) const {
  return values_.find(name) != values_.end();
}

std::optional<std::string> Args::get(std::string_view name) const {
  auto it = values_.find(name);
  if (it == values_.end()) return std::nullopt;
  return it->second;
}

std::vector<std::string> Args::all(std::string_view name) const {
  std::vector<std::string> out;
  auto [lo, hi] = values_.equal_range(name);
  for (auto it = lo; it != hi; ++it) out.push_back(it->second);
  return out;
}

std::optional<int> early_exit(const Expected<Args>& parsed, std::string_view command) {
  if (!parsed) return usage_error(command, parsed.error());
  if (parsed->help_requested()) {
    std::cout << parsed->usage();
    return 0;
  }
  return std::nullopt;
}

int usage_error(std::string_view command, std::string_view message) {
  std::cerr << "limitscope-cli " << command << ": " << message << "\n";
  return 2;
}

}  // namespace limitscope::cli
