// limitscope-cli audit SUBJECT: the audits no limiter offers (docs/audits.md). Each subject
// is its own file; this one only dispatches.

#include <iostream>
#include <string_view>

#include "app/cli/commands.h"

namespace limitscope::cli {

namespace {

struct Subject {
  std::string_view name;
  std::string_view summary;
  int (*run)(const CommandArgs&);
};

constexpr Subject kSubjects[] = {
    {"replicas", "effective vs configured limits summed over gateway replicas (leaks)", run_audit_replicas},
    {"clock", "gateway clocks against Redis TIME and this workstation (skew)", run_audit_clock},
};

void print_help(std::ostream& out) {
  out << "usage: limitscope-cli audit SUBJECT [options]   (SUBJECT --help for its options)\n"
         "exit: 0 nothing found, 1 the audit found a problem, 2 bad usage or input\n\n"
         "subjects:\n";
  for (const auto& s : kSubjects) {
    out << "  " << s.name << std::string(14 - s.name.size(), ' ') << s.summary << "\n";
  }
}

}  // namespace

int run_audit(const CommandArgs& args) {
  if (args.empty()) {
    print_help(std::cerr);
    return 2;
  }
  if (args[0] == "--help" || args[0] == "-h") {
    print_help(std::cout);
    return 0;
  }
  for (const auto& s : kSubjects) {
    if (s.name == args[0]) return s.run(CommandArgs(args.begin() + 1, args.end()));
  }
  std::cerr << "limitscope-cli audit: unknown subject \"" << args[0] << "\"\n";
  print_help(std::cerr);
  return 2;
}

}  // namespace limitscope::cli
