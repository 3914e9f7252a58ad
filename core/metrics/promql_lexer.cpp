#include "core/metrics/promql_lexer.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>

namespace limitscope::metrics {

namespace {

bool is_ident_start(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) != 0 || c == '_' || c == ':';
}
bool is_ident_char(char c) {
  return is_ident_start(c) || std::isdigit(static_cast<unsigned char>(c)) != 0;
}
bool is_digit(char c) {
  return std::isdigit(static_cast<unsigned char>(c)) != 0;
}
bool is_hex(char c) {
  return std::isxdigit(static_cast<unsigned char>(c)) != 0;
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

void append_utf8(std::string& out, std::uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

class Lexer {
 public:
  explicit Lexer(std::string_view q) : q_(q) {}

  Expected<std::vector<Token>> run() {
    std::vector<Token> out;
    while (true) {
      skip_space_and_comments();
      if (i_ >= q_.size()) break;
      auto tok = next();
      if (!tok) return Error{tok.error()};
      out.push_back(std::move(*tok));
    }
    Token end;
    end.kind = TokenKind::end;
    end.pos = q_.size();
    out.push_back(end);
    return out;
  }

 private:
  Error fail(std::size_t pos, const std::string& what) const {
    return make_error(describe_position(q_, pos) + ": " + what);
  }

  void skip_space_and_comments() {
    while (i_ < q_.size()) {
      char c = q_[i_];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
        ++i_;
      } else if (c == '#') {  // comment to end of line
        while (i_ < q_.size() && q_[i_] != '\n') ++i_;
      } else {
        break;
      }
    }
  }

  Token make(TokenKind k, std::size_t start, std::size_t len) {
    Token t;
    t.kind = k;
    t.pos = start;
    t.text = q_.substr(start, len);
    i_ = start + len;
    return t;
  }

  Expected<Token> next() {
    const std::size_t start = i_;
    const char c = q_[i_];
    const char n = i_ + 1 < q_.size() ? q_[i_ + 1] : '\0';
    switch (c) {
      case '(':
        return make(TokenKind::lparen, start, 1);
      case ')':
        return make(TokenKind::rparen, start, 1);
      case '{':
        return make(TokenKind::lbrace, start, 1);
      case '}':
        return make(TokenKind::rbrace, start, 1);
      case '[':
        return make(TokenKind::lbracket, start, 1);
      case ']':
        return make(TokenKind::rbracket, start, 1);
      case ',':
        return make(TokenKind::comma, start, 1);
      case ':':
        return make(TokenKind::colon, start, 1);
      case '@':
        return make(TokenKind::at, start, 1);
      case '+':
        return make(TokenKind::add, start, 1);
      case '-':
        return make(TokenKind::sub, start, 1);
      case '*':
        return make(TokenKind::mul, start, 1);
      case '/':
        return make(TokenKind::div, start, 1);
      case '%':
        return make(TokenKind::mod, start, 1);
      case '^':
        return make(TokenKind::pow, start, 1);
      case '=':
        if (n == '=') return make(TokenKind::eq, start, 2);
        if (n == '~') return make(TokenKind::re_match, start, 2);
        return make(TokenKind::assign, start, 1);
      case '!':
        if (n == '=') return make(TokenKind::ne, start, 2);
        if (n == '~') return make(TokenKind::re_no_match, start, 2);
        return fail(start, "unexpected character '!'");
      case '<':
        if (n == '=') return make(TokenKind::le, start, 2);
        return make(TokenKind::lt, start, 1);
      case '>':
        if (n == '=') return make(TokenKind::ge, start, 2);
        return make(TokenKind::gt, start, 1);
      case '"':
      case '\'':
      case '`':
        return lex_string(c);
      default:
        break;
    }
    if (is_digit(c) || (c == '.' && is_digit(n))) return lex_number_or_duration();
    if (is_ident_start(c)) {
      std::size_t j = i_;
      while (j < q_.size() && is_ident_char(q_[j])) ++j;
      Token t = make(TokenKind::identifier, start, j - start);
      if (iequals(t.text, "inf") || iequals(t.text, "nan")) {
        t.kind = TokenKind::number;
        t.number = iequals(t.text, "inf") ? std::numeric_limits<double>::infinity()
                                          : std::numeric_limits<double>::quiet_NaN();
      }
      return t;
    }
    unsigned char uc = static_cast<unsigned char>(c);
    if (uc < 0x20 || uc >= 0x7f) {
      return fail(start, "unexpected byte 0x" + std::string(1, "0123456789abcdef"[uc >> 4]) +
                             std::string(1, "0123456789abcdef"[uc & 15]));
    }
    return fail(start, std::string("unexpected character '") + c + "'");
  }

  Expected<Token> lex_number_or_duration() {
    const std::size_t start = i_;
    std::size_t j = i_;
    if (q_[j] == '0' && j + 1 < q_.size() && (q_[j + 1] == 'x' || q_[j + 1] == 'X')) {
      j += 2;
      std::size_t digits = j;
      while (j < q_.size() && is_hex(q_[j])) ++j;
      if (j == digits)
        return fail(start, "bad number \"" + std::string(q_.substr(start, j - start)) + "\"");
    } else {
      while (j < q_.size() && is_digit(q_[j])) ++j;
      // A unit letter right after an integer makes a duration (5m, 1h30m, 100ms).
      if (j < q_.size() && std::string_view("smhdwy").find(q_[j]) != std::string_view::npos) {
        std::size_t k = j;
        while (k < q_.size() &&
               (is_digit(q_[k]) || std::isalpha(static_cast<unsigned char>(q_[k]))))
          ++k;
        Token t = make(TokenKind::duration, start, k - start);
        auto d = parse_promql_duration(t.text);
        if (!d) return fail(start, d.error());
        t.duration_ms = *d;
        return t;
      }
      if (j < q_.size() && q_[j] == '.') {
        ++j;
        while (j < q_.size() && is_digit(q_[j])) ++j;
      }
      if (j < q_.size() && (q_[j] == 'e' || q_[j] == 'E')) {
        std::size_t k = j + 1;
        if (k < q_.size() && (q_[k] == '+' || q_[k] == '-')) ++k;
        if (k < q_.size() && is_digit(q_[k])) {
          while (k < q_.size() && is_digit(q_[k])) ++k;
          j = k;
        }
      }
    }
    if (j < q_.size() && is_ident_char(q_[j])) {
      std::size_t k = j;
      while (k < q_.size() && is_ident_char(q_[k])) ++k;
      return fail(start,
                  "bad number or duration \"" + std::string(q_.substr(start, k - start)) + "\"");
    }
    Token t = make(TokenKind::number, start, j - start);
    std::string text(t.text);
    errno = 0;
    t.number = std::strtod(text.c_str(), nullptr);  // handles decimal, exponent and 0x hex
    return t;
  }

  Expected<Token> lex_string(char quote) {
    const std::size_t start = i_;
    std::string value;
    std::size_t j = i_ + 1;
    while (true) {
      if (j >= q_.size()) return fail(start, "unterminated string");
      char c = q_[j];
      if (c == quote) break;
      if (quote == '`') {
        value += c;
        ++j;
        continue;
      }
      if (c == '\n') return fail(start, "unterminated string (newline inside quotes)");
      if (c != '\\') {
        value += c;
        ++j;
        continue;
      }
      if (j + 1 >= q_.size()) return fail(start, "unterminated string");
      char e = q_[j + 1];
      j += 2;
      switch (e) {
        case 'a':
          value += '\a';
          break;
        case 'b':
          value += '\b';
          break;
        case 'f':
          value += '\f';
          break;
        case 'n':
          value += '\n';
          break;
        case 'r':
          value += '\r';
          break;
        case 't':
          value += '\t';
          break;
        case 'v':
          value += '\v';
          break;
        case '\\':
          value += '\\';
          break;
        case '"':
        case '\'':
          if (e != quote) return fail(j - 2, std::string("invalid escape \\") + e + " in string");
          value += e;
          break;
        case 'x':
        case 'u':
        case 'U': {
          std::size_t len = e == 'x' ? 2 : (e == 'u' ? 4 : 8);
          if (j + len > q_.size()) return fail(j - 2, "truncated escape in string");
          std::uint32_t cp = 0;
          for (std::size_t k = 0; k < len; ++k) {
            char h = q_[j + k];
            if (!is_hex(h)) return fail(j - 2, "invalid hex escape in string");
            cp = cp * 16 +
                 static_cast<std::uint32_t>(is_digit(h) ? h - '0' : std::tolower(h) - 'a' + 10);
          }
          j += len;
          if (e == 'x') {
            value += static_cast<char>(cp);
          } else {
            if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
              return fail(j - len - 2, "invalid unicode escape in string");
            }
            append_utf8(value, cp);
          }
          break;
        }
        default:
          if (e >= '0' && e <= '7') {
            std::uint32_t v = static_cast<std::uint32_t>(e - '0');
            for (int k = 0; k < 2; ++k) {
              if (j >= q_.size() || q_[j] < '0' || q_[j] > '7')
                return fail(j, "invalid octal escape in string");
              v = v * 8 + static_cast<std::uint32_t>(q_[j] - '0');
              ++j;
            }
            if (v > 255) return fail(j - 4, "octal escape above \\377 in string");
            value += static_cast<char>(v);
            break;
          }
          return fail(j - 2, std::string("invalid escape \\") + e + " in string");
      }
    }
    Token t = make(TokenKind::string, start, j + 1 - start);
    t.str = std::move(value);
    return t;
  }

  std::string_view q_;
  std::size_t i_ = 0;
};

}  // namespace

std::string describe_position(std::string_view query, std::size_t pos) {
  if (pos > query.size()) pos = query.size();
  std::size_t line = 1;
  std::size_t line_start = 0;
  for (std::size_t i = 0; i < pos; ++i) {
    if (query[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
  }
  std::string col = "column " + std::to_string(pos - line_start + 1);
  if (query.find('\n') == std::string_view::npos) return col;
  return "line " + std::to_string(line) + ", " + col;
}

Expected<std::vector<Token>> lex_promql(std::string_view query) {
  return Lexer(query).run();
}

namespace {

struct DurationUnit {
  std::string_view name;
  std::int64_t ms;
};
// Largest first: each unit may appear once, in this order.
constexpr DurationUnit kDurationUnits[] = {{"y", 365LL * 86400000},
                                           {"w", 7LL * 86400000},
                                           {"d", 86400000},
                                           {"h", 3600000},
                                           {"m", 60000},
                                           {"s", 1000},
                                           {"ms", 1}};

}  // namespace

std::string format_promql_duration(std::int64_t ms) {
  if (ms == 0) return "0s";
  std::string out;
  for (const DurationUnit& u : kDurationUnits) {
    if (ms >= u.ms) {
      out += std::to_string(ms / u.ms) + std::string(u.name);
      ms %= u.ms;
    }
  }
  return out;
}

Expected<std::int64_t> parse_promql_duration(std::string_view text) {
  auto bad = [&] { return make_error("bad duration \"" + std::string(text) + "\""); };
  if (text.empty()) return bad();
  std::int64_t total = 0;
  std::size_t next_unit = 0;
  std::size_t i = 0;
  while (i < text.size()) {
    std::size_t d0 = i;
    while (i < text.size() && is_digit(text[i])) ++i;
    if (i == d0 || i - d0 > 12) return bad();
    std::int64_t n = std::strtoll(std::string(text.substr(d0, i - d0)).c_str(), nullptr, 10);
    std::size_t u0 = i;
    while (i < text.size() && std::isalpha(static_cast<unsigned char>(text[i]))) ++i;
    std::string_view unit = text.substr(u0, i - u0);
    std::size_t k = next_unit;
    while (k < std::size(kDurationUnits) && kDurationUnits[k].name != unit) ++k;
    if (k == std::size(kDurationUnits)) return bad();
    next_unit = k + 1;
    if (n > std::numeric_limits<std::int64_t>::max() / kDurationUnits[k].ms) return bad();
    total += n * kDurationUnits[k].ms;
    if (total < 0 || total > std::numeric_limits<std::int64_t>::max() / 4) return bad();
  }
  return total;
}

}  // namespace limitscope::metrics
