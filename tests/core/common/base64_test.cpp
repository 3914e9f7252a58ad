// Verifies base64 against the RFC 4648 §10 test vectors (every padding case) and binary bytes.

#include "core/common/base64.h"

#include <gtest/gtest.h>

namespace limitscope {
namespace {

TEST(Base64, Rfc4648Vectors) {
  struct Row {
    const char* in;
    const char* out;
  };
  for (const Row& r :
       {Row{"", ""}, Row{"f", "Zg=="}, Row{"fo", "Zm8="}, Row{"foo", "Zm9v"},
        Row{"foob", "Zm9vYg=="}, Row{"fooba", "Zm9vYmE="}, Row{"foobar", "Zm9vYmFy"}}) {
    EXPECT_EQ(base64_encode(r.in), r.out) << r.in;
  }
}

TEST(Base64, HighBytes) {
  // 1.0f little-endian (00 00 80 3f) and 0xff bytes: no sign extension.
  EXPECT_EQ(base64_encode(std::string("\x00\x00\x80\x3f", 4)), "AACAPw==");
  EXPECT_EQ(base64_encode("\xff\xff\xff"), "////");
}

}  // namespace
}  // namespace limitscope
