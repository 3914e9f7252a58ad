// Recursive-descent parser of the PromQL subset (precedence climbing for binary operators),
// with Prometheus's static type checks. Unsupported constructs are refused by name.

#include <algorithm>
#include <array>
#include <cmath>
#include <unordered_map>

#include "core/metrics/promql.h"
#include "core/metrics/promql_functions.h"
#include "core/metrics/promql_lexer.h"

namespace limitscope::metrics {

namespace {

constexpr int kMaxDepth = 200;  // bounds recursion in parsing and evaluation

struct Parsed {
  ExprPtr expr;
  int depth = 1;
};

int precedence(TokenKind k, std::string_view ident) {
  switch (k) {
    case TokenKind::pow:
      return 6;
    case TokenKind::mul:
    case TokenKind::div:
    case TokenKind::mod:
      return 5;
    case TokenKind::add:
    case TokenKind::sub:
      return 4;
    case TokenKind::eq:
    case TokenKind::ne:
    case TokenKind::lt:
    case TokenKind::gt:
    case TokenKind::le:
    case TokenKind::ge:
      return 3;
    case TokenKind::identifier:
      if (ident == "and" || ident == "unless") return 2;
      if (ident == "or") return 1;
      if (ident == "atan2") return 5;
      return 0;
    default:
      return 0;
  }
}

BinaryOp binary_op_of(TokenKind k, std::string_view ident) {
  switch (k) {
    case TokenKind::pow:
      return BinaryOp::pow;
    case TokenKind::mul:
      return BinaryOp::mul;
    case TokenKind::div:
      return BinaryOp::div;
    case TokenKind::mod:
      return BinaryOp::mod;
    case TokenKind::add:
      return BinaryOp::add;
    case TokenKind::sub:
      return BinaryOp::sub;
    case TokenKind::eq:
      return BinaryOp::eq;
    case TokenKind::ne:
      return BinaryOp::ne;
    case TokenKind::lt:
      return BinaryOp::lt;
    case TokenKind::gt:
      return BinaryOp::gt;
    case TokenKind::le:
      return BinaryOp::le;
    case TokenKind::ge:
      return BinaryOp::ge;
    default:
      break;
  }
  if (ident == "and") return BinaryOp::land;
  if (ident == "unless") return BinaryOp::lunless;
  return BinaryOp::lor;
}

bool is_label_name(std::string_view s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0])) != 0) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
  });
}

constexpr std::array<std::string_view, 5> kAggregates = {"sum", "min", "max", "avg", "count"};
constexpr std::array<std::string_view, 7> kRefusedAggregates = {
    "topk", "bottomk", "quantile", "count_values", "stddev", "stdvar", "group"};
constexpr std::array<std::string_view, 5> kRefusedModifierKeywords = {"group_left", "group_right",
                                                                      "start", "end", "atan2"};

class Parser {
 public:
  Parser(std::string_view q, std::vector<Token> toks) : q_(q), toks_(std::move(toks)) {}

  Expected<ExprPtr> run() {
    auto e = parse_binary(1, 0);
    if (!e) return Error{e.error()};
    if (peek().kind != TokenKind::end) return unexpected(peek(), "end of expression");
    return e->expr;
  }

 private:
  const Token& peek(std::size_t ahead = 0) const {
    return toks_[std::min(i_ + ahead, toks_.size() - 1)];
  }
  const Token& take() { return toks_[std::min(i_++, toks_.size() - 1)]; }
  bool peek_ident(std::string_view word, std::size_t ahead = 0) const {
    return peek(ahead).kind == TokenKind::identifier && peek(ahead).text == word;
  }

  Error fail(std::size_t pos, const std::string& what) const {
    return make_error(describe_position(q_, pos) + ": " + what);
  }
  Error unexpected(const Token& t, std::string_view expected) const {
    std::string got = t.kind == TokenKind::end ? "end of input" : "\"" + std::string(t.text) + "\"";
    return fail(t.pos, "unexpected " + got + ", expected " + std::string(expected));
  }
  Error unsupported(std::size_t pos, std::string_view construct) const {
    return fail(pos, "unsupported construct " + std::string(construct));
  }

  static Parsed node(Expr e, int depth) {
    return Parsed{std::make_shared<const Expr>(std::move(e)), depth};
  }
  Expected<Parsed> check_depth(Parsed p, std::size_t pos) const {
    if (p.depth > kMaxDepth) {
      return fail(pos, "expression nests deeper than " + std::to_string(kMaxDepth) + " levels");
    }
    return p;
  }

  // binary := unary (op modifiers binary)*, climbing by precedence; ^ is right-associative.
  Expected<Parsed> parse_binary(int min_prec, int depth) {
    if (depth > kMaxDepth) return fail(peek().pos, "expression nests too deeply");
    auto lhs = parse_unary(depth);
    if (!lhs) return lhs;
    while (true) {
      const Token& op_tok = peek();
      int prec = precedence(op_tok.kind, op_tok.text);
      if (prec == 0 || prec < min_prec) break;
      if (op_tok.kind == TokenKind::identifier && op_tok.text == "atan2") {
        return unsupported(op_tok.pos, "\"atan2\"");
      }
      take();
      BinaryExpr b;
      b.op = binary_op_of(op_tok.kind, op_tok.text);
      if (peek_ident("bool")) {
        if (!is_comparison(b.op)) {
          return fail(peek().pos, "bool modifier can only be used on comparison operators");
        }
        b.return_bool = true;
        take();
      }
      bool has_matching = false;
      if (peek_ident("on") || peek_ident("ignoring")) {
        has_matching = true;
        b.matching.on = take().text == "on";
        auto labels = parse_label_list();
        if (!labels) return Error{labels.error()};
        b.matching.labels = std::move(*labels);
      }
      if (peek_ident("group_left") || peek_ident("group_right")) {
        return unsupported(peek().pos,
                           "\"" + std::string(peek().text) + "\" (many-to-one matching)");
      }
      int next_min = b.op == BinaryOp::pow ? prec : prec + 1;
      auto rhs = parse_binary(next_min, depth + 1);
      if (!rhs) return rhs;
      b.lhs = lhs->expr;
      b.rhs = rhs->expr;
      auto checked = type_check_binary(b, op_tok, has_matching);
      if (!checked) return Error{checked.error()};
      Expr e{std::move(b), *checked, op_tok.pos};
      auto p = check_depth(node(std::move(e), std::max(lhs->depth, rhs->depth) + 1), op_tok.pos);
      if (!p) return p;
      lhs = std::move(p);
    }
    return lhs;
  }

  Expected<ValueType> type_check_binary(const BinaryExpr& b, const Token& op_tok,
                                        bool has_matching) const {
    for (const ExprPtr& side : {b.lhs, b.rhs}) {
      if (side->type == ValueType::range_vector) {
        return fail(side->pos,
                    "binary expression must contain only scalar and instant vector "
                    "types, got a range vector");
      }
    }
    bool both_scalar = b.lhs->type == ValueType::scalar && b.rhs->type == ValueType::scalar;
    bool any_scalar = b.lhs->type == ValueType::scalar || b.rhs->type == ValueType::scalar;
    std::string op_name(binary_op_text(b.op));
    if (is_set_operator(b.op) && any_scalar) {
      return fail(op_tok.pos, "set operator \"" + op_name + "\" not allowed with a scalar operand");
    }
    if (has_matching && any_scalar) {
      return fail(op_tok.pos, "vector matching only allowed between instant vectors");
    }
    if (both_scalar && is_comparison(b.op) && !b.return_bool) {
      return fail(op_tok.pos, "comparisons between scalars must use the bool modifier");
    }
    return both_scalar ? ValueType::scalar : ValueType::instant_vector;
  }

  // unary := ('-' | '+') unary-operand | postfix. Unary minus binds looser than ^ (as in
  // Prometheus: -2^2 == -4) and tighter than * /.
  Expected<Parsed> parse_unary(int depth) {
    const Token& t = peek();
    if (t.kind != TokenKind::sub && t.kind != TokenKind::add) return parse_postfix(depth);
    take();
    auto operand = parse_binary(6, depth + 1);
    if (!operand) return operand;
    if (operand->expr->type == ValueType::range_vector) {
      return fail(t.pos, "unary expression only allowed on scalars and instant vectors");
    }
    if (const auto* num = std::get_if<NumberLiteral>(&operand->expr->node)) {
      double v = t.kind == TokenKind::sub ? -num->value : num->value;
      return node(Expr{NumberLiteral{v}, ValueType::scalar, t.pos}, operand->depth);
    }
    Expr e{UnaryExpr{t.kind == TokenKind::sub ? '-' : '+', operand->expr}, operand->expr->type,
           t.pos};
    return check_depth(node(std::move(e), operand->depth + 1), t.pos);
  }

  // postfix := primary ('[' duration ']')? ('offset' '-'? duration)?
  Expected<Parsed> parse_postfix(int depth) {
    auto p = parse_primary(depth);
    if (!p) return p;
    while (true) {
      const Token& t = peek();
      if (t.kind == TokenKind::lbracket) {
        auto r = parse_range(*p, t);
        if (!r) return r;
        p = std::move(r);
      } else if (peek_ident("offset")) {
        auto r = parse_offset(*p, t);
        if (!r) return r;
        p = std::move(r);
      } else if (t.kind == TokenKind::at) {
        return unsupported(t.pos, "\"@\" (evaluation time modifier)");
      } else {
        return p;
      }
    }
  }

  Expected<Parsed> parse_range(const Parsed& p, const Token& bracket) {
    take();
    const Token& d = peek();
    if (d.kind != TokenKind::duration) {
      if (d.kind == TokenKind::colon) return unsupported(bracket.pos, "subquery");
      return unexpected(d, "a duration such as 5m inside [ ]");
    }
    take();
    if (peek().kind == TokenKind::colon) return unsupported(bracket.pos, "subquery");
    if (peek().kind != TokenKind::rbracket) return unexpected(peek(), "\"]\"");
    take();
    const auto* vs = std::get_if<VectorSelector>(&p.expr->node);
    if (vs == nullptr) {
      if (p.expr->type == ValueType::range_vector) {
        return fail(bracket.pos, "range already given for this selector");
      }
      return unsupported(bracket.pos, "subquery (a range is only allowed after a selector)");
    }
    if (vs->offset_ms != 0) return fail(bracket.pos, "no offset modifiers allowed before range");
    if (d.duration_ms <= 0) return fail(d.pos, "range must be greater than zero");
    Expr e{MatrixSelector{*vs, d.duration_ms}, ValueType::range_vector, p.expr->pos};
    return node(std::move(e), p.depth);
  }

  Expected<Parsed> parse_offset(const Parsed& p, const Token& kw) {
    take();
    bool negative = false;
    if (peek().kind == TokenKind::sub) {
      negative = true;
      take();
    }
    const Token& d = peek();
    if (d.kind != TokenKind::duration) return unexpected(d, "a duration after offset");
    take();
    std::int64_t off = negative ? -d.duration_ms : d.duration_ms;
    if (const auto* vs = std::get_if<VectorSelector>(&p.expr->node)) {
      if (vs->offset_ms != 0) return fail(kw.pos, "offset may not be set multiple times");
      VectorSelector copy = *vs;
      copy.offset_ms = off;
      return node(Expr{std::move(copy), ValueType::instant_vector, p.expr->pos}, p.depth);
    }
    if (const auto* ms = std::get_if<MatrixSelector>(&p.expr->node)) {
      if (ms->selector.offset_ms != 0) return fail(kw.pos, "offset may not be set multiple times");
      MatrixSelector copy = *ms;
      copy.selector.offset_ms = off;
      return node(Expr{std::move(copy), ValueType::range_vector, p.expr->pos}, p.depth);
    }
    return fail(kw.pos, "offset modifier must be preceded by a selector");
  }

  Expected<Parsed> parse_primary(int depth) {
    const Token& t = peek();
    switch (t.kind) {
      case TokenKind::number:
        take();
        return node(Expr{NumberLiteral{t.number}, ValueType::scalar, t.pos}, 1);
      case TokenKind::duration: {
        // A duration where a number is expected counts its seconds (newer Prometheus does so).
        take();
        double secs = static_cast<double>(t.duration_ms) / 1000.0;
        return node(Expr{NumberLiteral{secs}, ValueType::scalar, t.pos}, 1);
      }
      case TokenKind::string:
        return unsupported(t.pos, "string literal");
      case TokenKind::lparen: {
        take();
        auto inner = parse_binary(1, depth + 1);
        if (!inner) return inner;
        if (peek().kind != TokenKind::rparen) return unexpected(peek(), "\")\"");
        take();
        Expr e{ParenExpr{inner->expr}, inner->expr->type, t.pos};
        return check_depth(node(std::move(e), inner->depth + 1), t.pos);
      }
      case TokenKind::lbrace:
        return parse_selector("", t.pos);
      case TokenKind::identifier:
        return parse_identifier(depth);
      default:
        return unexpected(t, "an expression");
    }
  }

  Expected<Parsed> parse_identifier(int depth) {
    const Token& t = take();
    std::string_view name = t.text;
    bool call = peek().kind == TokenKind::lparen;
    bool grouping_next = peek_ident("by") || peek_ident("without");
    if (std::find(kAggregates.begin(), kAggregates.end(), name) != kAggregates.end() &&
        (call || grouping_next)) {
      return parse_aggregate(t, depth);
    }
    if (std::find(kRefusedAggregates.begin(), kRefusedAggregates.end(), name) !=
            kRefusedAggregates.end() &&
        (call || grouping_next)) {
      return unsupported(t.pos, "aggregation \"" + std::string(name) + "\"");
    }
    if (call) return parse_call(t, depth);
    for (std::string_view kw :
         {"by", "without", "on", "ignoring", "bool", "offset", "and", "or", "unless"}) {
      if (name == kw) return fail(t.pos, "unexpected keyword \"" + std::string(name) + "\"");
    }
    if (std::find(kRefusedModifierKeywords.begin(), kRefusedModifierKeywords.end(), name) !=
        kRefusedModifierKeywords.end()) {
      return unsupported(t.pos, "\"" + std::string(name) + "\"");
    }
    return parse_selector(std::string(name), t.pos);
  }

  Expected<Parsed> parse_call(const Token& name_tok, int depth) {
    const FunctionInfo* fn = find_function(name_tok.text);
    if (fn == nullptr)
      return unsupported(name_tok.pos, "function \"" + std::string(name_tok.text) + "\"");
    take();  // (
    Call c;
    c.name = std::string(name_tok.text);
    int max_depth = 0;
    while (peek().kind != TokenKind::rparen) {
      if (!c.args.empty()) {
        if (peek().kind != TokenKind::comma) return unexpected(peek(), "\",\" or \")\"");
        take();
      }
      auto arg = parse_binary(1, depth + 1);
      if (!arg) return arg;
      max_depth = std::max(max_depth, arg->depth);
      c.args.push_back(arg->expr);
    }
    take();  // )
    std::size_t n = c.args.size();
    if (n < fn->min_args || n > fn->arg_types.size()) {
      return fail(name_tok.pos, "function \"" + c.name + "\" takes " +
                                    (fn->min_args == fn->arg_types.size()
                                         ? std::to_string(fn->min_args)
                                         : std::to_string(fn->min_args) + " to " +
                                               std::to_string(fn->arg_types.size())) +
                                    " argument(s), got " + std::to_string(n));
    }
    for (std::size_t k = 0; k < n; ++k) {
      if (c.args[k]->type != fn->arg_types[k]) {
        return fail(c.args[k]->pos, "argument " + std::to_string(k + 1) + " of \"" + c.name +
                                        "\" must be of type " +
                                        std::string(value_type_name(fn->arg_types[k])) + ", got " +
                                        std::string(value_type_name(c.args[k]->type)));
      }
    }
    ValueType rt = fn->return_type;
    return check_depth(node(Expr{std::move(c), rt, name_tok.pos}, max_depth + 1), name_tok.pos);
  }

  Expected<Parsed> parse_aggregate(const Token& op_tok, int depth) {
    Aggregate a;
    for (std::size_t k = 0; k < kAggregates.size(); ++k) {
      if (kAggregates[k] == op_tok.text) a.op = static_cast<AggregateOp>(k);
    }
    bool grouped = false;
    auto parse_grouping = [&]() -> Expected<bool> {
      if (!(peek_ident("by") || peek_ident("without"))) return false;
      if (grouped) return fail(peek().pos, "grouping given twice");
      grouped = true;
      a.without = take().text == "without";
      auto labels = parse_label_list();
      if (!labels) return Error{labels.error()};
      a.grouping = std::move(*labels);
      return true;
    };
    if (auto g = parse_grouping(); !g) return Error{g.error()};
    if (peek().kind != TokenKind::lparen) return unexpected(peek(), "\"(\" after aggregation");
    take();
    auto operand = parse_binary(1, depth + 1);
    if (!operand) return operand;
    if (peek().kind == TokenKind::comma) {
      return unsupported(peek().pos,
                         "parameter for aggregation \"" + std::string(op_tok.text) + "\"");
    }
    if (peek().kind != TokenKind::rparen) return unexpected(peek(), "\")\"");
    take();
    if (auto g = parse_grouping(); !g) return Error{g.error()};
    if (operand->expr->type != ValueType::instant_vector) {
      return fail(operand->expr->pos, "aggregation \"" + std::string(op_tok.text) +
                                          "\" expects an instant vector, got " +
                                          std::string(value_type_name(operand->expr->type)));
    }
    a.operand = operand->expr;
    return check_depth(
        node(Expr{std::move(a), ValueType::instant_vector, op_tok.pos}, operand->depth + 1),
        op_tok.pos);
  }

  // ( name, name, ... ) with an optional trailing comma.
  Expected<std::vector<std::string>> parse_label_list() {
    if (peek().kind != TokenKind::lparen) return unexpected(peek(), "\"(\" before label list");
    take();
    std::vector<std::string> labels;
    while (peek().kind != TokenKind::rparen) {
      const Token& t = peek();
      if (t.kind != TokenKind::identifier || !is_label_name(t.text)) {
        return unexpected(t, "a label name");
      }
      labels.emplace_back(take().text);
      if (peek().kind == TokenKind::comma) {
        take();
      } else if (peek().kind != TokenKind::rparen) {
        return unexpected(peek(), "\",\" or \")\"");
      }
    }
    take();
    return labels;
  }

  // name? { label op "value", ... }
  Expected<Parsed> parse_selector(std::string name, std::size_t pos) {
    VectorSelector vs;
    vs.metric_name = name;
    if (!name.empty()) {
      auto m = LabelMatcher::make("__name__", MatchOp::equal, name);
      vs.matchers.push_back(std::move(*m));
    }
    if (peek().kind == TokenKind::lbrace) {
      take();
      while (peek().kind != TokenKind::rbrace) {
        const Token& ln = peek();
        if (ln.kind != TokenKind::identifier || !is_label_name(ln.text)) {
          return unexpected(ln, "a label name in selector");
        }
        take();
        MatchOp op;
        switch (peek().kind) {
          case TokenKind::assign:
            op = MatchOp::equal;
            break;
          case TokenKind::ne:
            op = MatchOp::not_equal;
            break;
          case TokenKind::re_match:
            op = MatchOp::regex_match;
            break;
          case TokenKind::re_no_match:
            op = MatchOp::regex_no_match;
            break;
          default:
            return unexpected(peek(), "a label matching operator (= != =~ !~)");
        }
        take();
        const Token& v = peek();
        if (v.kind != TokenKind::string) return unexpected(v, "a quoted label value");
        take();
        if (ln.text == "__name__" && !name.empty()) {
          return fail(ln.pos, "metric name must not be set twice");
        }
        auto m = LabelMatcher::make(std::string(ln.text), op, v.str);
        if (!m) return fail(v.pos, m.error());
        vs.matchers.push_back(std::move(*m));
        if (peek().kind == TokenKind::comma) {
          take();
        } else if (peek().kind != TokenKind::rbrace) {
          return unexpected(peek(), "\",\" or \"}\"");
        }
      }
      take();
    }
    bool selective = std::any_of(vs.matchers.begin(), vs.matchers.end(),
                                 [](const LabelMatcher& m) { return !m.matches(""); });
    if (!selective) {
      return fail(pos, "vector selector must contain at least one non-empty matcher");
    }
    return node(Expr{std::move(vs), ValueType::instant_vector, pos}, 1);
  }

  std::string_view q_;
  std::vector<Token> toks_;
  std::size_t i_ = 0;
};

}  // namespace

Expected<ExprPtr> parse_promql(std::string_view query) {
  auto toks = lex_promql(query);
  if (!toks) return Error{toks.error()};
  if (toks->size() == 1) return make_error("column 1: empty expression");
  return Parser(query, std::move(*toks)).run();
}

}  // namespace limitscope::metrics
