#include "hub/sha256.hpp"

#include <algorithm>
#include <cstdio>
#include <memory>
#include <vector>

#include <openssl/evp.h>

namespace poslab::hub {

bool is_sha256(std::string_view text) {
  return text.size() == 64 && std::all_of(text.begin(), text.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

Result<std::string> sha256_of_file(const std::filesystem::path& file, const std::atomic<bool>* cancel) {
  const std::unique_ptr<std::FILE, int (*)(std::FILE*)> in(std::fopen(file.c_str(), "rb"), std::fclose);
  if (!in) return Error{file.string() + ": cannot read it to check its SHA-256"};
  const std::unique_ptr<EVP_MD_CTX, void (*)(EVP_MD_CTX*)> context(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  if (!context || EVP_DigestInit_ex(context.get(), EVP_sha256(), nullptr) != 1) return Error{"SHA-256 is not available (libcrypto)"};
  std::vector<unsigned char> buffer(1 << 20);
  for (std::size_t n; (n = std::fread(buffer.data(), 1, buffer.size(), in.get())) > 0;) {
    if (cancel && cancel->load()) return Error{"cancelled"};
    EVP_DigestUpdate(context.get(), buffer.data(), n);
  }
  if (std::ferror(in.get())) return Error{file.string() + ": cannot read it to check its SHA-256"};
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_DigestFinal_ex(context.get(), digest, &length);
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (unsigned int k = 0; k < length; ++k) out += {hex[digest[k] >> 4], hex[digest[k] & 15]};
  return out;
}

}  // namespace poslab::hub
