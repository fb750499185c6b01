#pragma once
// SHA-256 of a downloaded file (OpenSSL's libcrypto), for the check huggingface_hub leaves out:
// the Hub names an LFS file's blob by the SHA-256 of its bytes, so a blob whose bytes hash to
// anything else is not the file the Hub announced and never enters the cache.
#include <atomic>
#include <filesystem>
#include <string>
#include <string_view>

#include "base/result.hpp"

namespace poslab::hub {

// 64 lowercase hexadecimal digits.
bool is_sha256(std::string_view text);

// The file's SHA-256 as 64 lowercase hexadecimal digits; "cancelled" when `cancel` is set.
Result<std::string> sha256_of_file(const std::filesystem::path& file, const std::atomic<bool>* cancel = nullptr);

}  // namespace poslab::hub
