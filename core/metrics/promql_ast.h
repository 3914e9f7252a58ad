#pragma once
// The syntax tree of the PromQL subset limitscope evaluates (see docs/promql.md). Nodes are
// immutable once parsed and shared through ExprPtr, so a parsed rule can be evaluated from
// several threads at once.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "core/metrics/series_store.h"

namespace limitscope::metrics {

struct Expr;
using ExprPtr = std::shared_ptr<const Expr>;

/// The static type of an expression, as Prometheus's parser checks it.
enum class ValueType { scalar, instant_vector, range_vector };
std::string_view value_type_name(ValueType t);  // "scalar", "instant vector", "range vector"

struct NumberLiteral {
  double value = 0;
};

/// `metric{a="x"} offset 5m`. The metric name, when given, is also a `__name__` matcher.
struct VectorSelector {
  std::string metric_name;             // "" when only braces were given
  std::vector<LabelMatcher> matchers;  // includes the __name__ matcher
  std::int64_t offset_ms = 0;          // may be negative
};

/// `selector[5m]`; offset lives in the inner selector.
struct MatrixSelector {
  VectorSelector selector;
  std::int64_t range_ms = 0;  // > 0
};

struct UnaryExpr {
  char op = '-';  // '-' or '+'
  ExprPtr operand;
};

struct ParenExpr {
  ExprPtr inner;
};

/// A function call; `name` is one of the supported functions (docs/promql.md).
struct Call {
  std::string name;
  std::vector<ExprPtr> args;
};

enum class AggregateOp { sum, min, max, avg, count };
std::string_view aggregate_op_name(AggregateOp op);

/// `sum by (a, b) (expr)` / `sum without (a) (expr)`; no grouping = one group.
struct Aggregate {
  AggregateOp op = AggregateOp::sum;
  bool without = false;
  std::vector<std::string> grouping;
  ExprPtr operand;
};

enum class BinaryOp { add, sub, mul, div, mod, pow, eq, ne, gt, lt, ge, le, land, lor, lunless };
std::string_view binary_op_text(BinaryOp op);  // "+", "==", "and", ...
bool is_comparison(BinaryOp op);
bool is_set_operator(BinaryOp op);  // and, or, unless

/// `on(a, b)` / `ignoring(a)` of a binary operation between two vectors (one-to-one, or
/// many-to-many for and/or/unless).
struct VectorMatching {
  bool on = false;  // false: ignoring(labels) (the default with no labels)
  std::vector<std::string> labels;
};

struct BinaryExpr {
  BinaryOp op = BinaryOp::add;
  ExprPtr lhs;
  ExprPtr rhs;
  bool return_bool = false;  // `bool` modifier of a comparison
  VectorMatching matching;
};

struct Expr {
  std::variant<NumberLiteral, VectorSelector, MatrixSelector, UnaryExpr, ParenExpr, Call, Aggregate,
               BinaryExpr>
      node;
  ValueType type = ValueType::scalar;
  std::size_t pos = 0;  ///< byte offset of the construct in the query text
};

/// Canonical PromQL text of an expression (parsable again to an equal tree).
std::string to_string(const Expr& e);

/// A comparison of a vector with a number at the top of an expression: `rate(x[5m]) > 0.5`,
/// or `0.5 < rate(x[5m])`, read as the same (op is the one with the vector on the left).
struct ConstantComparison {
  const Expr* vector = nullptr;  ///< the compared side, inside the expression
  BinaryOp op = BinaryOp::gt;    ///< gt, ge, lt or le
  double constant = 0;
};
/// The expression's comparison with a number (parentheses around it, or around or before the
/// number, aside); nullopt for anything else: no comparison at the top, `==`/`!=`, a `bool`
/// comparison, or a side that is not a number literal (`x > y`, `x > scalar(y)`).
std::optional<ConstantComparison> constant_comparison(const Expr& e);

/// The metric names the expression's selectors read (sorted, unique; a selector without a
/// name is left out): what a rule watches, so a dashboard can tell which charts and sources
/// it is about.
std::vector<std::string> metric_names(const Expr& e);

/// The side an alert expression fires on, from its constant_comparison(): true for "v > c" or
/// "v >= c" (and "c < v"): a higher v is worse; false for "v < c" or "v <= c"; nullopt when it
/// has no such comparison.
std::optional<bool> alerts_when_higher(const Expr& e);

}  // namespace limitscope::metrics
