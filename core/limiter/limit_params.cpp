#include "core/limiter/limit_params.h"

#include <cmath>

#include "core/common/enum_names.h"
#include "core/common/number_format.h"

namespace limitscope {

std::string_view to_string(Algorithm a) {
  switch (a) {
    case Algorithm::token_bucket:
      return "token-bucket";
    case Algorithm::gcra:
      return "gcra";
    case Algorithm::sliding_log:
      return "sliding-log";
    case Algorithm::sliding_counter:
      return "sliding-counter";
    case Algorithm::fixed_window:
      return "fixed-window";
    case Algorithm::leaky_bucket:
      return "leaky-bucket";
  }
  return "unknown";
}

std::optional<Algorithm> parse_algorithm(std::string_view name) {
  return parse_dashed_name(
      name, {Algorithm::token_bucket, Algorithm::gcra, Algorithm::sliding_log,
             Algorithm::sliding_counter, Algorithm::fixed_window, Algorithm::leaky_bucket});
}

bool is_window_algorithm(Algorithm a) {
  return a == Algorithm::sliding_log || a == Algorithm::sliding_counter ||
         a == Algorithm::fixed_window;
}

namespace {
std::string number(double v) {
  return significant_text(v, 15);
}
}  // namespace

Status LimitParams::validate() const {
  if (is_window_algorithm(algorithm)) {
    if (!std::isfinite(limit) || limit <= 0)
      return make_error("limit must be a finite number > 0, got " + number(limit));
    if (window < Nanos{1'000'000})
      return make_error("window must be at least 1ms, got " + format_duration(window));
    return {};
  }
  if (!std::isfinite(capacity) || capacity <= 0) {
    return make_error("capacity must be a finite number > 0, got " + number(capacity));
  }
  if (!std::isfinite(refill.amount) || refill.amount <= 0 || refill.period.count() <= 0) {
    return make_error("refill must be a finite rate > 0, got " + number(refill.amount) + " per " +
                      format_duration(refill.period));
  }
  return {};
}

std::string LimitParams::describe() const {
  std::string out(to_string(algorithm));
  if (is_window_algorithm(algorithm)) {
    out += " limit=" + number(limit) + " window=" + format_duration(window);
  } else {
    out += (algorithm == Algorithm::leaky_bucket ? " depth=" : " capacity=") + number(capacity);
    out += (algorithm == Algorithm::leaky_bucket ? " drain=" : " refill=") + refill.to_string();
  }
  return out;
}

}  // namespace limitscope
