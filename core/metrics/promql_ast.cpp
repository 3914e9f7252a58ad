#include "core/metrics/promql_ast.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <type_traits>

#include "core/metrics/promql_lexer.h"

namespace limitscope::metrics {

std::string_view value_type_name(ValueType t) {
  switch (t) {
    case ValueType::scalar:
      return "scalar";
    case ValueType::instant_vector:
      return "instant vector";
    case ValueType::range_vector:
      return "range vector";
  }
  return "?";
}

std::string_view aggregate_op_name(AggregateOp op) {
  switch (op) {
    case AggregateOp::sum:
      return "sum";
    case AggregateOp::min:
      return "min";
    case AggregateOp::max:
      return "max";
    case AggregateOp::avg:
      return "avg";
    case AggregateOp::count:
      return "count";
  }
  return "?";
}

std::string_view binary_op_text(BinaryOp op) {
  switch (op) {
    case BinaryOp::add:
      return "+";
    case BinaryOp::sub:
      return "-";
    case BinaryOp::mul:
      return "*";
    case BinaryOp::div:
      return "/";
    case BinaryOp::mod:
      return "%";
    case BinaryOp::pow:
      return "^";
    case BinaryOp::eq:
      return "==";
    case BinaryOp::ne:
      return "!=";
    case BinaryOp::gt:
      return ">";
    case BinaryOp::lt:
      return "<";
    case BinaryOp::ge:
      return ">=";
    case BinaryOp::le:
      return "<=";
    case BinaryOp::land:
      return "and";
    case BinaryOp::lor:
      return "or";
    case BinaryOp::lunless:
      return "unless";
  }
  return "?";
}

bool is_comparison(BinaryOp op) {
  switch (op) {
    case BinaryOp::eq:
    case BinaryOp::ne:
    case BinaryOp::gt:
    case BinaryOp::lt:
    case BinaryOp::ge:
    case BinaryOp::le:
      return true;
    default:
      return false;
  }
}

bool is_set_operator(BinaryOp op) {
  return op == BinaryOp::land || op == BinaryOp::lor || op == BinaryOp::lunless;
}

namespace {

std::string format_number(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "Inf" : "-Inf";  // "+Inf" would reparse as unary plus
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

std::string label_list(const std::vector<std::string>& labels) {
  std::string out = "(";
  for (std::size_t i = 0; i < labels.size(); ++i) {
    if (i > 0) out += ", ";
    out += labels[i];
  }
  return out + ")";
}

std::string selector_text(const VectorSelector& vs) {
  std::string out = vs.metric_name;
  std::string inner;
  for (const LabelMatcher& m : vs.matchers) {
    if (!vs.metric_name.empty() && m.name() == "__name__" && m.op() == MatchOp::equal) continue;
    if (!inner.empty()) inner += ", ";
    inner += m.to_string();
  }
  if (!inner.empty() || vs.metric_name.empty()) out += "{" + inner + "}";
  return out;
}

std::string offset_text(std::int64_t offset_ms) {
  if (offset_ms == 0) return "";
  if (offset_ms < 0) return " offset -" + format_promql_duration(-offset_ms);
  return " offset " + format_promql_duration(offset_ms);
}

struct Printer {
  std::string operator()(const NumberLiteral& n) const { return format_number(n.value); }
  std::string operator()(const VectorSelector& vs) const {
    return selector_text(vs) + offset_text(vs.offset_ms);
  }
  std::string operator()(const MatrixSelector& ms) const {
    return selector_text(ms.selector) + "[" + format_promql_duration(ms.range_ms) + "]" +
           offset_text(ms.selector.offset_ms);
  }
  std::string operator()(const UnaryExpr& u) const {
    return std::string(1, u.op) + to_string(*u.operand);
  }
  std::string operator()(const ParenExpr& p) const { return "(" + to_string(*p.inner) + ")"; }
  std::string operator()(const Call& c) const {
    std::string out = c.name + "(";
    for (std::size_t i = 0; i < c.args.size(); ++i) {
      if (i > 0) out += ", ";
      out += to_string(*c.args[i]);
    }
    return out + ")";
  }
  std::string operator()(const Aggregate& a) const {
    std::string out(aggregate_op_name(a.op));
    if (a.without || !a.grouping.empty()) {
      out += a.without ? " without " : " by ";
      out += label_list(a.grouping);
      out += " ";
    }
    return out + "(" + to_string(*a.operand) + ")";
  }
  std::string operator()(const BinaryExpr& b) const {
    std::string out = to_string(*b.lhs) + " " + std::string(binary_op_text(b.op));
    if (b.return_bool) out += " bool";
    if (b.matching.on || !b.matching.labels.empty()) {
      out += b.matching.on ? " on" : " ignoring";
      out += label_list(b.matching.labels);
    }
    return out + " " + to_string(*b.rhs);
  }
};

}  // namespace

std::string to_string(const Expr& e) {
  return std::visit(Printer{}, e.node);
}

namespace {

const Expr* without_parens(const Expr* e) {
  while (e != nullptr) {
    const auto* p = std::get_if<ParenExpr>(&e->node);
    if (p == nullptr) break;
    e = p->inner.get();
  }
  return e;
}

// 0.5, (0.5), -0.5: a number written as one.
std::optional<double> literal_number(const Expr* e) {
  e = without_parens(e);
  if (e == nullptr) return std::nullopt;
  if (const auto* n = std::get_if<NumberLiteral>(&e->node)) return n->value;
  if (const auto* u = std::get_if<UnaryExpr>(&e->node)) {
    const auto v = literal_number(u->operand.get());
    if (v) return u->op == '-' ? -*v : *v;
  }
  return std::nullopt;
}

}  // namespace

std::optional<ConstantComparison> constant_comparison(const Expr& e) {
  const Expr* top = without_parens(&e);
  const auto* b = std::get_if<BinaryExpr>(&top->node);
  if (b == nullptr || b->return_bool || !b->lhs || !b->rhs) return std::nullopt;
  BinaryOp mirrored;  // the same comparison with its sides swapped
  switch (b->op) {
    case BinaryOp::gt:
      mirrored = BinaryOp::lt;
      break;
    case BinaryOp::ge:
      mirrored = BinaryOp::le;
      break;
    case BinaryOp::lt:
      mirrored = BinaryOp::gt;
      break;
    case BinaryOp::le:
      mirrored = BinaryOp::ge;
      break;
    default:
      return std::nullopt;
  }
  if (b->lhs->type == ValueType::instant_vector) {
    if (const auto c = literal_number(b->rhs.get()))
      return ConstantComparison{b->lhs.get(), b->op, *c};
  } else if (b->rhs->type == ValueType::instant_vector) {
    if (const auto c = literal_number(b->lhs.get()))
      return ConstantComparison{b->rhs.get(), mirrored, *c};
  }
  return std::nullopt;
}

namespace {

void collect_names(const Expr& e, std::vector<std::string>& out) {
  const auto down = [&](const ExprPtr& p) {
    if (p) collect_names(*p, out);
  };
  std::visit(
      [&](const auto& n) {
        using T = std::decay_t<decltype(n)>;
        if constexpr (std::is_same_v<T, VectorSelector>) {
          if (!n.metric_name.empty()) out.push_back(n.metric_name);
        } else if constexpr (std::is_same_v<T, MatrixSelector>) {
          if (!n.selector.metric_name.empty()) out.push_back(n.selector.metric_name);
        } else if constexpr (std::is_same_v<T, UnaryExpr> || std::is_same_v<T, Aggregate>) {
          down(n.operand);
        } else if constexpr (std::is_same_v<T, ParenExpr>) {
          down(n.inner);
        } else if constexpr (std::is_same_v<T, Call>) {
          for (const ExprPtr& a : n.args) down(a);
        } else if constexpr (std::is_same_v<T, BinaryExpr>) {
          down(n.lhs);
          down(n.rhs);
        }
      },
      e.node);
}

}  // namespace

std::optional<bool> alerts_when_higher(const Expr& e) {
  const auto c = constant_comparison(e);
  if (!c) return std::nullopt;
  return c->op == BinaryOp::gt || c->op == BinaryOp::ge;
}

std::vector<std::string> metric_names(const Expr& e) {
  std::vector<std::string> out;
  collect_names(e, out);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace limitscope::metrics
