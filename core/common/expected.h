#pragma once
// A value or an error message: the result type of every parser and validator in core.
// (std::expected is C++23; Debian 12's g++ 12 builds C++20.)

#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace limitscope {

struct Error {
  std::string message;  // one line, names the input and the reason
};

template <class T>
class Expected {
 public:
  Expected(T value) : v_(std::in_place_index<0>, std::move(value)) {}  // NOLINT: implicit by design
  Expected(Error error) : v_(std::in_place_index<1>, std::move(error)) {}  // NOLINT

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  const std::string& error() const { return std::get<1>(v_).message; }

 private:
  std::variant<T, Error> v_;
};

inline Error make_error(std::string message) {
  return Error{std::move(message)};
}

}  // namespace limitscope
