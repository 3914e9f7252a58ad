// Expansion of a parsed alert template: Go text/template's evaluation rules for the subset
// alert_template.h lists, with Prometheus's options (missingkey=zero: an absent label is "").

#include <cmath>
#include <optional>
#include <regex>
#include <variant>

#include "core/metrics/alert_template.h"
#include "core/metrics/alert_template_impl.h"
#include "core/metrics/go_format.h"

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

class Executor {
 public:
  Executor(const AlertTemplate::Impl& impl, const TemplateData& data) : impl_(impl), data_(data) {
    vars_ = {{"$", Root{}},
             {"$labels", data.labels ? data.labels : &empty_labels()},
             {"$externalLabels", data.external_labels ? data.external_labels : &empty_labels()},
             {"$externalURL", std::string(data.external_url)},
             {"$value", data.value}};
  }

  std::optional<ExecError> run(std::string& out) { return exec_list(impl_.root, out); }

 private:
  std::optional<ExecError> exec_list(const List& list, std::string& out) {
    for (const Element& e : list) {
      switch (e.kind) {
        case Element::Kind::text:
          out += e.text;
          break;
        case Element::Kind::action: {
          Value v;
          if (auto err = eval_pipeline(e.pipeline, v)) return err;
          if (e.pipeline.declare.empty()) out += print_value(v);
          break;
        }
        case Element::Kind::conditional: {
          const List* chosen = &e.otherwise;
          const std::size_t scope = vars_.size();
          for (const auto& b : e.branches) {
            Value c;
            if (auto err = eval_pipeline(b.condition, c)) return err;
            if (truth(c)) {
              chosen = &b.body;
              break;
            }
          }
          if (auto err = exec_list(*chosen, out)) return err;
          vars_.resize(scope);
          break;
        }
      }
    }
    return std::nullopt;
  }

  std::optional<ExecError> eval_pipeline(const Pipeline& p, Value& result) {
    std::optional<Value> piped;
    for (const Command& c : p.commands) {
      Value v;
      if (auto err = eval_command(c, piped, v)) return err;
      piped = std::move(v);
    }
    result = piped ? *piped : Value{Nil{}};
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
    return std::nullopt;
  }

  std::optional<ExecError> eval_command(const Command& c, const std::optional<Value>& piped,
                                        Value& out) {
    const Operand& head = c.args.front();
    if (head.kind == Operand::Kind::function) {
      std::vector<Value> args;
      for (std::size_t i = 1; i < c.args.size(); ++i) {
        Value v;
        if (auto err = eval_operand(c.args[i], v)) return err;
        args.push_back(std::move(v));
      }
      if (piped) args.push_back(*piped);
      return call(head, args, out);
    }
    if (c.args.size() > 1 || piped) {
      return ExecError{head.pos, "can't give argument to non-function " + describe(head)};
    }
    return eval_operand(head, out);
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

  std::optional<ExecError> eval_operand(const Operand& op, Value& out) {
    switch (op.kind) {
      case Operand::Kind::string:
        out = op.text;
        break;
      case Operand::Kind::integer:
        out = op.integer;
        break;
      case Operand::Kind::floating:
        out = op.floating;
        break;
      case Operand::Kind::boolean:
        out = op.boolean;
        break;
      case Operand::Kind::nil:
        out = Nil{};
        break;
      case Operand::Kind::dot:
        out = Root{};
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
        if (auto err = eval_pipeline(*op.pipeline, out)) return err;
        break;
      case Operand::Kind::function: {
        std::vector<Value> none;
        if (auto err = call(op, none, out)) return err;
        break;
      }
    }
    for (const std::string& f : op.fields) {
      if (auto err = field(op.pos, out, f)) return err;
    }
    return std::nullopt;
  }

  std::optional<ExecError> field(std::size_t pos, Value& v, const std::string& name) {
    if (std::holds_alternative<Root>(v)) {
      if (name == "Labels") {
        v = data_.labels ? data_.labels : &empty_labels();
      } else if (name == "ExternalLabels") {
        v = data_.external_labels ? data_.external_labels : &empty_labels();
      } else if (name == "ExternalURL") {
        v = std::string(data_.external_url);
      } else if (name == "Value") {
        v = data_.value;
      } else {
        return ExecError{pos, "can't evaluate field " + name + " in type *template.tmplData"};
      }
      return std::nullopt;
    }
    if (const auto* m = std::get_if<const Labels*>(&v)) {
      v = std::string((*m)->get(name));  // missingkey=zero: an absent label reads ""
      return std::nullopt;
    }
    if (std::holds_alternative<Nil>(v)) {
      return ExecError{pos, "nil pointer evaluating interface {}." + name};
    }
    return ExecError{pos, "can't evaluate field " + name + " in type " + type_of(v)};
  }

  std::optional<ExecError> call(const Operand& fn, std::vector<Value>& args, Value& out);

  const AlertTemplate::Impl& impl_;
  const TemplateData& data_;
  std::vector<std::pair<std::string, Value>> vars_;
};

// Prometheus's convertToFloat.
std::optional<std::string> to_float(const Value& v, double& out) {
  if (const auto* f = std::get_if<double>(&v)) {
    out = *f;
  } else if (const auto* i = std::get_if<std::int64_t>(&v)) {
    out = static_cast<double>(*i);
  } else if (const auto* s = std::get_if<std::string>(&v)) {
    auto p = gofmt::parse_float(*s);
    if (!p.ok()) return p.error();
    out = *p;
  } else {
    return "can't convert " + type_of(v) + " to float";
  }
  return std::nullopt;
}

std::optional<std::string> to_string_arg(const Value& v, std::string& out) {
  if (const auto* s = std::get_if<std::string>(&v)) {
    out = *s;
    return std::nullopt;
  }
  return "wrong type for value; expected string; got " + type_of(v);
}

gofmt::PrintfArg to_printf_arg(const Value& v) {
  if (const auto* i = std::get_if<std::int64_t>(&v)) return *i;
  if (const auto* f = std::get_if<double>(&v)) return *f;
  if (const auto* b = std::get_if<bool>(&v)) return *b;
  if (std::holds_alternative<Nil>(v)) return std::string("<nil>");
  return print_value(v);
}

// Go's eq/lt family: same basic kind required.
std::optional<std::string> compare(const Value& a, const Value& b, int& cmp, bool ordered) {
  if (a.index() != b.index()) return "incompatible types for comparison";
  if (const auto* x = std::get_if<std::int64_t>(&a)) {
    const auto y = std::get<std::int64_t>(b);
    cmp = *x < y ? -1 : (*x > y ? 1 : 0);
  } else if (const auto* f = std::get_if<double>(&a)) {
    const double g = std::get<double>(b);
    cmp = *f < g ? -1 : (*f > g ? 1 : (*f == g ? 0 : 2));  // 2: unordered (NaN)
  } else if (const auto* s = std::get_if<std::string>(&a)) {
    const int c = s->compare(std::get<std::string>(b));
    cmp = c < 0 ? -1 : (c > 0 ? 1 : 0);
  } else if (const auto* bo = std::get_if<bool>(&a)) {
    if (ordered) return "invalid type for comparison";
    cmp = *bo == std::get<bool>(b) ? 0 : 1;
  } else {
    return "invalid type for comparison";
  }
  return std::nullopt;
}

std::optional<ExecError> Executor::call(const Operand& fn, std::vector<Value>& args, Value& out) {
  const std::string& name = fn.text;
  const auto err = [&](const std::string& reason) {
    return ExecError{fn.pos, "error calling " + name + ": " + reason};
  };
  const auto want = [&](std::size_t n) -> std::optional<ExecError> {
    if (args.size() != n) {
      return ExecError{fn.pos, "wrong number of args for " + name + ": want " + std::to_string(n) +
                                   " got " + std::to_string(args.size())};
    }
    return std::nullopt;
  };
  if (name.rfind("humanize", 0) == 0) {
    if (auto e = want(1)) return e;
    double v = 0;
    if (auto e = to_float(args[0], v)) return err(*e);
    if (name == "humanize")
      out = gofmt::humanize(v);
    else if (name == "humanize1024")
      out = gofmt::humanize1024(v);
    else if (name == "humanizeDuration")
      out = gofmt::humanize_duration(v);
    else if (name == "humanizePercentage")
      out = gofmt::humanize_percentage(v);
    else
      out = gofmt::humanize_timestamp(v);
    return std::nullopt;
  }
  if (name == "toUpper" || name == "toLower" || name == "title") {
    if (auto e = want(1)) return e;
    std::string s;
    if (auto e = to_string_arg(args[0], s)) return ExecError{fn.pos, *e};
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
    out = s;
    return std::nullopt;
  }
  if (name == "printf") {
    if (args.empty()) return want(1);
    std::string format;
    if (auto e = to_string_arg(args[0], format)) return ExecError{fn.pos, *e};
    std::vector<gofmt::PrintfArg> rest;
    for (std::size_t i = 1; i < args.size(); ++i) rest.push_back(to_printf_arg(args[i]));
    out = gofmt::sprintf(format, rest);
    return std::nullopt;
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
    out = s;
    return std::nullopt;
  }
  if (name == "match" || name == "reReplaceAll") {
    if (auto e = want(name == "match" ? 2 : 3)) return e;
    std::string pattern, text, repl;
    if (auto e = to_string_arg(args[0], pattern)) return ExecError{fn.pos, *e};
    if (auto e = to_string_arg(args.back(), text)) return ExecError{fn.pos, *e};
    if (name == "reReplaceAll") {
      if (auto e = to_string_arg(args[1], repl)) return ExecError{fn.pos, *e};
    }
    try {
      const std::regex re(pattern);
      if (name == "match") {
        out = std::regex_search(text, re);
      } else {
        out = std::regex_replace(text, re, repl);
      }
    } catch (const std::regex_error& e) {
      return err("error parsing regexp: " + std::string(e.what()));
    }
    return std::nullopt;
  }
  if (name == "index") {
    if (auto e = want(2)) return e;
    const auto* m = std::get_if<const Labels*>(&args[0]);
    std::string key;
    if (!m) return err("can't index item of type " + type_of(args[0]));
    if (auto e = to_string_arg(args[1], key)) return err(*e);
    out = std::string((*m)->get(key));
    return std::nullopt;
  }
  if (name == "len") {
    if (auto e = want(1)) return e;
    if (const auto* s = std::get_if<std::string>(&args[0])) {
      out = static_cast<std::int64_t>(s->size());
    } else if (const auto* m = std::get_if<const Labels*>(&args[0])) {
      out = static_cast<std::int64_t>((*m)->size());
    } else {
      return err("len of type " + type_of(args[0]));
    }
    return std::nullopt;
  }
  if (name == "not") {
    if (auto e = want(1)) return e;
    out = !truth(args[0]);
    return std::nullopt;
  }
  if (name == "and" || name == "or") {
    if (args.empty()) return want(1);
    for (const Value& v : args) {
      out = v;
      if (truth(v) == (name == "or")) break;
    }
    return std::nullopt;
  }
  // eq ne lt le gt ge
  if (args.size() < 2) return want(2);
  if (name == "eq") {
    bool any = false;
    for (std::size_t i = 1; i < args.size(); ++i) {
      int c = 0;
      if (auto e = compare(args[0], args[i], c, false)) return err(*e);
      any = any || c == 0;
    }
    out = any;
    return std::nullopt;
  }
  if (auto e = want(2)) return e;
  int c = 0;
  if (auto e = compare(args[0], args[1], c, name != "ne")) return err(*e);
  if (name == "ne")
    out = c != 0;
  else if (name == "lt")
    out = c == -1;
  else if (name == "le")
    out = c == -1 || c == 0;
  else if (name == "gt")
    out = c == 1;
  else
    out = c == 1 || c == 0;
  return std::nullopt;
}

}  // namespace

Expected<std::string> AlertTemplate::expand(const TemplateData& data) const {
  if (!impl_->has_actions) return impl_->text;
  std::string out;
  Executor ex(*impl_, data);
  if (auto err = ex.run(out)) return make_error(impl_->error_at(err->pos, err->reason));
  return out;
}

std::string AlertTemplate::expand_or_error(const TemplateData& data) const {
  auto r = expand(data);
  if (r.ok()) return std::move(*r);
  return "<error expanding template: " + r.error() + ">";
}

}  // namespace limitscope::metrics
