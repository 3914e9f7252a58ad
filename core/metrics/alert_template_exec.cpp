// Expansion of a parsed alert template: Go text/template's evaluation rules for the subset
// alert_template.h lists, with Prometheus's options (missingkey=zero: an absent label is "").

#include <cmath>
#include <optional>
#include <variant>

#include "core/metrics/alert_template.h"
#include "core/metrics/alert_template_impl.h"
#include "core/metrics/go_format.h"
#include "core/metrics/go_regexp.h"

namespace limitscope::metrics {

namespace {

using tmpl::Command;
using tmpl::Element;
using tmpl::List;
using tmpl::Operand;
using tmpl::Pipeline;

struct Root {};  // the template's dot: Prometheus's AlertTemplateData
struct Nil {};

using Value = std::variant<Nil, bool, std::int64_t, double, std::string, const Labels*, Root>;

const Labels& empty_labels() {
  static const Labels kEmpty;
  return kEmpty;
}

std::string type_of(const Value& v) {
  switch (v.index()) {
    case 0:
      return "<nil>";
    case 1:
      return "bool";
    case 2:
      return "int";
    case 3:
      return "float64";
    case 4:
      return "string";
    case 5:
      return "map[string]string";
    default:
      return "*template.tmplData";
  }
}

// fmt.Sprint of one value.
std::string print_value(const Value& v) {
  if (std::holds_alternative<Nil>(v)) return "<no value>";
  if (const auto* b = std::get_if<bool>(&v)) return *b ? "true" : "false";
  if (const auto* i = std::get_if<std::int64_t>(&v)) return std::to_string(*i);
  if (const auto* f = std::get_if<double>(&v)) return gofmt::format_float_v(*f);
  if (const auto* s = std::get_if<std::string>(&v)) return *s;
  if (const auto* m = std::get_if<const Labels*>(&v)) {
    std::string out = "map[";
    bool first = true;
    for (const auto& [k, val] : (*m)->pairs()) {
      if (!first) out += ' ';
      first = false;
      out += k + ":" + val;
    }
    return out + "]";
  }
  return "{...}";
}

bool truth(const Value& v) {
  if (std::holds_alternative<Nil>(v)) return false;
  if (const auto* b = std::get_if<bool>(&v)) return *b;
  if (const auto* i = std::get_if<std::int64_t>(&v)) return *i != 0;
  if (const auto* f = std::get_if<double>(&v)) return *f != 0;
  if (const auto* s = std::get_if<std::string>(&v)) return !s->empty();
  if (const auto* m = std::get_if<const Labels*>(&v)) return !(*m)->empty();
  return true;
}

struct ExecError {
  std::size_t pos;
  std::string reason;
};
/// Ok, or where and why executing failed.
using ExecStatus = Expected<void, ExecError>;
/// A value, or where and why evaluating it failed.
using ExecValue = Expected<Value, ExecError>;

class Executor {
 public:
  Executor(const AlertTemplate::Impl& impl, const TemplateData& data) : impl_(impl), data_(data) {
    vars_ = {{"$", Root{}},
             {"$labels", data.labels ? data.labels : &empty_labels()},
             {"$externalLabels", data.external_labels ? data.external_labels : &empty_labels()},
             {"$externalURL", std::string(data.external_url)},
             {"$value", data.value}};
  }

  /// The template's text. @return it, or where and why executing failed
  Expected<std::string, ExecError> run() {
    std::string out;
    if (ExecStatus ran = exec_list(impl_.root, out); !ran.ok()) return ran.error();
    return out;
  }

 private:
  // Appends what `list` prints to `out` (the text so far: a list prints into its parent's).
  ExecStatus exec_list(const List& list, std::string& out) {
    for (const Element& e : list) {
      switch (e.kind) {
        case Element::Kind::text:
          out += e.text;
          break;
        case Element::Kind::action: {
          ExecValue v = eval_pipeline(e.pipeline);
          if (!v.ok()) return v.error();
          if (e.pipeline.declare.empty()) out += print_value(*v);
          break;
        }
        case Element::Kind::conditional: {
          const List* chosen = &e.otherwise;
          const std::size_t scope = vars_.size();
          for (const auto& b : e.branches) {
            ExecValue c = eval_pipeline(b.condition);
            if (!c.ok()) return c.error();
            if (truth(*c)) {
              chosen = &b.body;
              break;
            }
          }
          if (ExecStatus err = exec_list(*chosen, out); !err.ok()) return err;
          vars_.resize(scope);
          break;
        }
      }
    }
    return {};
  }

  ExecValue eval_pipeline(const Pipeline& p) {
    std::optional<Value> piped;
    for (const Command& c : p.commands) {
      ExecValue v = eval_command(c, piped);
      if (!v.ok()) return v;
      piped = std::move(*v);
    }
    Value result = piped ? std::move(*piped) : Value{Nil{}};
    if (!p.declare.empty()) {
      if (p.assign) {
        for (auto it = vars_.rbegin(); it != vars_.rend(); ++it) {
          if (it->first == p.declare) {
            it->second = result;
            break;
          }
        }
      } else {
        vars_.emplace_back(p.declare, result);
      }
    }
    return result;
  }

  ExecValue eval_command(const Command& c, const std::optional<Value>& piped) {
    const Operand& head = c.args.front();
    if (head.kind == Operand::Kind::function) {
      std::vector<Value> args;
      for (std::size_t i = 1; i < c.args.size(); ++i) {
        ExecValue v = eval_operand(c.args[i]);
        if (!v.ok()) return v;
        args.push_back(std::move(*v));
      }
      if (piped) args.push_back(*piped);
      return call(head, args);
    }
    if (c.args.size() > 1 || piped) {
      return ExecError{head.pos, "can't give argument to non-function " + describe(head)};
    }
    return eval_operand(head);
  }

  static std::string describe(const Operand& op) {
    switch (op.kind) {
      case Operand::Kind::variable:
        return op.text;
      case Operand::Kind::dot:
        return op.fields.empty() ? "." : "." + op.fields.front();
      default:
        return "operand";
    }
  }

  ExecValue eval_operand(const Operand& op) {
    ExecValue out = Value{Nil{}};
    switch (op.kind) {
      case Operand::Kind::string:
        out = Value{op.text};
        break;
      case Operand::Kind::integer:
        out = Value{op.integer};
        break;
      case Operand::Kind::floating:
        out = Value{op.floating};
        break;
      case Operand::Kind::boolean:
        out = Value{op.boolean};
        break;
      case Operand::Kind::nil:
        break;
      case Operand::Kind::dot:
        out = Value{Root{}};
        break;
      case Operand::Kind::variable:
        for (auto it = vars_.rbegin(); it != vars_.rend(); ++it) {
          if (it->first == op.text) {
            out = it->second;
            break;
          }
        }
        break;
      case Operand::Kind::pipeline:
        out = eval_pipeline(*op.pipeline);
        break;
      case Operand::Kind::function: {
        std::vector<Value> none;
        out = call(op, none);
        break;
      }
    }
    for (const std::string& f : op.fields) {
      if (!out.ok()) break;
      out = field(op.pos, *out, f);
    }
    return out;
  }

  // `.name` of `v`.
  ExecValue field(std::size_t pos, const Value& v, const std::string& name) const {
    if (std::holds_alternative<Root>(v)) {
      if (name == "Labels") return Value{data_.labels ? data_.labels : &empty_labels()};
      if (name == "ExternalLabels")
        return Value{data_.external_labels ? data_.external_labels : &empty_labels()};
      if (name == "ExternalURL") return Value{std::string(data_.external_url)};
      if (name == "Value") return Value{data_.value};
      return ExecError{pos, "can't evaluate field " + name + " in type *template.tmplData"};
    }
    if (const auto* m = std::get_if<const Labels*>(&v)) {
      return Value{std::string((*m)->get(name))};  // missingkey=zero: an absent label reads ""
    }
    if (std::holds_alternative<Nil>(v)) {
      return ExecError{pos, "nil pointer evaluating interface {}." + name};
    }
    return ExecError{pos, "can't evaluate field " + name + " in type " + type_of(v)};
  }

  ExecValue call(const Operand& fn, std::vector<Value>& args);

  const AlertTemplate::Impl& impl_;
  const TemplateData& data_;
  std::vector<std::pair<std::string, Value>> vars_;
};

// Prometheus's convertToFloat.
Expected<double> to_float(const Value& v) {
  if (const auto* f = std::get_if<double>(&v)) return *f;
  if (const auto* i = std::get_if<std::int64_t>(&v)) return static_cast<double>(*i);
  if (const auto* s = std::get_if<std::string>(&v)) return gofmt::parse_float(*s);
  return make_error("can't convert " + type_of(v) + " to float");
}

Expected<std::string> to_string_arg(const Value& v) {
  if (const auto* s = std::get_if<std::string>(&v)) return *s;
  return make_error("wrong type for value; expected string; got " + type_of(v));
}

gofmt::PrintfArg to_printf_arg(const Value& v) {
  if (const auto* i = std::get_if<std::int64_t>(&v)) return *i;
  if (const auto* f = std::get_if<double>(&v)) return *f;
  if (const auto* b = std::get_if<bool>(&v)) return *b;
  if (std::holds_alternative<Nil>(v)) return std::string("<nil>");
  return print_value(v);
}

// Go's eq/lt family: same basic kind required.
// @return -1, 0 or 1 as a is less, equal or greater; 2 when unordered (NaN)
Expected<int> compare(const Value& a, const Value& b, bool ordered) {
  if (a.index() != b.index()) return make_error("incompatible types for comparison");
  if (const auto* x = std::get_if<std::int64_t>(&a)) {
    const auto y = std::get<std::int64_t>(b);
    return *x < y ? -1 : (*x > y ? 1 : 0);
  }
  if (const auto* f = std::get_if<double>(&a)) {
    const double g = std::get<double>(b);
    return *f < g ? -1 : (*f > g ? 1 : (*f == g ? 0 : 2));
  }
  if (const auto* s = std::get_if<std::string>(&a)) {
    const int c = s->compare(std::get<std::string>(b));
    return c < 0 ? -1 : (c > 0 ? 1 : 0);
  }
  if (const auto* bo = std::get_if<bool>(&a)) {
    if (ordered) return make_error("invalid type for comparison");
    return *bo == std::get<bool>(b) ? 0 : 1;
  }
  return make_error("invalid type for comparison");
}

ExecValue Executor::call(const Operand& fn, std::vector<Value>& args) {
  const std::string& name = fn.text;
  const auto err = [&](const std::string& reason) {
    return ExecError{fn.pos, "error calling " + name + ": " + reason};
  };
  const auto wrong_count = [&](std::size_t n) {
    return ExecError{fn.pos, "wrong number of args for " + name + ": want " + std::to_string(n) +
                                 " got " + std::to_string(args.size())};
  };
  if (name.rfind("humanize", 0) == 0) {
    if (args.size() != 1) return wrong_count(1);
    const auto number = to_float(args[0]);
    if (!number) return err(number.error());
    const double v = *number;
    if (name == "humanize") return Value{gofmt::humanize(v)};
    if (name == "humanize1024") return Value{gofmt::humanize1024(v)};
    if (name == "humanizeDuration") return Value{gofmt::humanize_duration(v)};
    if (name == "humanizePercentage") return Value{gofmt::humanize_percentage(v)};
    return Value{gofmt::humanize_timestamp(v)};
  }
  if (name == "toUpper" || name == "toLower" || name == "title") {
    if (args.size() != 1) return wrong_count(1);
    auto arg = to_string_arg(args[0]);
    if (!arg) return ExecError{fn.pos, arg.error()};
    std::string s = std::move(*arg);
    bool at_word_start = true;
    for (char& c : s) {
      const bool lower = c >= 'a' && c <= 'z';
      const bool upper = c >= 'A' && c <= 'Z';
      if (name == "toUpper" && lower) c = static_cast<char>(c - 'a' + 'A');
      if (name == "toLower" && upper) c = static_cast<char>(c - 'A' + 'a');
      if (name == "title") {
        if (at_word_start && lower) c = static_cast<char>(c - 'a' + 'A');
        // strings.Title: ASCII letters, digits, '_' and non-ASCII bytes continue a word.
        const auto u = static_cast<unsigned char>(c);
        at_word_start = !(lower || upper || (c >= '0' && c <= '9') || c == '_' || u >= 0x80);
      }
    }
    return Value{std::move(s)};
  }
  if (name == "printf") {
    if (args.empty()) return wrong_count(1);
    const auto format = to_string_arg(args[0]);
    if (!format) return ExecError{fn.pos, format.error()};
    std::vector<gofmt::PrintfArg> rest;
    for (std::size_t i = 1; i < args.size(); ++i) rest.push_back(to_printf_arg(args[i]));
    return Value{gofmt::sprintf(*format, rest)};
  }
  if (name == "print") {
    std::string s;
    for (std::size_t i = 0; i < args.size(); ++i) {
      // fmt.Sprint puts a space between operands when neither is a string.
      if (i > 0 && !std::holds_alternative<std::string>(args[i]) &&
          !std::holds_alternative<std::string>(args[i - 1])) {
        s += ' ';
      }
      s += std::holds_alternative<Nil>(args[i]) ? "<nil>" : print_value(args[i]);
    }
    return Value{std::move(s)};
  }
  if (name == "match" || name == "reReplaceAll") {
    if (const std::size_t n = name == "match" ? 2 : 3; args.size() != n) return wrong_count(n);
    const auto pattern = to_string_arg(args[0]);
    if (!pattern) return ExecError{fn.pos, pattern.error()};
    const auto text = to_string_arg(args.back());
    if (!text) return ExecError{fn.pos, text.error()};
    Expected<std::string> repl = std::string();
    if (name == "reReplaceAll") {
      repl = to_string_arg(args[1]);
      if (!repl) return ExecError{fn.pos, repl.error()};
    }
    if (name == "match") {
      const auto matched = goregexp::match(*pattern, *text);
      if (!matched) return err(matched.error());
      return Value{*matched};
    }
    auto replaced = goregexp::replace_all(*pattern, *repl, *text);
    if (!replaced) return err(replaced.error());
    return Value{std::move(*replaced)};
  }
  if (name == "index") {
    if (args.size() != 2) return wrong_count(2);
    const auto* m = std::get_if<const Labels*>(&args[0]);
    if (!m) return err("can't index item of type " + type_of(args[0]));
    const auto key = to_string_arg(args[1]);
    if (!key) return err(key.error());
    return Value{std::string((*m)->get(*key))};
  }
  if (name == "len") {
    if (args.size() != 1) return wrong_count(1);
    if (const auto* s = std::get_if<std::string>(&args[0]))
      return Value{static_cast<std::int64_t>(s->size())};
    if (const auto* m = std::get_if<const Labels*>(&args[0]))
      return Value{static_cast<std::int64_t>((*m)->size())};
    return err("len of type " + type_of(args[0]));
  }
  if (name == "not") {
    if (args.size() != 1) return wrong_count(1);
    return Value{!truth(args[0])};
  }
  if (name == "and" || name == "or") {
    if (args.empty()) return wrong_count(1);
    // The first argument that decides (true for or, false for and), else the last.
    for (const Value& v : args) {
      if (truth(v) == (name == "or")) return v;
    }
    return args.back();
  }
  // eq ne lt le gt ge
  if (args.size() < 2) return wrong_count(2);
  if (name == "eq") {
    bool any = false;
    for (std::size_t i = 1; i < args.size(); ++i) {
      const auto c = compare(args[0], args[i], false);
      if (!c) return err(c.error());
      any = any || *c == 0;
    }
    return Value{any};
  }
  if (args.size() != 2) return wrong_count(2);
  const auto compared = compare(args[0], args[1], name != "ne");
  if (!compared) return err(compared.error());
  const int c = *compared;
  if (name == "ne") return Value{c != 0};
  if (name == "lt") return Value{c == -1};
  if (name == "le") return Value{c == -1 || c == 0};
  if (name == "gt") return Value{c == 1};
  return Value{c == 1 || c == 0};
}

}  // namespace

Expected<std::string> AlertTemplate::expand(const TemplateData& data) const {
  if (!impl_->has_actions) return impl_->text;
  Executor ex(*impl_, data);
  auto ran = ex.run();
  if (!ran.ok()) return make_error(impl_->error_at(ran.error().pos, ran.error().reason));
  return std::move(*ran);
}

std::string AlertTemplate::expand_or_error(const TemplateData& data) const {
  auto r = expand(data);
  if (r.ok()) return std::move(*r);
  return "<error expanding template: " + r.error() + ">";
}

}  // namespace limitscope::metrics
