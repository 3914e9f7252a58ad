#pragma once
// The one error convention of limitscope (docs/architecture.md, "Errors"):
// - Expected<T, E = Error>: a value or an error. What a parser, a validator that builds
//   something, or a factory (`static Expected<X> create(...)`) returns.
// - Status (Expected<void>): ok, or an Error. What a check or an action without a value returns.
// - E is Error (one line of text) unless callers need more: redis::Result<T> is
//   Expected<T, redis::RedisError>, whose kind tells retry from reconnect from report.
// Not std::optional<std::string> as an error, an empty string meaning ok, an error
// out-parameter, or a throwing constructor.
// (std::expected is C++23; Debian 12's g++ 12 builds C++20.)

#include <optional>
#include <ostream>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>

namespace limitscope {

struct Error {
  std::string message;  // one line, names the input and the reason

  bool operator==(const Error&) const = default;
};

/// A value of type T, or an error of type E.
template <class T, class E = Error>
class [[nodiscard]] Expected {
 public:
  using value_type = T;
  using error_type = E;

  Expected(T value) : v_(std::in_place_index<0>, std::move(value)) {}  // NOLINT: implicit by design
  Expected(E error) : v_(std::in_place_index<1>, std::move(error)) {}  // NOLINT

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  /// The error (only when !ok()): its message when E is Error, the whole E otherwise.
  const std::string& error() const requires std::is_same_v<E, Error> {
    return std::get<1>(v_).message;
  }
  const E& error() const requires(!std::is_same_v<E, Error>) { return std::get<1>(v_); }

 private:
  std::variant<T, E> v_;
};

/// Ok, or an error of type E. It has no conversion to bool on purpose: `if (status)` would
/// read as "if failed" to anyone used to the optional-error functions it replaces, so callers
/// say `.ok()`.
template <class E>
class [[nodiscard]] Expected<void, E> {
 public:
  using value_type = void;
  using error_type = E;

  Expected() = default;                            ///< ok
  Expected(E error) : error_(std::move(error)) {}  // NOLINT: implicit by design

  bool ok() const { return !error_.has_value(); }

  /// The error (only when !ok()): its message when E is Error, the whole E otherwise.
  const std::string& error() const requires std::is_same_v<E, Error> { return error_->message; }
  const E& error() const requires(!std::is_same_v<E, Error>) { return *error_; }

  bool operator==(const Expected&) const = default;

 private:
  std::optional<E> error_;
};

/// Ok, or an Error: the result of a check or an action that has no value. `return {};` is ok.
using Status = Expected<void>;

inline Error make_error(std::string message) {
  return Error{std::move(message)};
}

/// Prints "ok" or "error: <message>" (test failure messages).
inline std::ostream& operator<<(std::ostream& os, const Status& status) {
  return status.ok() ? os << "ok" : os << "error: " << status.error();
}

}  // namespace limitscope
