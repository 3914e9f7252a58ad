#include "app/cli/subcommands.h"

#include <iostream>
#include <string>

namespace limitscope::cli {

namespace {

void print_help(std::ostream& out, std::string_view command, std::string_view note,
                std::span<const Subcommand> subjects) {
  out << "usage: limitscope-cli " << command
      << " SUBJECT [options]   (SUBJECT --help for its options)\n";
  if (!note.empty()) out << note << "\n";
  out << "\nsubjects:\n";
  for (const auto& s : subjects) {
    out << "  " << s.name << std::string(s.name.size() < 14 ? 14 - s.name.size() : 1, ' ')
        << s.summary << "\n";
  }
}

}  // namespace

int run_subcommand(std::string_view command, std::string_view note,
                   std::span<const Subcommand> subjects, const CommandArgs& args) {
  if (args.empty()) {
    print_help(std::cerr, command, note, subjects);
    return 2;
  }
  if (args[0] == "--help" || args[0] == "-h") {
    print_help(std::cout, command, note, subjects);
    return 0;
  }
  for (const auto& s : subjects) {
    if (s.name == args[0]) return s.run(CommandArgs(args.begin() + 1, args.end()));
  }
  std::cerr << "limitscope-cli " << command << ": unknown subject \"" << args[0] << "\"\n";
  print_help(std::cerr, command, note, subjects);
  return 2;
}

}  // namespace limitscope::cli
