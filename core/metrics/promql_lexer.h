#pragma once
// Tokenizer of PromQL text: numbers, durations, strings, identifiers and operators, each with
// its byte offset so parse errors can name a column.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/common/expected.h"

namespace limitscope::metrics {

enum class TokenKind {
  identifier,  // metric/label/function names and keywords (context decides)
  number,      // 1, 1.5e3, 0x1f, Inf, NaN
  duration,    // 5m, 1h30m, 100ms
  string,      // "..." '...' `...` (value unescaped)
  lparen,
  rparen,
  lbrace,
  rbrace,
  lbracket,
  rbracket,
  comma,
  colon,
  at,
  assign,       // =   (label matcher)
  ne,           // !=
  re_match,     // =~
  re_no_match,  // !~
  eq,           // ==
  lt,
  gt,
  le,
  ge,
  add,
  sub,
  mul,
  div,
  mod,
  pow,
  end,
};

struct Token {
  TokenKind kind = TokenKind::end;
  std::size_t pos = 0;           ///< byte offset of the first character
  std::string_view text;         ///< the raw source text of the token
  double number = 0;             ///< for number
  std::int64_t duration_ms = 0;  ///< for duration
  std::string str;               ///< unescaped value for string
};

/// Human-readable position of a byte offset: "column C" or "line L, column C" (1-based) when
/// the query spans several lines.
std::string describe_position(std::string_view query, std::size_t pos);

/// Splits a query into tokens, ending with one TokenKind::end token.
/// @return the tokens, or an error naming the bad character/literal and its position.
Expected<std::vector<Token>> lex_promql(std::string_view query);

/// Parses a Prometheus duration (`1h30m`, `100ms`; units ms s m h d w y, each at most once,
/// largest first). @return milliseconds, or an error.
Expected<std::int64_t> parse_promql_duration(std::string_view text);
/// The canonical text of a duration in milliseconds, as Prometheus prints it: each unit from
/// the largest down, zero units left out ("1h30m", "100ms"; "0s" for 0).
std::string format_promql_duration(std::int64_t ms);

}  // namespace limitscope::metrics
