#include "app/cli/args.h"

#include <iostream>
#include <sstream>

namespace limitscope::cli {

Args::Args(std::string_view command, std::string_view summary, std::vector<OptionSpec> specs,
           const std::vector<std::string>& argv, bool allow_positional)
    : command_(command), summary_(summary), specs_(std::move(specs)) {
  for (std::size_t i = 0; i < argv.size(); ++i) {
    const std::string& a = argv[i];
    if (a == "--help" || a == "-h") {
      help_ = true;
      continue;
    }
    if (a.rfind("--", 0) != 0 || a.size() == 2) {
      if (allow_positional) {
        positional_.push_back(a);
        continue;
      }
      error_ = "unexpected argument \"" + a + "\"";
      return;
    }
    std::string name = a.substr(2);
    std::optional<std::string> inline_value;
    if (auto eq = name.find('='); eq != std::string::npos) {
      inline_value = name.substr(eq + 1);
      name = name.substr(0, eq);
    }
    const OptionSpec* spec = nullptr;
    for (const auto& s : specs_) {
      if (s.name == name) spec = &s;
    }
    if (spec == nullptr) {
      error_ = "unknown option --" + name;
      return;
    }
    if (!spec->repeatable && values_.count(name) > 0) {
      error_ = "option --" + name + " given twice";
      return;
    }
    if (spec->value_name.empty()) {
      if (inline_value) {
        error_ = "option --" + name + " takes no value";
        return;
      }
      values_.emplace(name, "");
    } else if (inline_value) {
      values_.emplace(name, *inline_value);
    } else if (i + 1 < argv.size()) {
      values_.emplace(name, argv[++i]);
    } else {
      error_ = "option --" + name + " needs a value (" + spec->value_name + ")";
      return;
    }
  }
}

std::string Args::usage() const {
  std::ostringstream out;
  out << "usage: limitscope-cli " << command_ << " [options]\n" << summary_ << "\n\noptions:\n";
  for (const auto& s : specs_) {
    std::string left = "--" + s.name + (s.value_name.empty() ? "" : " " + s.value_name);
    out << "  " << left;
    out << std::string(left.size() < 28 ? 28 - left.size() : 1, ' ') << s.help << "\n";
  }
  out << "  --help" << std::string(22, ' ') << "show this help\n";
  return out.str();
}

bool Args::has(std::string_view name) const { return values_.find(name) != values_.end(); }

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

int usage_error(std::string_view command, std::string_view message) {
  std::cerr << "limitscope-cli " << command << ": " << message << "\n";
  return 2;
}

}  // namespace limitscope::cli
