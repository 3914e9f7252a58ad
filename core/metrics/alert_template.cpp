#include "core/metrics/alert_template.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <optional>

#include "core/metrics/alert_template_impl.h"
#include "core/metrics/go_format.h"

namespace limitscope::metrics {

using tmpl::Command;
using tmpl::Element;
using tmpl::List;
using tmpl::Operand;
using tmpl::Pipeline;

std::string AlertTemplate::Impl::error_at(std::size_t pos, std::string_view reason) const {
  std::size_t line = 1;
  std::size_t col = 1;
  for (std::size_t i = 0; i < pos && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return "template " + name + ": line " + std::to_string(line) + ", column " + std::to_string(col) +
         ": " + std::string(reason);
}

namespace {

// Functions a template may call; checked at parse time, as Go's parser does.
constexpr std::array<std::string_view, 23> kFunctions{"humanize",
                                                      "humanize1024",
                                                      "humanizeDuration",
                                                      "humanizePercentage",
                                                      "humanizeTimestamp",
                                                      "printf",
                                                      "print",
                                                      "toUpper",
                                                      "toLower",
                                                      "title",
                                                      "match",
                                                      "reReplaceAll",
                                                      "index",
                                                      "len",
                                                      "not",
                                                      "and",
                                                      "or",
                                                      "eq",
                                                      "ne",
                                                      "lt",
                                                      "le",
                                                      "gt",
                                                      "ge"};
// Prometheus functions that need a querier or a web context limitscope's templates lack.
constexpr std::array<std::string_view, 14> kRefusedFunctions{
    "query",    "first",     "label",     "value",     "sortByLabel", "strvalue",   "args",
    "safeHtml", "stripPort", "graphLink", "tableLink", "externalURL", "pathPrefix", "toTime"};

enum class Tok {
  ident,
  variable,
  field,
  dot,
  string,
  number,
  pipe,
  lparen,
  rparen,
  declare,
  assign
};

struct Token {
  Tok kind;
  std::string text;  // identifier, variable, field name (no dot), decoded string, number text
  std::size_t pos = 0;
  bool adjacent = false;  // no whitespace between this token and the previous one
};

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}
bool is_alpha(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool is_digit(char c) {
  return c >= '0' && c <= '9';
}
bool is_alnum(char c) {
  return is_alpha(c) || is_digit(c);
}

class Parser {
 public:
  explicit Parser(AlertTemplate::Impl& impl) : impl_(impl), text_(impl.text) {}

  // @return ok, or the first error (its position in the text)
  Status run() {
    vars_ = {"$", "$labels", "$externalLabels", "$externalURL", "$value"};
    std::string stop;
    if (Status parsed = parse_list(impl_.root, stop); !parsed.ok()) return parsed;
    if (!stop.empty()) return fail(stop_pos_, "unexpected {{" + stop + "}}");
    return {};
  }

 private:
  // The error at `pos` of the text: what every step returns when it fails.
  Error fail(std::size_t pos, std::string_view reason) const {
    return make_error(impl_.error_at(pos, reason));
  }

  // Parses elements until {{else}}/{{end}} (returned in stop, "" at end of text).
  Status parse_list(List& out, std::string& stop) {
    stop.clear();
    while (i_ < text_.size()) {
      const std::size_t open = text_.find("{{", i_);
      std::string chunk(
          text_.substr(i_, open == std::string_view::npos ? std::string_view::npos : open - i_));
      if (trim_next_) {
        chunk.erase(0, std::find_if(chunk.begin(), chunk.end(), [](char c) {
                         return !is_space(c);
                       }) - chunk.begin());
        trim_next_ = false;
      }
      if (open == std::string_view::npos) {
        push_text(out, std::move(chunk), i_);
        i_ = text_.size();
        break;
      }
      std::size_t p = open + 2;
      open_pos_ = open;
      if (p + 1 < text_.size() && text_[p] == '-' && is_space(text_[p + 1])) {
        while (!chunk.empty() && is_space(chunk.back())) chunk.pop_back();
        p += 2;
      }
      push_text(out, std::move(chunk), i_);
      impl_.has_actions = true;
      std::vector<Token> toks;
      std::size_t content_start = p;
      if (Status st = scan_action(p, toks); !st.ok()) return st;
      if (toks.empty()) {
        if (comment_) continue;
        return fail(content_start, "missing value for command");
      }
      if (toks[0].kind == Tok::ident) {
        const std::string& kw = toks[0].text;
        if (kw == "end" || kw == "else") {
          stop = kw;
          stop_pos_ = toks[0].pos;
          stop_tokens_.assign(toks.begin() + 1, toks.end());
          return {};
        }
        if (kw == "if") {
          if (Status st = parse_if(out, toks); !st.ok()) return st;
          continue;
        }
        if (kw == "range" || kw == "with" || kw == "define" || kw == "template" || kw == "block" ||
            kw == "break" || kw == "continue") {
          return fail(toks[0].pos,
                      "action \"" + kw + "\" is not supported by limitscope templates");
        }
      }
      Element e;
      e.kind = Element::Kind::action;
      e.pos = toks[0].pos;
      std::size_t k = 0;
      if (Status st = parse_pipeline(toks, k, e.pipeline, false); !st.ok()) return st;
      out.push_back(std::move(e));
    }
    return {};
  }

  void push_text(List& out, std::string chunk, std::size_t pos) {
    if (chunk.empty()) return;
    Element e;
    e.kind = Element::Kind::text;
    e.text = std::move(chunk);
    e.pos = pos;
    out.push_back(std::move(e));
  }

  Status parse_if(List& out, std::vector<Token> toks) {
    Element e;
    e.kind = Element::Kind::conditional;
    e.pos = toks[0].pos;
    for (;;) {
      tmpl::Branch b;
      const std::size_t scope = vars_.size();
      std::size_t k = 1;
      if (toks.size() < 2) return fail(toks[0].pos, "missing value for if");
      if (Status st = parse_pipeline(toks, k, b.condition, false); !st.ok()) return st;
      std::string stop;
      if (Status st = parse_list(b.body, stop); !st.ok()) return st;
      vars_.resize(scope);
      e.branches.push_back(std::move(b));
      if (stop.empty()) return fail(e.pos, "unexpected EOF: {{if}} without {{end}}");
      if (stop == "end") {
        if (!stop_tokens_.empty()) return fail(stop_tokens_[0].pos, "unexpected token in {{end}}");
        break;
      }
      // {{else}} or {{else if ...}}
      if (!stop_tokens_.empty()) {
        if (stop_tokens_[0].kind != Tok::ident || stop_tokens_[0].text != "if") {
          return fail(stop_tokens_[0].pos, "unexpected token in {{else}}");
        }
        toks = stop_tokens_;
        continue;
      }
      std::string stop2;
      if (Status st = parse_list(e.otherwise, stop2); !st.ok()) return st;
      vars_.resize(scope);
      if (stop2 != "end") return fail(e.pos, "expected {{end}} after {{else}}");
      if (!stop_tokens_.empty()) return fail(stop_tokens_[0].pos, "unexpected token in {{end}}");
      break;
    }
    out.push_back(std::move(e));
    return {};
  }

  // Lexes one action starting at p (just after "{{" and an optional "- "); leaves i_ after "}}".
  Status scan_action(std::size_t p, std::vector<Token>& toks) {
    comment_ = false;
    if (text_.compare(p, 2, "/*") == 0) {
      const std::size_t close = text_.find("*/", p + 2);
      if (close == std::string_view::npos) return fail(p, "unclosed comment");
      p = close + 2;
      if (text_.compare(p, 4, " -}}") == 0) {
        trim_next_ = true;
        p += 2;
      }
      if (text_.compare(p, 2, "}}") != 0) return fail(p, "comment ends before closing delimiter");
      i_ = p + 2;
      comment_ = true;
      return {};
    }
    bool space_before = true;
    while (p < text_.size()) {
      const char c = text_[p];
      if (is_space(c)) {
        if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
          // " -}}" closes with right trim.
          std::size_t q = p;
          while (q < text_.size() && is_space(text_[q])) ++q;
          if (text_.compare(q, 3, "-}}") == 0) {
            trim_next_ = true;
            i_ = q + 3;
            return {};
          }
        }
        ++p;
        space_before = true;
        continue;
      }
      if (text_.compare(p, 2, "}}") == 0) {
        i_ = p + 2;
        return {};
      }
      Token t;
      t.pos = p;
      t.adjacent = !space_before && !toks.empty();
      space_before = false;
      if (c == '"' || c == '`') {
        if (Status st = scan_string(p, t); !st.ok()) return st;
      } else if (c == '|') {
        t.kind = Tok::pipe;
        ++p;
      } else if (c == '(') {
        t.kind = Tok::lparen;
        ++p;
      } else if (c == ')') {
        t.kind = Tok::rparen;
        ++p;
      } else if (c == ':' && p + 1 < text_.size() && text_[p + 1] == '=') {
        t.kind = Tok::declare;
        p += 2;
      } else if (c == '=') {
        t.kind = Tok::assign;
        ++p;
      } else if (c == '$') {
        std::size_t q = p + 1;
        while (q < text_.size() && is_alnum(text_[q])) ++q;
        t.kind = Tok::variable;
        t.text = std::string(text_.substr(p, q - p));
        p = q;
      } else if (c == '.' && p + 1 < text_.size() && is_alpha(text_[p + 1])) {
        std::size_t q = p + 1;
        while (q < text_.size() && is_alnum(text_[q])) ++q;
        t.kind = Tok::field;
        t.text = std::string(text_.substr(p + 1, q - p - 1));
        p = q;
      } else if (is_digit(c) || ((c == '-' || c == '+' || c == '.') && p + 1 < text_.size() &&
                                 (is_digit(text_[p + 1]) || text_[p + 1] == '.'))) {
        std::size_t q = p + 1;
        while (q < text_.size() && (is_alnum(text_[q]) || text_[q] == '.' ||
                                    ((text_[q] == '+' || text_[q] == '-') &&
                                     (text_[q - 1] == 'e' || text_[q - 1] == 'E')))) {
          ++q;
        }
        t.kind = Tok::number;
        t.text = std::string(text_.substr(p, q - p));
        p = q;
      } else if (c == '.') {
        t.kind = Tok::dot;
        ++p;
      } else if (is_alpha(c)) {
        std::size_t q = p;
        while (q < text_.size() && is_alnum(text_[q])) ++q;
        t.kind = Tok::ident;
        t.text = std::string(text_.substr(p, q - p));
        p = q;
      } else {
        return fail(p, std::string("unexpected \"") + c + "\" in command");
      }
      toks.push_back(std::move(t));
    }
    return fail(open_pos_, "unclosed action");
  }

  Status scan_string(std::size_t& p, Token& t) {
    t.kind = Tok::string;
    const char quote = text_[p];
    std::size_t q = p + 1;
    while (q < text_.size() && text_[q] != quote) {
      const char c = text_[q];
      if (quote == '"' && c == '\n') return fail(p, "unterminated quoted string");
      if (quote == '"' && c == '\\') {
        if (q + 1 >= text_.size()) break;
        const char e = text_[q + 1];
        switch (e) {
          case 'n':
            t.text += '\n';
            break;
          case 't':
            t.text += '\t';
            break;
          case 'r':
            t.text += '\r';
            break;
          case '\\':
            t.text += '\\';
            break;
          case '"':
            t.text += '"';
            break;
          case '\'':
            t.text += '\'';
            break;
          default:
            return fail(q, std::string("unsupported escape \\") + e + " in string");
        }
        q += 2;
        continue;
      }
      t.text += c;
      ++q;
    }
    if (q >= text_.size()) return fail(p, "unterminated quoted string");
    p = q + 1;
    return {};
  }

  // pipeline := [ $var (:= | =) ] command ( '|' command )*   ending at end or ')'.
  Status parse_pipeline(const std::vector<Token>& toks, std::size_t& k, Pipeline& out,
                        bool in_paren) {
    out.pos = k < toks.size() ? toks[k].pos : 0;
    if (k + 1 < toks.size() && toks[k].kind == Tok::variable &&
        (toks[k + 1].kind == Tok::declare || toks[k + 1].kind == Tok::assign)) {
      out.declare = toks[k].text;
      out.assign = toks[k + 1].kind == Tok::assign;
      if (out.assign && std::find(vars_.begin(), vars_.end(), out.declare) == vars_.end()) {
        return fail(toks[k].pos, "undefined variable \"" + out.declare + "\"");
      }
      k += 2;
    }
    for (;;) {
      Command cmd;
      cmd.pos = k < toks.size() ? toks[k].pos : out.pos;
      while (k < toks.size() && toks[k].kind != Tok::pipe && toks[k].kind != Tok::rparen) {
        Operand op;
        if (Status st = parse_operand(toks, k, op); !st.ok()) return st;
        cmd.args.push_back(std::move(op));
      }
      if (cmd.args.empty()) return fail(cmd.pos, "missing command");
      out.commands.push_back(std::move(cmd));
      if (k < toks.size() && toks[k].kind == Tok::pipe) {
        ++k;
        continue;
      }
      break;
    }
    if (k < toks.size() && toks[k].kind == Tok::rparen && !in_paren) {
      return fail(toks[k].pos, "unexpected right paren");
    }
    if (!out.declare.empty() && !out.assign) vars_.push_back(out.declare);
    return {};
  }

  Status parse_operand(const std::vector<Token>& toks, std::size_t& k, Operand& op) {
    const Token& t = toks[k];
    op.pos = t.pos;
    switch (t.kind) {
      case Tok::string:
        op.kind = Operand::Kind::string;
        op.text = t.text;
        ++k;
        break;
      case Tok::number:
        if (Status st = parse_number(t, op); !st.ok()) return st;
        ++k;
        break;
      case Tok::variable:
        if (std::find(vars_.begin(), vars_.end(), t.text) == vars_.end()) {
          return fail(t.pos, "undefined variable \"" + t.text + "\"");
        }
        op.kind = Operand::Kind::variable;
        op.text = t.text;
        ++k;
        break;
      case Tok::dot:
        op.kind = Operand::Kind::dot;
        ++k;
        break;
      case Tok::field:  // ".Labels" is dot followed by a field
        op.kind = Operand::Kind::dot;
        break;
      case Tok::lparen: {
        ++k;
        op.kind = Operand::Kind::pipeline;
        op.pipeline = std::make_shared<Pipeline>();
        if (Status st = parse_pipeline(toks, k, *op.pipeline, true); !st.ok()) return st;
        if (k >= toks.size() || toks[k].kind != Tok::rparen)
          return fail(t.pos, "unclosed left paren");
        ++k;
        break;
      }
      case Tok::ident:
        if (t.text == "true" || t.text == "false") {
          op.kind = Operand::Kind::boolean;
          op.boolean = t.text == "true";
        } else if (t.text == "nil") {
          op.kind = Operand::Kind::nil;
        } else if (std::find(kFunctions.begin(), kFunctions.end(), t.text) != kFunctions.end()) {
          op.kind = Operand::Kind::function;
          op.text = t.text;
        } else if (std::find(kRefusedFunctions.begin(), kRefusedFunctions.end(), t.text) !=
                   kRefusedFunctions.end()) {
          return fail(t.pos, "function \"" + t.text +
                                 "\" is not supported by limitscope templates (no querier)");
        } else {
          return fail(t.pos, "function \"" + t.text + "\" not defined");
        }
        ++k;
        break;
      default:
        return fail(t.pos, "unexpected token in operand");
    }
    // Field chain directly attached: $labels.tier, .Labels.tier, (pipeline).x
    while (k < toks.size() && toks[k].kind == Tok::field &&
           (toks[k].adjacent ||
            (op.kind == Operand::Kind::dot && op.fields.empty() && toks[k].pos == op.pos))) {
      if (op.kind == Operand::Kind::function)
        return fail(toks[k].pos, "unexpected field after function");
      op.fields.push_back(toks[k].text);
      ++k;
    }
    return {};
  }

  Status parse_number(const Token& t, Operand& op) {
    const std::string& s = t.text;
    const bool floaty = s.find_first_of(".eEpP") != std::string::npos &&
                        !(s.size() > 1 && (s[1] == 'x' || s[1] == 'X'));
    if (!floaty) {
      std::int64_t v = 0;
      std::string_view body = s;
      bool neg = false;
      if (!body.empty() && (body[0] == '-' || body[0] == '+')) {
        neg = body[0] == '-';
        body.remove_prefix(1);
      }
      int base = 10;
      if (body.size() > 2 && body[0] == '0' && (body[1] == 'x' || body[1] == 'X')) {
        base = 16;
        body.remove_prefix(2);
      }
      auto r = std::from_chars(body.data(), body.data() + body.size(), v, base);
      if (r.ec == std::errc() && r.ptr == body.data() + body.size()) {
        op.kind = Operand::Kind::integer;
        op.integer = neg ? -v : v;
        return {};
      }
    }
    auto f = gofmt::parse_float(s);
    if (!f.ok() || s == "NaN" || s == "Inf") return fail(t.pos, "bad number syntax: \"" + s + "\"");
    op.kind = Operand::Kind::floating;
    op.floating = *f;
    return {};
  }

  AlertTemplate::Impl& impl_;
  std::string_view text_;
  std::size_t i_ = 0;
  bool trim_next_ = false;
  bool comment_ = false;
  std::size_t stop_pos_ = 0;
  std::size_t open_pos_ = 0;  // the "{{" of the action being scanned
  std::vector<Token> stop_tokens_;
  std::vector<std::string> vars_;  // declared variables in scope
};

}  // namespace

Expected<AlertTemplate> AlertTemplate::parse(std::string_view text, std::string_view name) {
  auto impl = std::make_shared<Impl>();
  impl->name = std::string(name);
  impl->text = std::string(text);
  Parser parser(*impl);
  if (Status parsed = parser.run(); !parsed.ok()) return make_error(parsed.error());
  return AlertTemplate(std::move(impl));
}

AlertTemplate::AlertTemplate() : impl_(std::make_shared<const Impl>()) {}

const std::string& AlertTemplate::text() const {
  return impl_->text;
}
bool AlertTemplate::has_actions() const {
  return impl_->has_actions;
}

}  // namespace limitscope::metrics
