#pragma once
// Where test fixtures and built binaries live, fixed at configure time.

#include <string>

namespace limitscope::test {

inline std::string data_path(const std::string& relative) {
  return std::string(LIMITSCOPE_TEST_DATA_DIR) + "/" + relative;
}

inline std::string binary_path(const std::string& relative) {
  return std::string(LIMITSCOPE_BINARY_DIR) + "/" + relative;
}

/// A file of the tests' source tree (tests/...), e.g. a script a test runs.
inline std::string test_source_path(const std::string& relative) {
  return std::string(LIMITSCOPE_TEST_SOURCE_DIR) + "/" + relative;
}

}  // namespace limitscope::test
