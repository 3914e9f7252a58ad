#pragma once
// Internal to alert_template*.cpp: the parsed tree of a template. Positions are byte offsets
// into the template text, turned into "line L, column C" only when an error is reported.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/metrics/alert_template.h"

namespace limitscope::metrics::tmpl {

struct Pipeline;

/// One argument of a command: a literal, a variable or dot with a field chain, a function
/// name, or a parenthesised pipeline.
struct Operand {
  enum class Kind { string, integer, floating, boolean, nil, variable, dot, function, pipeline };
  Kind kind = Kind::nil;
  std::string text;  // string value, variable name ("$labels") or function name
  std::int64_t integer = 0;
  double floating = 0;
  bool boolean = false;
  std::vector<std::string> fields;  // ".a.b" after the operand
  std::shared_ptr<Pipeline> pipeline;
  std::size_t pos = 0;
};

struct Command {
  std::vector<Operand> args;  // args[0] is the function when its kind is `function`
  std::size_t pos = 0;
};

struct Pipeline {
  std::string declare;  // "$x" for `$x := ...` / `$x = ...`, else empty
  bool assign = false;  // `=` (re-assign) rather than `:=`
  std::vector<Command> commands;
  std::size_t pos = 0;
};

struct Element;
using List = std::vector<Element>;

struct Branch {
  Pipeline condition;
  List body;
};

struct Element {
  enum class Kind { text, action, conditional };
  Kind kind = Kind::text;
  std::string text;
  Pipeline pipeline;             // action
  std::vector<Branch> branches;  // conditional: if / else if ...
  List otherwise;                // conditional: else
  std::size_t pos = 0;
};

}  // namespace limitscope::metrics::tmpl

namespace limitscope::metrics {

struct AlertTemplate::Impl {
  std::string name;
  std::string text;
  bool has_actions = false;
  tmpl::List root;

  /// "template NAME: line L, column C: REASON" for a byte offset into text.
  std::string error_at(std::size_t pos, std::string_view reason) const;
};

}  // namespace limitscope::metrics
