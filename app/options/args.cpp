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

Args::Args(std::string_view command, std::string_view summary, std::vector<OptionSpec> specs,
           const std::vector<std::string>& argv, bool allow_positional, std::string_view program) {
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
  if (allow_positional) app.add_option("ARGS", positional_, "arguments")->group("");
  usage_ = app.help();
  std::vector<std::string> reversed(argv.rbegin(), argv.rend());  // CLI11 reads from the back
  try {
    app.parse(reversed);
  } catch (const CLI::CallForHelp&) {
    help_ = true;
    return;
  } catch (const CLI::ParseError& e) {
    error_ = e.what();
    // CLI11 names a flag given a value without its dashes ("json was given a disallowed flag
    // override"); say it as the user typed it.
    const std::string_view override_tail = " was given a disallowed flag override";
    if (error_.size() > override_tail.size() && error_.ends_with(override_tail)) {
      error_ = "--" + error_.substr(0, error_.size() - override_tail.size()) + " takes no value";
    }
    return;
  }
  for (const auto& [spec_name, o] : options) {
    if (o->get_type_size() == 0) {
      for (std::size_t i = 0; i < o->count(); ++i) values_.emplace(spec_name, "");
    } else {
      for (const auto& v : o->results()) values_.emplace(spec_name, v);
    }
  }
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

std::optional<int> Args::early_exit(std::string_view command) const {
  if (help_) {
    std::cout << usage_;
    return 0;
  }
  if (!ok()) return usage_error(command, error_);
  return std::nullopt;
}

int usage_error(std::string_view command, std::string_view message) {
  std::cerr << "limitscope-cli " << command << ": " << message << "\n";
  return 2;
}

}  // namespace limitscope::cli
