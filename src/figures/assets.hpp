#pragma once
#include <string>

namespace poslab {

// The embeddings file that ships with PosLab.
inline constexpr const char* kDefaultEmbeddingsFile = "glove-wink-100d-10k.txt";

// Finds assets/NAME: in $POSLAB_ASSETS, beside the executable (a build folder), in the installed
// prefix's share/poslab (bin/poslab → share/poslab/NAME), then in the source tree.
// Returns the first existing path, or the last candidate (so a message can name it).
std::string asset_path(const std::string& name);

}  // namespace poslab
