#pragma once
// An owned copy of one RESP reply, so nothing outside connection.cpp sees hiredis types and
// a reply outlives the context that read it.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace limitscope::redis {

struct Value {
  enum class Type { nil, integer, string, status, error, array };

  Type type = Type::nil;
  std::int64_t integer = 0;
  std::string str;              ///< string, status and error text
  std::vector<Value> elements;  ///< array elements

  bool is_nil() const { return type == Type::nil; }
  bool is_error() const { return type == Type::error; }
  bool is_array() const { return type == Type::array; }
  bool is_string() const { return type == Type::string || type == Type::status; }

  /// The value as a number: an integer reply, or a string holding a finite decimal number.
  std::optional<double> as_number() const;
  /// The value as an int64: an integer reply, or a string holding a whole decimal number.
  std::optional<std::int64_t> as_integer() const;

  static Value nil() { return Value{}; }
  static Value of_integer(std::int64_t v);
  static Value of_string(std::string s);
  static Value of_status(std::string s);
  static Value of_error(std::string s);
  static Value of_array(std::vector<Value> elements);

  /// The reply of TIME ([seconds, microseconds]) as µs since the epoch, or nullopt.
  std::optional<std::int64_t> as_time_us() const;

  /// A short human rendering (redis-cli style, one line), for errors and logs.
  std::string describe() const;
};

}  // namespace limitscope::redis
