#include "core/redis/redis_value.h"

#include <charconv>
#include <cmath>

namespace limitscope::redis {

std::optional<double> Value::as_number() const {
  if (type == Type::integer) return static_cast<double>(integer);
  if (type != Type::string && type != Type::status) return std::nullopt;
  if (str.empty()) return std::nullopt;
  double v = 0;
  const char* end = str.data() + str.size();
  auto [p, ec] = std::from_chars(str.data(), end, v);
  if (ec != std::errc{} || p != end || !std::isfinite(v)) return std::nullopt;
  return v;
}

std::optional<std::int64_t> Value::as_integer() const {
  if (type == Type::integer) return integer;
  if (type != Type::string && type != Type::status) return std::nullopt;
  std::int64_t v = 0;
  const char* end = str.data() + str.size();
  auto [p, ec] = std::from_chars(str.data(), end, v);
  if (str.empty() || ec != std::errc{} || p != end) return std::nullopt;
  return v;
}

std::optional<std::int64_t> Value::as_time_us() const {
  if (type != Type::array || elements.size() != 2) return std::nullopt;
  const auto s = elements[0].as_integer();
  const auto us = elements[1].as_integer();
  if (!s || !us) return std::nullopt;
  return *s * 1'000'000 + *us;
}

Value Value::of_integer(std::int64_t v) {
  Value r;
  r.type = Type::integer;
  r.integer = v;
  return r;
}

Value Value::of_string(std::string s) {
  Value r;
  r.type = Type::string;
  r.str = std::move(s);
  return r;
}

Value Value::of_status(std::string s) {
  Value r = of_string(std::move(s));
  r.type = Type::status;
  return r;
}

Value Value::of_error(std::string s) {
  Value r = of_string(std::move(s));
  r.type = Type::error;
  return r;
}

Value Value::of_array(std::vector<Value> elements) {
  Value r;
  r.type = Type::array;
  r.elements = std::move(elements);
  return r;
}

std::string Value::describe() const {
  switch (type) {
    case Type::nil:
      return "(nil)";
    case Type::integer:
      return "(integer) " + std::to_string(integer);
    case Type::string:
      return "\"" + str + "\"";
    case Type::status:
      return str;
    case Type::error:
      return "(error) " + str;
    case Type::array: {
      std::string out = "[";
      for (std::size_t i = 0; i < elements.size(); ++i) {
        if (i > 0) out += ", ";
        if (out.size() > 200) {
          out += "...";
          break;
        }
        out += elements[i].describe();
      }
      return out + "]";
    }
  }
  return "?";
}

}  // namespace limitscope::redis
