// Verifies sha1_hex against the FIPS 180 examples and the SHA-1 Redis reports for a script.
#include "core/common/sha1.h"

#include <gtest/gtest.h>

#include <string>

namespace limitscope {
namespace {

struct Sha1Row {
  std::string input;
  std::string hex;
};

TEST(Sha1, KnownDigests) {
  const Sha1Row rows[] = {
      {"", "da39a3ee5e6b4b0d3255bfef95601890afd80709"},
      {"abc", "a9993e364706816aba3e25717850c26c9cd0d89d"},
      {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
       "84983e441c3bd26ebaae4aa1f95129e5e54670f1"},
      // 55 and 56 bytes straddle the one-block / two-block padding boundary.
      {std::string(55, 'a'), "c1c8bbdc22796e28c0e15163d20899b65621d65a"},
      {std::string(56, 'a'), "c2db330f6083854c99d4b5bfb6e8f29f201be699"},
      {std::string(64, 'a'), "0098ba824b5c16427bd7a1122a5a442a25ec644d"},
      {std::string(1000000, 'a'), "34aa973cd4c4daa4f61eeb2bdbad27316534016f"},
  };
  for (const auto& row : rows) {
    EXPECT_EQ(sha1_hex(row.input), row.hex) << "input of " << row.input.size() << " bytes";
  }
}

}  // namespace
}  // namespace limitscope
