#pragma once
// The value of an Expected a test cannot go on without (a factory's product, a parsed input),
// or a std::runtime_error carrying its error, which gtest reports as the test's failure.

#include <stdexcept>
#include <utility>

#include "core/common/expected.h"

namespace limitscope::test {

template <class T>
T must(Expected<T> made) {
  if (!made.ok()) throw std::runtime_error(made.error());
  return std::move(made).value();
}

}  // namespace limitscope::test
