#pragma once
// The product version, defined once: project(VERSION) in the top-level CMakeLists.txt. Every
// program prints it with --version, and the Debian package carries it.

#include <string_view>

namespace limitscope {

/// "MAJOR.MINOR.PATCH", as configured (core/common/version.cpp.in).
std::string_view version();

}  // namespace limitscope
