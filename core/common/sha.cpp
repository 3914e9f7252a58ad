// SHA-1 and SHA-256 from OpenSSL's libcrypto (core/common/sha1.h, sha256.h): its assembly
// (SHA-NI, AVX2) is faster than a portable C++ one and is kept by people whose job it is.
// Each algorithm is fetched from the default provider once; each thread reuses one context,
// so a digest costs no allocation and no provider lookup.

#include <openssl/err.h>
#include <openssl/evp.h>

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <string>

#include "core/common/sha1.h"
#include "core/common/sha256.h"

namespace limitscope {
namespace {

[[noreturn]] void openssl_failed(const char* what) {
  char reason[256] = "no reason given";
  if (const unsigned long code = ERR_get_error(); code != 0)
    ERR_error_string_n(code, reason, sizeof reason);
  throw std::runtime_error(std::string("OpenSSL ") + what + ": " + reason);
}

// The algorithm `name` ("SHA1", "SHA256"), fetched once for the process.
const EVP_MD* algorithm(const char* name) {
  EVP_MD* md = EVP_MD_fetch(nullptr, name, nullptr);
  if (md == nullptr) openssl_failed(name);
  return md;
}

// The digest of `data` into `out` (at least EVP_MAX_MD_SIZE bytes). @return its length
unsigned int digest(const EVP_MD* md, std::string_view data, unsigned char* out) {
  thread_local const std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(),
                                                                                 &EVP_MD_CTX_free);
  unsigned int len = 0;
  if (!ctx || EVP_DigestInit_ex2(ctx.get(), md, nullptr) != 1 ||
      EVP_DigestUpdate(ctx.get(), data.data(), data.size()) != 1 ||
      EVP_DigestFinal_ex(ctx.get(), out, &len) != 1) {
    openssl_failed(EVP_MD_get0_name(md));
  }
  return len;
}

std::string hex(const unsigned char* bytes, unsigned int len) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(2 * std::size_t{len});
  for (unsigned int i = 0; i < len; ++i) {
    out += kHex[bytes[i] >> 4];
    out += kHex[bytes[i] & 0xf];
  }
  return out;
}

const EVP_MD* sha1_md() {
  static const EVP_MD* const md = algorithm("SHA1");
  return md;
}

const EVP_MD* sha256_md() {
  static const EVP_MD* const md = algorithm("SHA256");
  return md;
}

}  // namespace

std::string sha1_hex(std::string_view data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  const unsigned int len = digest(sha1_md(), data, out);
  return hex(out, len);
}

std::array<std::uint8_t, 32> sha256(std::string_view data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  digest(sha256_md(), data, out);
  std::array<std::uint8_t, 32> d{};
  std::copy_n(out, d.size(), d.begin());
  return d;
}

std::string sha256_hex(std::string_view data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  const unsigned int len = digest(sha256_md(), data, out);
  return hex(out, len);
}

std::string api_key_hash(std::string_view api_key) {
  return sha256_hex(api_key).substr(0, 12);
}

}  // namespace limitscope
