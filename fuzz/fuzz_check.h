#pragma once
// The one assertion of the fuzz targets: names the failed condition, file and line before
// aborting, so a crash log says which invariant broke (libFuzzer keeps the input that did it).

#include <cstdio>
#include <cstdlib>

#define check(cond)                                                                  \
  do {                                                                               \
    if (!(cond)) {                                                                   \
      std::fprintf(stderr, "check failed: %s (%s:%d)\n", #cond, __FILE__, __LINE__); \
      std::abort();                                                                  \
    }                                                                                \
  } while (false)
