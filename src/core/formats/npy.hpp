#pragma once
// NumPy .npy files holding one 2-D matrix (a learned positional table, say): format versions
// 1.0, 2.0 and 3.0; little-endian float16, float32 or float64; C order only.
#include <filesystem>
#include <string>
#include <string_view>

#include "base/matrix.hpp"
#include "base/result.hpp"

namespace poslab {

// Reads a 2-D float matrix from a .npy file. Every malformed input (bad magic, header, dtype,
// shape, fortran order, truncated or extra data, non-finite values) is an Error naming the file.
// `dtype`, when given, receives the file's own element type ("float16", "float32", "float64").
Result<Matrix> load_npy_matrix(const std::filesystem::path& path, std::string* dtype = nullptr);

// The same parser on the bytes of a file already in memory; `name` is used in messages.
Result<Matrix> parse_npy_matrix(std::string_view bytes, const std::string& name, std::string* dtype = nullptr);

}  // namespace poslab
