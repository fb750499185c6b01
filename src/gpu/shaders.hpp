#pragma once
#include <string>
#include <string_view>

namespace poslab {
// Defined in the generated file that embeds shaders/ into the binary.
std::string_view embedded_file(std::string_view name);
}  // namespace poslab

namespace poslab::gpu {
// The source text of a shader from shaders/, by file name; empty if there is none. When
// $POSLAB_SHADER_DIR names a folder holding the file, that file is used instead of the embedded
// copy: edit a shader and rerun without rebuilding (and test how a broken one is reported).
std::string shader_source(std::string_view name);
}  // namespace poslab::gpu
