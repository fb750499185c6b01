#pragma once
#include <string_view>

namespace poslab {
// Defined in the generated file that embeds shaders/ into the binary.
std::string_view embedded_file(std::string_view name);
}  // namespace poslab

namespace poslab::gpu {
// The source text of a shader from shaders/, by file name; empty if there is none.
inline std::string_view shader_source(std::string_view name) { return embedded_file(name); }
}  // namespace poslab::gpu
